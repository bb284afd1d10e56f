"""A workflow file marked read-only is not rewritten by ``layout`` (in place or as -o),
nor written over by ``export -o``: one line naming it with the chmod or -o that fixes it,
exit 2, the file as it was. The rename that writes atomically ignores the file's own
mode, so it is asked first. A file that is rewritten keeps its mode (it was made 0600)."""

from __future__ import annotations

import shutil
import stat
from pathlib import Path

import pytest
from cli_kit import Cli, make_cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

EXAMPLE = Path(__file__).resolve().parents[2] / "resources" / "examples" / \
    "single-agent.flow.yaml"


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Cli:
    return make_cli(capsys, monkeypatch, [])


def _state(folder: Path) -> dict[str, tuple[bytes, int]]:
    return {p.name: (p.read_bytes(), stat.S_IMODE(p.stat().st_mode))
            for p in sorted(folder.iterdir())}


@pytest.mark.parametrize("how", [["layout", "{flow}"], ["layout", "{flow}", "--force"],
                                 ["layout", str(EXAMPLE), "-o", "{flow}"],
                                 ["export", "-f", "mermaid", str(EXAMPLE), "-o", "{flow}"]],
                         ids=" ".join)
@pytest.mark.parametrize("mode", [0o444, 0o400, 0o555], ids=oct)
def test_a_read_only_file_is_refused_and_left_as_it_was(
        cli: Cli, tmp_path: Path, how: list[str], mode: int) -> None:
    folder = tmp_path / "my flows"
    folder.mkdir()
    flow = folder / "review it.flow.yaml"
    shutil.copyfile(EXAMPLE, flow)
    flow.chmod(mode)
    before = _state(folder)
    said = cli(*[word.replace("{flow}", str(flow)) for word in how])
    assert said.code == 2 and said.out == ""
    assert said.err == (f"{how[0]}: {flow} is read-only; chmod u+w '{flow}' or write "
                        "elsewhere with -o\n")
    assert _state(folder) == before  # no temporary file left either


@settings(max_examples=6, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(mode=st.sampled_from([0o600, 0o640, 0o644, 0o660, 0o664, 0o666, 0o700, 0o755]))
def test_a_file_laid_out_in_place_keeps_its_mode(cli: Cli, tmp_path: Path, mode: int) -> None:
    flow = tmp_path / "shared.flow.yaml"
    shutil.copyfile(EXAMPLE, flow)
    flow.chmod(mode)
    said = cli("layout", str(flow), "--force")
    assert said.code == 0, said.err
    assert stat.S_IMODE(flow.stat().st_mode) == mode
