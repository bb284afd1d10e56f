"""What the CLI tests share: git run as the user, and the command run in this process with
what it said."""

from __future__ import annotations

import io
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from desktop.cli import main

USER = ("-c", "user.name=U", "-c", "user.email=u@example.com")


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *USER, *args], cwd=repo, capture_output=True, text=True,
                          check=True).stdout.strip()


@dataclass
class Said:
    code: int
    out: str
    err: str


Cli = Callable[..., Said]


def make_cli(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
             extra: list[str]) -> Cli:
    """``agent-canvas ARGS EXTRA`` in this process, with nothing on stdin."""
    def run(*args: str) -> Said:
        monkeypatch.setattr(sys, "stdin", io.StringIO(""))
        code = main([*args, *extra])
        out = capsys.readouterr()
        return Said(code, out.out, out.err)
    return run
