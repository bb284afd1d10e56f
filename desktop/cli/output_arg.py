"""The ``-o FILE`` of commands that write one file: refused, with what to give instead,
when it names a folder, and a write that fails said in one line, not a traceback."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path

EXIT_BAD_INPUT = 2


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


def write_output(command: str, output: str | os.PathLike[str], example: str,
                 write: Callable[[], None]) -> int:
    """Call ``write`` (which writes ``output``) unless ``output`` is a folder; 0 when it
    wrote, else 2 after one line on stderr saying why and what to do."""
    problem = folder_given(command, output, example)
    if problem is None:
        try:
            write()
            return 0
        except OSError as exc:  # a missing parent folder, no permission, a full disk
            problem = f"{command}: cannot write {output}: {exc.strerror or exc}"
    print(problem, file=sys.stderr)
    return EXIT_BAD_INPUT
