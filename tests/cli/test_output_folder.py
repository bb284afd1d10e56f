"""`-o` naming a folder, for every command that writes one file: one line saying to give
a file name, exit 2, nothing written; a file that cannot be written is one line too; an
empty -o or --out is refused before anything is written."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_kit import unreadable
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from desktop.cli.entry import main

EXAMPLE = Path(__file__).resolve().parents[2] / "resources/examples/single-agent.flow.yaml"

COMMANDS = {
    "export": (["export", str(EXAMPLE)], "graph.mmd"),
    "export dot": (["export", "-f", "dot", str(EXAMPLE)], "graph.dot"),
    "layout": (["layout", str(EXAMPLE)], "laid-out.flow.yaml"),
    "eval report": (["eval", "report", str(EXAMPLE.parent)], "report.html"),
}


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_an_output_folder_is_refused_with_a_file_name_to_give(
        name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv, example = COMMANDS[name]
    before = EXAMPLE.read_bytes()
    assert main([*argv, "-o", str(tmp_path)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == (f"{name.split(' dot')[0]}: -o {tmp_path} is a folder; give a file name "
                   f"like {example}\n")
    assert list(tmp_path.iterdir()) == [] and EXAMPLE.read_bytes() == before


@pytest.mark.parametrize("name", ["export", "layout"])
def test_an_output_that_cannot_be_written_is_one_line(
        name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "afile").write_text("")
    target = tmp_path / "afile" / "out.txt"  # its folder is a file
    assert main([*COMMANDS[name][0], "-o", str(target)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"{name}: cannot write {target}: ") and len(err.splitlines()) == 1


@pytest.mark.parametrize("name", ["export", "export dot", "layout"])
def test_an_output_in_a_folder_it_may_not_read_is_one_line(
        name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    closed = tmp_path / "closed folder"
    closed.mkdir()
    target = closed / "out.txt"
    with unreadable(closed):
        code = main([*COMMANDS[name][0], "-o", str(target)])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err and len(err.splitlines()) == 1, err
    assert str(target) in err and "Permission denied" in err
    assert list(closed.iterdir()) == []


@pytest.mark.parametrize("name", ["export", "layout"])
def test_an_output_file_is_written(name: str, tmp_path: Path) -> None:
    target = tmp_path / "out.flow.yaml"
    assert main([*COMMANDS[name][0], "-o", str(target)]) == 0
    assert target.is_file() and target.read_text()


WHERE_TO_WRITE = {
    "export": ["export", str(EXAMPLE), "-o"],
    "layout": ["layout", str(EXAMPLE), "-o"],
    "schema": ["schema", "--out"],
    "eval run": ["eval", "run", str(EXAMPLE), "--baseline", str(EXAMPLE), "--new",
                 str(EXAMPLE), "--out"],
    "eval report": ["eval", "report", str(EXAMPLE.parent), "-o"],
}


@pytest.mark.parametrize("name", sorted(WHERE_TO_WRITE))
@settings(max_examples=3, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(blank=st.text(alphabet=" \t", max_size=2))
def test_an_empty_place_to_write_is_a_usage_error_and_writes_nothing(
        name: str, blank: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    # `--out "$DIR"` with DIR unset wrote into the current folder (or over the input)
    here = tmp_path / "here"
    here.mkdir(exist_ok=True)
    monkeypatch.chdir(here)
    before = EXAMPLE.read_bytes()
    with pytest.raises(SystemExit) as exc:
        main([*WHERE_TO_WRITE[name], blank])
    assert exc.value.code == 2
    assert "is empty; give a file or folder name" in capsys.readouterr().err
    assert list(here.iterdir()) == [] and EXAMPLE.read_bytes() == before
