"""What the CLI tests share: git run as the user, the command run in this process with
what it said, and files this process may not read."""

from __future__ import annotations

import contextlib
import errno
import io
import os
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from own_work import USER, git

from desktop.cli import main

__all__ = ["USER", "Cli", "Said", "git", "make_cli", "unreadable"]


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


@contextlib.contextmanager
def unreadable(*paths: Path) -> Iterator[None]:
    """``paths`` made unreadable (mode 000) for this process, as they are for a user who
    does not own them. Run as root the modes alone refuse nothing, so then the calls that
    open or list one of them, or reach anything under one, fail as the kernel fails them."""
    modes = {path: path.stat().st_mode for path in paths}
    for path in paths:
        path.chmod(0)
    with pytest.MonkeyPatch.context() as patch:
        if os.geteuid() == 0:
            def denied(real: Callable[..., Any], name: str) -> Callable[..., Any]:
                def call(target: Any, *args: Any, **kwargs: Any) -> Any:
                    if isinstance(target, (str, os.PathLike)):
                        here = Path(os.fsdecode(target)).absolute()
                        for path in paths:
                            # its own entry may be looked at; its content not, nor below it
                            if path in here.parents or (
                                    here == path and name not in ("stat", "lstat")):
                                raise PermissionError(errno.EACCES, "Permission denied",
                                                      os.fsdecode(target))
                    return real(target, *args, **kwargs)
                return call
            for name in ("open", "lstat", "stat", "scandir", "listdir"):
                patch.setattr(os, name, denied(getattr(os, name), name))
        try:
            yield
        finally:
            for path, mode in modes.items():
                path.chmod(mode)
