"""The commands run most often start fast because they load only what they use:
``--version`` loads no command and no library, and a run shown as JSON lines loads no
terminal table, no service client, no GUI, no agent protocol package and does not build
the union of every event model. Each is checked in a fresh interpreter."""

import subprocess
import sys
from pathlib import Path

SINGLE = Path(__file__).resolve().parents[2] / "resources" / "examples" / "single-agent.flow.yaml"
PROBE = """import sys
from desktop.cli import main
code = main({argv!r})
union = sys.modules.get("desktop.contract.events")
built = bool(union and union.EVENT_ADAPTER.pydantic_complete)
print(code, built, sorted(m for m in {modules!r} if m in sys.modules))
"""


def _probe(argv: list[str], modules: tuple[str, ...], cwd: Path) -> str:
    """The probe's last line: exit code, whether the event union was built, heavy modules."""
    done = subprocess.run([sys.executable, "-c", PROBE.format(argv=argv, modules=modules)],
                          capture_output=True, text=True, check=True, timeout=300, cwd=cwd)
    return done.stdout.strip().splitlines()[-1]


def test_version_loads_no_command_and_no_library(tmp_path: Path) -> None:
    heavy = ("pydantic", "yaml", "rich", "orjson", "PySide6", "aiohttp", "keyring",
             "desktop.contract", "desktop.graph", "desktop.runtime", "desktop.store")
    assert _probe(["--version"], heavy, tmp_path) == "0 False []"


def test_a_json_run_loads_no_table_service_gui_or_protocol_package(tmp_path: Path) -> None:
    heavy = ("rich", "PySide6", "aiohttp", "acp", "networkx", "jsonschema",
             "desktop.cli.run_table", "desktop.api", "desktop.providers.acp_provider")
    argv = ["run", str(SINGLE), "--data-dir", str(tmp_path / "data"), "--json"]
    assert _probe(argv, heavy, tmp_path) == "0 False []"
