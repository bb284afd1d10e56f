"""kill -9 the engine at a random git command of a run whose nodes work in their own
worktrees (before it, in the middle of it, or just after it), then resume: every
worktree is consistent, the run ends as an uninterrupted one does, the user's
repository is untouched.

Which git command is the Nth depends on the run's timing (two nodes work at once), so
where each seed lands varies from one run to the next, as with the engine's other crash
tests; the checks hold wherever it lands. A git stand-in on the engine's PATH counts the
commands and does the killing; "in the middle" waits until git holds its index lock (it
is writing), or has ended.
"""

from __future__ import annotations

import asyncio
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

import orjson
import pytest
from engine_helpers import events_of, unconsumed_items, workflow
from gitkit import fingerprint, git, no_git_config, tree_files, user_repo

from desktop.graph.io import dumps_workflow
from desktop.runtime import worktree_pool
from desktop.runtime.engine import Engine
from desktop.runtime.recovery import resume_engine
from desktop.runtime.worktree_cleanup import remove_run_worktrees
from desktop.runtime.worktree_repair import merging_mark
from desktop.runtime.worktrees import adding_mark
from desktop.store.runs import ENGINE_LOCK, engine_alive
from desktop.views.runs import open_run

__all__ = ["no_git_config"]
ROOT = Path(__file__).resolve().parents[2]
STAND_IN = """#!/bin/sh
# Counts the engine's git commands that write (those named in KILL_WHAT); at the
# KILL_AT-th, kill -9 the engine (the parent): before it, in the middle of it, after it.
what=""
skip=0
for arg in "$@"; do
    if [ "$skip" = 1 ]; then skip=0; continue; fi
    case "$arg" in -c) skip=1 ;; -*) ;; *) what=$arg; break ;; esac
done
case " $KILL_WHAT " in *" $what "*) ;; *) exec "$REAL_GIT" "$@" ;; esac
exec 9>>"$KILL_COUNTER.lock"
flock 9
n=$(( $(cat "$KILL_COUNTER" 2>/dev/null || echo 0) + 1 ))
echo "$n" > "$KILL_COUNTER"
flock -u 9
exec 9>&-
if [ "$n" -ne "$KILL_AT" ]; then
    exec "$REAL_GIT" "$@"
fi
echo "$KILL_HOW: git $*" > "$KILL_COUNTER.killed"
case "$KILL_HOW" in
before)
    kill -9 "$PPID"; exit 137 ;;
during)
    dir=$("$REAL_GIT" rev-parse --path-format=absolute --git-dir 2>/dev/null)
    "$REAL_GIT" "$@" &
    child=$!
    while kill -0 "$child" 2>/dev/null && [ ! -e "$dir/index.lock" ]; do :; done
    kill -9 "$PPID" "$child" 2>/dev/null; exit 137 ;;
after)
    "$REAL_GIT" "$@"; kill -9 "$PPID"; exit 137 ;;
esac
"""
WRITING = "worktree add merge update-ref commit-tree write-tree reset clean checkout commit"


def parallel(repo: Path):
    """lead hands to left and right (in parallel, each its own file and a shared one's
    other end), both report back, lead merges both."""
    ws = {"workspace": str(repo)}
    return workflow({
        "lead": {**ws, "script": [{"say": "lead"}], "stallThreshold": 10},
        "left": {**ws, "script": [{"edit": {"path": "left.txt", "content": "left\n"}},
                                  {"edit": {"path": "src/shared.txt", "content": "l\n"}}]},
        "right": {**ws, "script": [{"edit": {"path": "right.txt", "content": "right\n"}},
                                   {"edit": {"path": "src/other.txt", "content": "r\n"}}]},
    }, [{"from": "lead", "to": "left"}, {"from": "lead", "to": "right"},
        {"from": "left", "to": "lead", "type": "report"},
        {"from": "right", "to": "lead", "type": "report"}])


def engine_run(tmp_path: Path, flow: Path, data: Path, kill_at: int, how: str,
               what: str = WRITING) -> Path:
    """Run the flow in an engine process whose git is the stand-in; its run folder."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    stand_in = bin_dir / "git"
    stand_in.write_text(STAND_IN)
    stand_in.chmod(0o755)
    counter = tmp_path / f"count-{kill_at}-{how}"
    env = dict(os.environ, PYTHONPATH=str(ROOT), PATH=f"{bin_dir}:{os.environ['PATH']}",
               REAL_GIT=shutil.which("git") or "git", KILL_COUNTER=str(counter),
               KILL_AT=str(kill_at), KILL_HOW=how, KILL_WHAT=what)
    env.pop("AGENT_CANVAS_DATA_DIR", None)
    with subprocess.Popen(
            [sys.executable, "-m", "desktop", "run", str(flow), "--data-dir", str(data),
             "--json"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            stdin=subprocess.DEVNULL, env=env, cwd=ROOT) as proc:
        proc.wait(120)
    [run_dir] = [p for p in (data / "runs").iterdir() if p.is_dir()]
    return run_dir


@pytest.fixture(scope="module")
def git_commands(tmp_path_factory: pytest.TempPathFactory) -> int:
    """How many writing git commands the engine runs in the whole run, uninterrupted."""
    tmp = tmp_path_factory.mktemp("calibrate")
    repo = user_repo(tmp / "project")
    flow = tmp / "flow.yaml"
    flow.write_text(dumps_workflow(parallel(repo)))
    engine_run(tmp, flow, tmp / "data", 0, "none")
    return int((tmp / "count-0-none").read_text())


def holders(path: Path) -> list[str]:
    """The command lines of the processes that have ``path`` open."""
    found = []
    for proc in Path("/proc").iterdir():
        try:
            if any(os.readlink(fd) == str(path) for fd in (proc / "fd").iterdir()):
                found.append((proc / "cmdline").read_bytes().replace(b"\0", b" ").decode())
        except OSError:
            continue
    return found


async def lock_released(run_dir: Path) -> None:
    """Wait until no process holds the run's engine lock (a descendant of the dead engine
    may hold it for a moment); fail naming the holders if one keeps it."""
    deadline = asyncio.get_running_loop().time() + 10
    while engine_alive(run_dir) and asyncio.get_running_loop().time() < deadline:
        await asyncio.sleep(0.05)
    assert not engine_alive(run_dir), holders(run_dir / ENGINE_LOCK)


def consistent(run_dir: Path, engine: Engine) -> None:
    """Every node's worktree: on its branch, nothing uncommitted, no merge open, no lock
    or mark of ours left."""
    for node in engine.state.nodes.values():
        assert node.git is not None, node.key
        worktree = run_dir / node.git.worktree
        gitdir = Path(git(worktree, "rev-parse", "--path-format=absolute", "--git-dir"))
        assert git(worktree, "branch", "--show-current") == node.git.branch
        assert git(worktree, "status", "--porcelain") == "", node.key
        for left in ("MERGE_HEAD", "index.lock", "HEAD.lock", "locked"):
            assert not (gitdir / left).exists(), (node.key, left)
        assert not adding_mark(worktree).exists()
        assert not merging_mark(worktree).exists()


async def crash_and_resume(tmp_path: Path, kill_at: int, how: str, what: str = WRITING
                           ) -> str:
    """Kill the engine at the ``kill_at``-th of the git commands ``what``, resume, check
    the run ends well and every worktree is consistent; the command it died at."""
    repo = user_repo(tmp_path / "project")
    before = fingerprint(repo)
    flow = tmp_path / "flow.yaml"
    flow.write_text(dumps_workflow(parallel(repo)))
    run_dir = engine_run(tmp_path, flow, tmp_path / "data", kill_at, how, what)
    marker = tmp_path / f"count-{kill_at}-{how}.killed"
    if not marker.exists():
        # This run made fewer such commands than the calibrating one (how many depends on
        # timing: worktrees are prepared in the background): kill it at its last one.
        made = int((tmp_path / f"count-{kill_at}-{how}").read_text())
        assert 0 < made < kill_at, (made, kill_at)
        again = tmp_path / "again"
        again.mkdir()
        return await crash_and_resume(again, made, how, what)
    killed = marker.read_text()  # it did die there
    assert open_run(run_dir).status != "completed", killed
    await lock_released(run_dir)
    engine = resume_engine(run_dir)
    try:
        status = await asyncio.wait_for(engine.run(), 60)
    finally:
        engine.close()
    assert status == "completed", killed
    consistent(run_dir, engine)
    assert unconsumed_items(events_of(run_dir)) == set()
    branches = {node.key: node.git.branch for node in engine.state.nodes.values()}
    lead = tree_files(repo, branches["lead"])
    assert lead["left.txt"] == b"left\n" and lead["right.txt"] == b"right\n"
    assert lead["src/shared.txt"] == b"l\n" and lead["src/other.txt"] == b"r\n"
    assert lead["untracked.txt"] == b"untracked\n"  # the base: the user's work in progress
    assert "right.txt" not in tree_files(repo, branches["left"])
    fsck = subprocess.run(["git", "fsck", "--no-dangling", "--no-progress"], cwd=repo,
                          capture_output=True, text=True)
    assert fsck.returncode == 0, fsck.stdout + fsck.stderr
    assert fingerprint(repo) == before
    deleted(repo, run_dir, engine)
    return killed


def deleted(repo: Path, run_dir: Path, engine: Engine) -> None:
    """Deleting the run leaves no worktree in use and no ref of it: what is not pooled
    (cleaned, detached, outside every run) is gone, and git knows of nothing broken."""
    remove_run_worktrees(run_dir, engine.run_id, engine.state.to_json_dict())
    pool = worktree_pool.pool_dir(run_dir)
    listed = git(repo, "worktree", "list", "--porcelain").split("\n\n")
    for record in listed[1:]:
        assert Path(record.splitlines()[0].split(" ", 1)[1]).is_relative_to(pool), record
        assert "detached" in record.splitlines() and "prunable" not in record, record
    assert git(repo, "for-each-ref", "refs/heads/canvas/", "refs/canvas/") == ""


@pytest.mark.parametrize("seed", range(1, int(os.environ.get("CRASH_SEEDS", "8")) + 1))
async def test_kill_9_at_a_random_git_command_then_resume_leaves_every_worktree_consistent(
        tmp_path: Path, no_git_config, git_commands: int, seed: int) -> None:
    pick = random.Random(seed)
    await crash_and_resume(tmp_path, pick.randint(1, git_commands),
                           pick.choice(["before", "during", "after"]))


@pytest.mark.parametrize("how", ["before", "during", "after"])
@pytest.mark.parametrize("nth", [1, 2])
async def test_kill_9_in_a_merge_then_resume_undoes_or_keeps_it_and_ends_alike(
        tmp_path: Path, no_git_config, nth: int, how: str) -> None:
    killed = await crash_and_resume(tmp_path, nth, how, what="merge")
    assert " merge " in killed  # the lead's first or second merge (left's, right's branch)


@pytest.mark.parametrize(("nth", "how"), [(2, "before"), (2, "during"), (2, "after"),
                                         (3, "during")])
async def test_kill_9_while_the_next_nodes_worktrees_are_prepared_then_resume_makes_them(
        tmp_path: Path, no_git_config, nth: int, how: str) -> None:
    """The first checkout is the lead's own worktree; the next ones are the worktrees of
    left and right, written in the background while the lead works."""
    killed = await crash_and_resume(tmp_path, nth, how, what="reset")
    assert " reset --quiet --hard" in killed


async def test_kill_9_while_a_merge_waits_for_a_person_then_resume_asks_again(
        tmp_path: Path, no_git_config) -> None:
    """The conflicted worktree a dead engine left (MERGE_HEAD, markers, the mark) is undone
    on resume; the stale approval is denied, the merge made again and asked about again."""
    repo = user_repo(tmp_path / "project")
    before = fingerprint(repo)
    ws = {"workspace": str(repo)}
    doc = workflow({
        "lead": {**ws, "script": [{"say": "lead"}], "stallThreshold": 10},
        "left": {**ws, "script": [{"edit": {"path": "committed.txt", "content": "left\n"}}]},
        "right": {**ws, "script": [{"edit": {"path": "committed.txt", "content": "right\n"}}]},
    }, [{"from": "lead", "to": "left"}, {"from": "lead", "to": "right"},
        {"from": "left", "to": "lead", "type": "report"},
        {"from": "right", "to": "lead", "type": "report"}])
    flow = tmp_path / "flow.yaml"
    flow.write_text(dumps_workflow(doc))
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("AGENT_CANVAS_DATA_DIR", None)
    with subprocess.Popen([sys.executable, "-m", "desktop", "run", str(flow), "--data-dir",
                           str(tmp_path / "data"), "--json"], stdout=subprocess.PIPE,
                          stdin=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env,
                          cwd=ROOT) as proc:
        assert proc.stdout is not None
        for line in proc.stdout:
            event = orjson.loads(line)
            if event["type"] == "approval.requested" and event.get("kind") == "merge":
                break
        proc.kill()
        proc.wait(10)
    run_dir = tmp_path / "data" / "runs" / event["runId"]
    lead = run_dir / "worktrees" / "lead"
    gitdir = Path(git(lead, "rev-parse", "--path-format=absolute", "--git-dir"))
    assert (gitdir / "MERGE_HEAD").exists() and merging_mark(lead).exists()  # left open
    await lock_released(run_dir)
    engine = resume_engine(run_dir)
    loop = asyncio.get_running_loop()
    asked: list[dict] = []

    def decide(pending) -> None:
        asked.append(pending.merge)
        loop.call_soon(lambda: engine.broker.resolve(
            pending.approval_id, "approved", merge={"files": {"committed.txt": "theirs"}}))

    engine.broker.subscribe(decide)
    try:
        assert await asyncio.wait_for(engine.run(), 60) == "completed"
    finally:
        engine.close()
    resolved = [e for e in events_of(run_dir) if e["type"] == "approval.resolved"]
    assert resolved[0]["approvalId"] == event["approvalId"]
    assert resolved[0]["resolution"]["reason"] == "engine restarted"
    [again] = asked
    assert again["source"] == event["merge"]["source"] and again["files"] == \
        event["merge"]["files"]
    consistent(run_dir, engine)
    sender = again["source"].rsplit("/", 1)[1]
    assert tree_files(repo, again["target"])["committed.txt"] == f"{sender}\n".encode()
    assert fingerprint(repo) == before
