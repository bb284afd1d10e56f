"""A data folder that is a file (or lies under one), given by --data-dir or
$AGENT_CANVAS_DATA_DIR, or an empty --data-dir, is one clear line and exit 2 from every
command that takes it."""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from desktop.cli.entry import build_parser, main
from desktop.disk.paths import ENV_DATA_DIR

EXAMPLE = Path(__file__).resolve().parents[2] / "resources/examples/single-agent.flow.yaml"


def _commands(parser: argparse.ArgumentParser, words: list[str]) -> Iterator[list[str]]:
    """The words of each (sub)command with --data-dir, its required arguments filled in."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _commands(sub, [*words, name])
    if not any(a.dest == "data_dir" for a in parser._actions):
        return
    argv = list(words)
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            continue
        filler = str(sorted(action.choices)[0] if action.choices else EXAMPLE)
        if not action.option_strings:
            argv.append(filler)
        elif action.required:
            argv += [action.option_strings[0], filler]
    yield argv


COMMANDS = sorted({" ".join(c) for c in _commands(build_parser(), [])})


def test_every_command_with_a_data_folder_is_found() -> None:
    names = {c.split()[0] for c in COMMANDS}
    assert {"run", "resume", "runs", "replay", "fork", "import", "rehearse", "serve"} <= names


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("how", ["option", "environment"])
@pytest.mark.parametrize("under", ["", "/runs-here"])
def test_a_data_folder_that_is_a_file_is_one_clear_line(
        command: str, how: str, under: str, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    afile = tmp_path / "afile"
    afile.write_text("not a folder")
    chosen = f"{afile}{under}"
    argv = command.split()
    if how == "option":
        argv += ["--data-dir", chosen]
    else:
        monkeypatch.setenv(ENV_DATA_DIR, chosen)
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.splitlines()) == 1
    assert f"the data folder {chosen} " in err and "not a folder" in err
    assert ("--data-dir" if how == "option" else ENV_DATA_DIR) in err
    assert not afile.is_dir()  # nothing was made of it


def test_a_missing_data_folder_is_still_fine(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["runs", "list", "--data-dir", str(tmp_path / "new" / "data")]) == 0
    assert "no runs in" in capsys.readouterr().out


@pytest.mark.parametrize("command", COMMANDS)
@settings(max_examples=3, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(blank=st.text(alphabet=" \t", max_size=2))
def test_an_empty_data_dir_is_refused_not_taken_for_the_default(
        command: str, blank: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    # `--data-dir "$DATA"` with DATA unset: the default folder's runs are not the ones meant
    default = tmp_path / "the default"
    monkeypatch.setenv(ENV_DATA_DIR, str(default))
    monkeypatch.chdir(tmp_path)  # a blank folder name would be made here
    assert main([*command.split(), "--data-dir", blank]) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.splitlines()) == 1
    assert "--data-dir is empty; give a folder" in err and str(default) in err
    assert not default.exists() and list(tmp_path.iterdir()) == []
