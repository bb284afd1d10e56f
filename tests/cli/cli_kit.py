"""What the CLI tests share: git run as the user, and the command run in this process with
what it said."""

from __future__ import annotations

import io
import sys
from collections.abc import Callable
from dataclasses import dataclass

import pytest
from own_work import USER, git

from desktop.cli import main

__all__ = ["USER", "Cli", "Said", "git", "make_cli"]


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
