"""The token of `--server URL` comes from AGENT_CANVAS_TOKEN or --token-file, where other
users of the machine cannot read it; `--token VALUE` (on argv, in everyone's `ps`) still
works, with one warning line naming those two."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from desktop.cli.server_args import RemoteError, add_server_options, client_for

TOKEN_ENV = "AGENT_CANVAS_TOKEN"
URL = "http://127.0.0.1:9"
TOKENS = st.text(alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJ0123456789-_", min_size=1,
                 max_size=64)


def args_of(*argv: str, data_dir: Path) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_server_options(parser)
    args = parser.parse_args(["--server", URL, *argv])
    args.data_dir = str(data_dir)
    return args


@settings(max_examples=25)
@given(token=TOKENS)
def test_the_token_comes_from_the_environment_without_a_word(token: str) -> None:
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(TOKEN_ENV, token)
        args = args_of(data_dir=Path("/nonexistent"))
        assert client_for(args).token == token


def test_the_token_comes_from_a_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv(TOKEN_ENV, "from-the-environment")
    path = tmp_path / "token"
    path.write_text("from-the-file\n")
    assert client_for(args_of("--token-file", str(path), data_dir=tmp_path)).token == \
        "from-the-file"
    assert capsys.readouterr().err == ""
    path.write_text("\n")
    with pytest.raises(RemoteError, match=rf"--token-file {path}: no token in it"):
        client_for(args_of("--token-file", str(path), data_dir=tmp_path))
    with pytest.raises(RemoteError, match=r"--token-file .*gone: cannot read it"):
        client_for(args_of("--token-file", str(tmp_path / "gone"), data_dir=tmp_path))


def test_a_token_on_argv_still_works_with_one_warning_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = args_of("--token", "on-argv", data_dir=tmp_path)
    assert client_for(args).token == "on-argv"
    assert client_for(args).token == "on-argv"  # a command that makes several requests
    [line] = capsys.readouterr().err.splitlines()
    assert line.startswith("warning: --token") and "ps" in line
    assert TOKEN_ENV in line and "--token-file" in line and "on-argv" not in line


def test_no_token_anywhere_names_the_ways_to_give_one(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(TOKEN_ENV, raising=False)
    with pytest.raises(RemoteError, match=rf"no token for {URL}: set {TOKEN_ENV}, or pass "
                                          r"--token-file PATH"):
        client_for(args_of(data_dir=tmp_path))


def test_the_help_prefers_the_environment_and_the_file(
        capsys: pytest.CaptureFixture[str]) -> None:
    parser = argparse.ArgumentParser()
    add_server_options(parser)
    text = " ".join(parser.format_help().split())
    assert TOKEN_ENV in text and "--token-file PATH" in text
    assert "visible to every user in ps: prefer" in text
