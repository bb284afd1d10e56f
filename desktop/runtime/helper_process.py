"""Starting the engine's helper processes (git, version and sandbox probes) out of the
terminal's reach.

Ctrl-C in a terminal sends SIGINT to its whole foreground process group. The CLI catches
it and stops the run in order (desktop/cli/run.py); a git command of the run that got it
too would die half-way through a commit, and the node's turn would fail with
"git exit -2" instead. So every helper starts in a session of its own (agents are
started in their own group already, desktop/providers/process.py).

A session of its own is not quite enough: the child calls ``setsid()`` only after the
fork, and a SIGINT sent to the group in between is already pending on it. The spawning
thread therefore blocks SIGINT while it forks; the child inherits that mask, and the
pending signal is never delivered. The helper keeps SIGINT blocked, which is harmless:
nothing but the run stops it, and the run kills (desktop/runtime/git_run.py Stopper).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

OWN_SESSION = os.name == "posix"
"""Whether helpers get a session of their own (``start_new_session``): POSIX only."""
_HELD = {signal.SIGINT}


@contextlib.contextmanager
def _sigint_held() -> Iterator[None]:
    """SIGINT blocked in this thread (and so in a child forked meanwhile), then as before;
    a SIGINT meant for this process meanwhile goes to another thread, or waits."""
    if not OWN_SESSION:
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, _HELD)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def start(argv: Sequence[str | Path], **kwargs: Any) -> subprocess.Popen[Any]:
    """``subprocess.Popen(argv, **kwargs)`` in a session of its own, deaf to the SIGINT a
    terminal sends its process group."""
    with _sigint_held():
        return subprocess.Popen(argv, start_new_session=OWN_SESSION, **kwargs)


def run(argv: Sequence[str | Path], *, input: bytes | str | None = None,
        timeout: float | None = None, capture_output: bool = False,
        **kwargs: Any) -> subprocess.CompletedProcess[Any]:
    """``subprocess.run`` (never ``check``) for a helper started by :func:`start`: the
    process is killed when waiting for it fails (a timeout, an interrupt), as there."""
    if input is not None:
        kwargs["stdin"] = subprocess.PIPE
    if capture_output:
        kwargs["stdout"] = kwargs["stderr"] = subprocess.PIPE
    with start(argv, **kwargs) as proc:
        try:
            out, err = proc.communicate(input, timeout=timeout)
        except BaseException:
            proc.kill()  # the `with` then waits for it: no zombie left behind
            raise
    return subprocess.CompletedProcess(list(argv), proc.returncode, out, err)
