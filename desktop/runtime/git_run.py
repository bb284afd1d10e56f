"""Running git for node worktrees: a clean environment, a fixed identity, no hooks.

Every command keeps the user's own git config (line endings, filters, ignore files)
except what would act on their behalf or stall a run:

- no hooks (``core.hooksPath``): a pre-commit hook of theirs must not run, or fail,
  on an agent's commit;
- no signing, no automatic gc or maintenance, no file-system monitor daemon;
- author and committer are "Agent Canvas", given through the environment, so
  commits work on a machine with no git identity configured;
- none of the ``GIT_*`` variables that would point git at another repository or
  index (a run started from inside a git hook would inherit them);
- in a worktree folder of a run's own (``here_only``), git takes that folder's own
  ``.git`` or nothing: it never looks for a repository above it. A node's worktree
  whose ``.git`` file is gone is then no repository at all, rather than the one the
  data folder lies inside (a home folder kept in git), whose files a ``status`` would
  list and a ``reset --hard`` would wipe.

Each command starts out of the terminal's reach (desktop/runtime/helper_process.py): a
Ctrl-C meant for the CLI, which stops the run in order, must not kill a git half-way
through a commit. The run stops its git commands itself (:class:`Stopper`); the one
exception is a ``git push`` the user asked for, which may need the terminal for an ssh
passphrase.

These are blocking calls: callers run them on a worker thread (``asyncio.to_thread``),
never on the event loop, as desktop/runtime/workspace_diff.py does.
"""

from __future__ import annotations

import os
import subprocess
import threading
from dataclasses import dataclass
from pathlib import Path

from desktop.runtime import helper_process

IDENTITY = {"GIT_AUTHOR_NAME": "Agent Canvas", "GIT_AUTHOR_EMAIL": "agent-canvas@localhost",
            "GIT_COMMITTER_NAME": "Agent Canvas",
            "GIT_COMMITTER_EMAIL": "agent-canvas@localhost"}
SAFE_CONFIG = ("-c", f"core.hooksPath={os.devnull}", "-c", "commit.gpgSign=false",
               "-c", "gc.auto=0", "-c", "maintenance.auto=false", "-c", "core.fsmonitor=false")
_REPO_VARS = ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY",
              "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_COMMON_DIR", "GIT_NAMESPACE",
              "GIT_PREFIX", "GIT_QUARANTINE_PATH", "GIT_REFLOG_ACTION")


class GitError(RuntimeError):
    """A git command failed; the message names the command and git's own reason."""


@dataclass(frozen=True)
class GitResult:
    """What one git command did: its exit code and output."""

    code: int
    out: bytes
    err: bytes

    @property
    def ok(self) -> bool:
        return self.code == 0

    @property
    def text(self) -> str:
        """stdout as text, without the trailing newline."""
        return self.out.decode("utf-8", "replace").strip()

    def reason(self) -> str:
        """git's last ``fatal:`` or ``error:`` line on stderr, else its last line there
        (else on stdout), or the exit code; never one of git's ``hint:`` lines, nor the
        advice git prints after the error (``remove the file manually to continue.``)."""
        for stream in (self.err, self.out):
            lines = [line for line in stream.decode("utf-8", "replace").strip().splitlines()
                     if not line.startswith("hint:")]
            errors = [line for line in lines if line.startswith(("fatal:", "error:"))]
            if lines:
                return (errors or lines)[-1].strip()
        return f"git exit {self.code}"


def git_env(index: str | None = None, only_in: Path | None = None) -> dict[str, str]:
    """The environment of our git commands (``index``: a private GIT_INDEX_FILE;
    ``only_in``: the folder git must take as the repository's top, or fail)."""
    env = {k: v for k, v in os.environ.items() if k not in _REPO_VARS}
    env.update(IDENTITY, GIT_OPTIONAL_LOCKS="0", GIT_TERMINAL_PROMPT="0")
    if index is not None:
        env["GIT_INDEX_FILE"] = index
    if only_in is not None:
        env.update(_only(only_in))
    return env


def _only(folder: Path) -> dict[str, str]:
    """What keeps git to ``folder``'s own ``.git``: a ceiling at its parent, so git does
    not walk up from it (resolved, as git compares it with the real working folder)."""
    real = folder.resolve()
    if os.pathsep in str(real.parent):
        # the ceiling is a list split at os.pathsep, which would cut this path apart
        # and leave no ceiling: name the repository outright instead
        return {"GIT_DIR": str(real / ".git"), "GIT_WORK_TREE": str(real)}
    return {"GIT_CEILING_DIRECTORIES": str(real.parent)}


class Stopped(GitError):
    """Work given a :class:`Stopper` was stopped: the git command running was killed."""


class Stopper:
    """Lets another thread stop the git commands run with it: :meth:`stop` kills the one
    running and refuses the next, so work on a worker thread ends at once."""

    def __init__(self) -> None:
        self._guard = threading.Lock()
        self._running: subprocess.Popen[bytes] | None = None
        self.stopped = False

    def stop(self) -> None:
        """Kill the command running now, and every later one before it starts."""
        with self._guard:
            self.stopped = True
            if self._running is not None:
                self._running.kill()

    def run(self, argv: list[str], cwd: Path, env: dict[str, str]) -> GitResult:
        """Run ``argv`` to its end, or until :meth:`stop`; Stopped when stopped."""
        with self._guard:
            if self.stopped:
                raise Stopped("stopped before git started")
            proc = helper_process.start(argv, cwd=str(cwd), env=env,
                                        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE)
            self._running = proc
        try:
            out, err = proc.communicate()  # returns when git ends, or is killed
        finally:
            with self._guard:
                self._running = None
        if self.stopped:
            raise Stopped("stopped: the git command at work was killed")
        return GitResult(proc.returncode, out, err)


def git(cwd: Path, *args: str, index: str | None = None,
        stdin: bytes | None = None, stop: Stopper | None = None,
        terminal: bool = False, timeout: float | None = None,
        here_only: bool = False) -> GitResult:
    """Run ``git args`` in ``cwd`` (``stdin``: its input); never raises for a failing
    command (only Stopped, when ``stop`` was stopped). ``terminal``: keep the user's
    terminal (a push that may ask for an ssh passphrase), else a session of its own.
    ``timeout``: seconds after which git is killed and the result says it timed out.
    ``here_only``: ``cwd`` is a worktree of a run's own; git fails there, rather than
    take a repository ``cwd`` lies inside, when it is no repository itself."""
    argv = ["git", *SAFE_CONFIG, *args]
    env = git_env(index, cwd if here_only else None)
    try:
        if stop is not None:
            return stop.run(argv, cwd, env)
        run = subprocess.run if terminal else helper_process.run
        proc = run(argv, cwd=str(cwd), env=env,
                   input=stdin if stdin is not None else b"", capture_output=True,
                   timeout=timeout)
    except subprocess.TimeoutExpired:  # subprocess.run and helper_process kill it first
        return GitResult(124, b"", f"no answer within {timeout:g} s; stopped".encode())
    except OSError as exc:
        return GitResult(127, b"", str(exc).encode())
    except ValueError:  # a NUL in an argument (a name from a request): no process can take it
        return GitResult(128, b"", b"an argument has a NUL character, which git cannot be given")
    return GitResult(proc.returncode, proc.stdout, proc.stderr)


def must(cwd: Path, *args: str, index: str | None = None, stdin: bytes | None = None,
         stop: Stopper | None = None, here_only: bool = False) -> str:
    """Run ``git args`` in ``cwd`` (``here_only``: as :func:`git` says); its stdout as
    text, or GitError saying why not."""
    result = git(cwd, *args, index=index, stdin=stdin, stop=stop, here_only=here_only)
    if not result.ok:
        raise GitError(f"git {subcommand(args)} in {cwd} failed: {result.reason()}")
    return result.text


def subcommand(args: tuple[str, ...] | list[str]) -> str:
    """The git subcommand of ``args`` (``add`` of ``-c k=v add -A``), for messages: the
    ``-c`` options in front of it say nothing about what failed."""
    rest = list(args)
    while len(rest) >= 2 and rest[0] == "-c":
        rest = rest[2:]
    return rest[0] if rest else "(none)"
