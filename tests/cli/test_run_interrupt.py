"""Ctrl-C during `agent-canvas run` on a git workspace, as a terminal sends it: SIGINT to
the whole foreground process group, git commands of the run included.

The run must stop as the README says (``run.stopped: interrupted by Ctrl-C``, exit 4),
whatever git was doing: no failed turn, no traceback, and the repository's worktrees
left consistent (no lock left behind by a killed git, none missing).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import orjson
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
PIR = ROOT / "resources" / "examples" / "plan-implement-review.flow.yaml"
USER = ("-c", "user.name=The User", "-c", "user.email=user@example.com")


def _git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", *USER, *args], cwd=repo, capture_output=True, check=True,
                          env=dict(os.environ, GIT_OPTIONAL_LOCKS="0"))
    return done.stdout.decode("utf-8", "replace")


def _repo(path: Path) -> Path:
    """A user's repository with a commit and some uncommitted work (what a run captures)."""
    path.mkdir()
    _git(path, "init", "-q", "-b", "main")
    (path / "README.md").write_text("hello\n")
    _git(path, "add", "README.md")
    _git(path, "commit", "-q", "-m", "first")
    (path / "README.md").write_text("hello\nchanged\n")
    (path / "notes.txt").write_text("untracked\n")
    return path


def _flow(tmp_path: Path, repo: Path) -> Path:
    """The plan-implement-review example, every node working in ``repo``."""
    doc = yaml.safe_load(PIR.read_text())
    for config in doc["nodeConfigs"].values():
        config["workspace"] = str(repo)
    path = tmp_path / "repo-pir.flow.yaml"
    path.write_text(yaml.safe_dump(doc))
    return path


SHIM = """\
import os, signal, sys, time
def interrupted(signum, frame):
    with open({marker!r}, "a") as out:
        out.write(" ".join(sys.argv[1:]) + "\\n")
    sys.exit(130)  # as a git the signal reached: the command fails
signal.signal(signal.SIGINT, interrupted)
try:
    fd = os.open({fifo!r}, os.O_WRONLY | os.O_NONBLOCK)
except OSError:  # the test is not listening: run git at once
    pass
else:
    os.write(fd, b"running\\n")
    os.close(fd)
    time.sleep(2)  # the test sends its signal now, while this git is at work
os.execv({real!r}, ["git", *sys.argv[1:]])
"""


def _git_shim(folder: Path, marker: Path, fifo: Path) -> Path:
    """A folder with a ``git`` in front of the real one. While the test listens on
    ``fifo``, the next git says so there and lingers, so a signal sent then lands while a
    git command of the run is at work; one the signal reaches writes its arguments to
    ``marker`` and fails, as a real git would."""
    real = shutil.which("git")
    assert real is not None
    folder.mkdir()
    os.mkfifo(fifo)
    shim = folder / "git"
    shim.write_text(f"#!{sys.executable}\n"
                    + SHIM.format(marker=str(marker), fifo=str(fifo), real=real))
    shim.chmod(0o755)
    return folder


def _env(tmp_path: Path) -> dict[str, str]:
    shims = _git_shim(tmp_path / "bin", tmp_path / "interrupted-git.txt", tmp_path / "fifo")
    path = f"{shims}{os.pathsep}{os.environ.get('PATH', '')}"
    return dict(os.environ, PYTHONPATH=str(ROOT), AGENT_CANVAS_DATA_DIR=str(tmp_path / "data"),
                PYTHON_KEYRING_BACKEND="keyring.backends.null.Keyring", PATH=path)


def _worktree_problems(repo: Path) -> list[str]:
    """What is wrong with ``repo``'s worktrees: ones git calls prunable (their folder
    gone), lock files a killed git left behind, a worktree git cannot read."""
    problems = []
    listing = _git(repo, "worktree", "list", "--porcelain")
    trees = [line.split(" ", 1)[1] for line in listing.splitlines()
             if line.startswith("worktree ")]
    problems += [line for line in listing.splitlines() if line.startswith("prunable")]
    common = Path(_git(repo, "rev-parse", "--path-format=absolute", "--git-common-dir").strip())
    problems += [str(p) for p in common.rglob("*.lock")]
    for tree in trees:
        status = subprocess.run(["git", "status", "--porcelain"], cwd=tree,
                                capture_output=True, check=False)
        if status.returncode != 0:
            problems.append(f"{tree}: {status.stderr.decode().strip()}")
    return problems


# moments right before the run works in git: the first worktree is made after
# run.started, a turn's changes are committed after its final message, the next
# node's worktree is made after a hand-off
MOMENTS = [("run.started", 1), ("message.assistant.final", 1), ("handoff.sent", 1),
           ("message.assistant.final", 2)]


@pytest.mark.parametrize(("moment", "nth"), MOMENTS)
def test_ctrl_c_to_the_process_group_stops_a_git_run_cleanly(
        tmp_path: Path, moment: str, nth: int) -> None:
    repo = _repo(tmp_path / "repo")
    flow = _flow(tmp_path, repo)
    # a session of its own, so the SIGINT for its group (as a terminal's) spares pytest
    with subprocess.Popen([sys.executable, "-m", "desktop", "run", str(flow), "--json"],
                          stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, env=_env(tmp_path), cwd=tmp_path,
                          start_new_session=True) as proc:
        assert proc.stdout is not None and proc.stderr is not None
        seen = 0
        for line in proc.stdout:
            if orjson.loads(line).get("type") == moment:
                seen += 1
                if seen == nth:
                    break
        assert seen == nth, f"the run ended before {moment} #{nth}"
        # read-write: opening does not wait for a writer, and counts as the reader the
        # next git looks for (Linux)
        fifo = os.open(tmp_path / "fifo", os.O_RDWR)
        try:
            with os.fdopen(os.dup(fifo), "rb", buffering=0) as listening:
                assert listening.readline() == b"running\n"
        finally:
            os.close(fifo)
        os.killpg(proc.pid, signal.SIGINT)
        rest = [orjson.loads(line) for line in proc.stdout]
        stderr = proc.stderr.read().decode()
        code = proc.wait(60)
    kinds = [event.get("type") for event in rest]
    interrupted = tmp_path / "interrupted-git.txt"
    assert not interrupted.exists(), f"git got the Ctrl-C: {interrupted.read_text()}"
    assert "Traceback" not in stderr, stderr
    assert code == 4, (kinds, stderr)
    assert "run.failed" not in kinds and "node.failed" not in kinds
    stopped = [event for event in rest if event.get("type") == "run.stopped"]
    assert len(stopped) == 1, kinds
    assert "Ctrl-C" in str(stopped[0]), stopped
    assert _worktree_problems(repo) == []
