"""Running the built app the way a user's machine would: no Python, no source tree.

:class:`CleanRoom` starts a command inside bubblewrap with the repository (and its
venv) hidden, the user's home and ``/opt`` hidden, every ``python*`` executable of
the system masked, ``PATH=/usr/bin:/bin``, and HOME, the data folder and the app
in temporary folders, the only writable places. The network is shared so the
test can reach a served ``/api/health`` and an X server.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
BIN_DIRS = ("/usr/local/bin", "/usr/local/sbin", "/usr/bin", "/usr/sbin", "/bin", "/sbin")
HIDDEN = ("/root", "/home", "/opt", "/mnt", "/srv", "/work")
CLEAN_PATH = "/usr/bin:/bin"


def python_executables() -> list[Path]:
    """Every ``python*`` program in the system's bin folders (real paths, once each)."""
    found: dict[Path, None] = {}
    for folder in BIN_DIRS:
        base = Path(folder)
        if not base.is_dir():
            continue
        for entry in base.glob("python*"):
            real = entry.resolve()
            if real.is_file() and os.access(real, os.X_OK):
                found[real] = None
    return list(found)


class CleanRoom:
    """Runs commands of the built app with no Python and no source tree in sight."""

    def __init__(self, scratch: Path, app: Path) -> None:
        self.scratch = scratch
        self.app = app
        """The app's executable; its folder is visible, read-only."""
        self.home = scratch / "home"
        self.data = scratch / "data"
        for folder in (self.home, self.data):
            folder.mkdir(parents=True, exist_ok=True)
        self.bwrap = shutil.which("bwrap")

    def env(self, extra: Mapping[str, str] | None = None) -> dict[str, str]:
        """A user's minimal environment: no venv, no PYTHONPATH, no Python on PATH."""
        env = {"PATH": CLEAN_PATH, "HOME": str(self.home), "LANG": "C.UTF-8",
               "AGENT_CANVAS_DATA_DIR": str(self.data), "TMPDIR": str(self.scratch),
               "QT_QPA_PLATFORM": "offscreen"}
        env.update(extra or {})
        return env

    def argv(self, command: Sequence[str], cwd: Path | None = None,
             binds: Sequence[Path] = ()) -> list[str]:
        """``command`` wrapped in the bubblewrap sandbox."""
        if self.bwrap is None:
            raise AssertionError("bwrap is missing: scripts/ensure-dist-tools test installs it")
        # a PID namespace: every process the app starts (the service, agents) ends with it
        args = [self.bwrap, "--die-with-parent", "--unshare-pid", "--ro-bind", "/", "/",
                "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"]
        for folder in (*HIDDEN, str(REPO)):
            if Path(folder).is_dir():
                args += ["--tmpfs", folder]
        for program in python_executables():
            args += ["--ro-bind", "/dev/null", str(program)]
        if Path("/tmp/.X11-unix").is_dir():
            args += ["--bind", "/tmp/.X11-unix", "/tmp/.X11-unix"]
        args += ["--ro-bind", str(self.app.parent), str(self.app.parent)]
        for folder in (self.scratch, *binds):
            args += ["--bind", str(folder), str(folder)]
        args += ["--chdir", str(cwd or self.scratch), "--"]
        return [*args, *command]

    def app_run(self, *args: str, **kwargs) -> subprocess.CompletedProcess[str]:
        """Run ``agent-canvas ARGS...`` (see :meth:`run`)."""
        return self.run([str(self.app), *args], **kwargs)

    def run(self, command: Sequence[str], *, timeout: float = 120, cwd: Path | None = None,
            env: Mapping[str, str] | None = None, stdin: str | None = None,
            binds: Sequence[Path] = ()) -> subprocess.CompletedProcess[str]:
        """Run to the end; stdout and stderr captured as text."""
        return subprocess.run(self.argv(command, cwd, binds), env=self.env(env), text=True,
                              input=stdin if stdin is not None else "", capture_output=True,
                              timeout=timeout, check=False)

    def start(self, command: Sequence[str], *, log: Path, cwd: Path | None = None,
              env: Mapping[str, str] | None = None,
              binds: Sequence[Path] = ()) -> subprocess.Popen[bytes]:
        """Start in the background, output to ``log``; the caller stops it."""
        with open(log, "wb") as out:
            return subprocess.Popen(self.argv(command, cwd, binds), env=self.env(env),
                                    stdin=subprocess.DEVNULL, stdout=out,
                                    stderr=subprocess.STDOUT, start_new_session=True)


def descendants(pid: int) -> list[int]:
    """Every process below ``pid`` (from /proc), nearest first."""
    found, queue = [], [pid]
    while queue:
        current = queue.pop(0)
        for task in Path(f"/proc/{current}/task").glob("*"):
            try:
                children = [int(c) for c in (task / "children").read_text().split()]
            except OSError:
                continue
            found += children
            queue += children
    return found


def stop(proc: subprocess.Popen, program: Path | None = None, timeout: float = 15) -> int:
    """End a process started by :meth:`CleanRoom.start`; its exit code.

    With ``program``, SIGTERM goes to that program inside the sandbox only (its clean
    exit is what is tested; bubblewrap passes its exit code on); without, or when it
    does not end within ``timeout``, the whole sandbox is killed.
    """
    import signal

    if proc.poll() is None and program is not None:
        for pid in descendants(proc.pid):
            with contextlib.suppress(OSError):
                if Path(f"/proc/{pid}/exe").resolve() == program.resolve():
                    os.kill(pid, signal.SIGTERM)
                    break
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout)
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    return proc.returncode
