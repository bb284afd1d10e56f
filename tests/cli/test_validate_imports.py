"""``agent-canvas validate`` starts fast because it imports only what its checks use:
no graph library, no GUI, no agent adapter or protocol schema, no engine, no event models."""

import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = sorted((Path(__file__).resolve().parents[2] / "resources" / "examples")
                  .glob("*.flow.yaml"))
HEAVY = ("networkx", "PySide6", "aiohttp", "acp", "rich", "desktop.providers.acp_client",
         "desktop.providers.acp_provider", "desktop.providers.cli_agents",
         "desktop.providers.process", "desktop.runtime.engine", "desktop.contract.events")


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.name)
def test_validating_an_example_imports_no_heavy_module(example: Path) -> None:
    code = ("import sys\nfrom desktop.cli import main\n"
            f"code = main(['validate', {str(example)!r}])\n"
            f"print(code, sorted(m for m in {HEAVY!r} if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, timeout=120)
    assert done.stdout.strip().splitlines()[-1] == "0 []"
