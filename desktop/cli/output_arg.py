"""The ``-o FILE`` of commands that write one file: refused, with what to give instead,
when it names a folder, a read-only file or nothing, and a write that fails said in one
line, not a traceback."""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from collections.abc import Callable
from pathlib import Path

from desktop.disk.atomic import read_only

EXIT_BAD_INPUT = 2


def given_path(value: str) -> str:
    """The argparse type of an option naming where to write: an empty one (an unset
    shell variable, ``--out "$DIR"``) would write into the current folder, or over the
    input, so it is refused."""
    if not value.strip():
        raise argparse.ArgumentTypeError("is empty; give a file or folder name")
    return value


def folder_given(command: str, output: str | os.PathLike[str] | None, example: str) -> str | None:
    """The message when ``output`` (the -o of ``command``) is a folder, naming a file like
    ``example`` to give instead; None when it is not given or not a folder."""
    if output is None:
        return None
    try:
        if not Path(output).is_dir():
            return None
    except OSError:  # in a folder it may not look into: the write says so, in one line
        return None
    return f"{command}: -o {output} is a folder; give a file name like {example}"


def unwritable(command: str, output: str | os.PathLike[str], example: str) -> str | None:
    """Why ``command`` may not write ``output`` (a folder, or a file marked read-only),
    with what to do instead; None when it may try."""
    problem = folder_given(command, output, example)
    if problem is None and read_only(output):
        # the write replaces the file by a rename, which the file's own mode does not stop
        quoted = shlex.quote(os.fspath(output))
        problem = (f"{command}: {output} is read-only; chmod u+w {quoted} or write "
                   "elsewhere with -o")
    return problem


def write_output(command: str, output: str | os.PathLike[str], example: str,
                 write: Callable[[], None]) -> int:
    """Call ``write`` (which writes ``output``) unless ``output`` is a folder or a
    read-only file; 0 when it wrote, else 2 after one line on stderr saying why and what
    to do."""
    problem = unwritable(command, output, example)
    if problem is None:
        try:
            write()
            return 0
        except OSError as exc:  # a missing parent folder, no permission, a full disk
            problem = f"{command}: cannot write {output}: {exc.strerror or exc}"
    print(problem, file=sys.stderr)
    return EXIT_BAD_INPUT
