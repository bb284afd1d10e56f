"""Another process holding a run's apply lock, as a `runs apply` in a terminal does."""

from __future__ import annotations

import contextlib
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

_HOLD = """\
import sys
from desktop.runtime.apply_lock import hold_apply_lock
with hold_apply_lock(sys.argv[1]):
    print("held", flush=True)
    sys.stdin.read()  # until the test closes it
"""


@contextlib.contextmanager
def applying_elsewhere(run_dir: Path) -> Iterator[None]:
    """A second process holds ``run_dir``'s apply lock until the block ends."""
    proc = subprocess.Popen([sys.executable, "-c", _HOLD, str(run_dir)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert proc.stdin is not None and proc.stdout is not None
    try:
        assert proc.stdout.readline() == "held\n"
        yield
    finally:
        proc.stdin.close()
        assert proc.wait() == 0
        proc.stdout.close()
