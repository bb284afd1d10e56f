"""Node worktrees on a generated repository of 10,000 files (2,000 quick).

- Making a node's worktree (``git worktree add``), against ``git clone --shared`` of the
  same repository (both check every file out); and the same for the next run once the
  first is deleted, when its worktrees wait in the pool (desktop/runtime/worktree_pool.py)
  and only the files that differ are written. And, with none pooled, another node's
  worktree when its turn comes after it was prepared in the background while the first
  node ran (desktop/runtime/worktree_prefetch.py): its files are already written, so
  the turn only finds it. And the first node's worktree of a repository's next run when
  no run was deleted: taken from the spare a run writes into the pool while it works
  (desktop/runtime/worktree_spare.py). Clones, pooled, spare and prepared worktrees are each
  timed five times and shown at the median: a disk's write-back makes single times vary
  several fold on this machine.
- The run's base commit, made once per run before its first worktree (the user's HEAD
  plus their uncommitted and untracked work, desktop/runtime/git_base.py), against
  ``git stash create``, git's own capture of the same uncommitted work.
- A node's first commit in a worktree prepared in the background: its files were all
  written a moment before, so git would read each again unless the preparation settled
  its index (desktop/runtime/index_settle.py).
- A turn's commit on the node's branch (``git add -A``, the check for a change, ``git
  commit``) for a turn that changed one file, at the median, against what a shared git
  workspace pays per turn instead: a snapshot tree before and after the agent.
- Disk per node: the worktree's own files and its git bookkeeping, against the working
  tree of the repository (the objects are shared, so nothing else grows).
"""

from __future__ import annotations

import asyncio
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from desktop.runtime import workspace_diff, worktree_pool, worktree_spare
from desktop.runtime.git_base import ensure_base
from desktop.runtime.worktree_cleanup import remove_run_worktrees
from desktop.runtime.worktree_prefetch import Job, Prefetch
from desktop.runtime.worktrees import commit_all, open_tree

RUN = "b3nc4000-0000-4000-8000-000000000000"
ROUNDS = 5
"""Clones, and runs taking worktrees from the pool: the median of this many is shown."""
USER = ("-c", "user.name=bench", "-c", "user.email=bench@localhost")


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *USER, *args], cwd=cwd, check=True, capture_output=True)


def _repository(root: Path, files: int) -> Path:
    repo = root / "repo"
    for i in range(files):
        path = repo / f"pkg{i % 100:02d}" / f"mod{i:05d}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f'"""Module {i}."""\n\nVALUE = {i}\n' + "# padding\n" * 20)
    _git(root, "init", "-q", str(repo))
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "generated")
    (repo / "pkg00" / "mod00000.py").write_text("VALUE = 'changed, not committed'\n")
    (repo / "untracked.py").write_text("NEW = True\n")
    return repo


def _du(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())


def _time(action) -> float:
    t0 = time.perf_counter()
    action()
    return time.perf_counter() - t0


def _prepared(repo: Path, run_dir: Path, node: str) -> tuple[float, float, float]:
    """Prepare ``node``'s worktree in the background as a run does while its first node
    works, then take it as the node's turn does, and commit the turn's one changed file:
    (the preparation, the turn's share, its first commit)."""
    async def prepare() -> None:
        prefetch = Prefetch(run_dir, RUN)
        prefetch.start([Job(node, node, repo)])
        await prefetch.wait()
        assert prefetch.prepared == [node]

    background = _time(lambda: asyncio.run(prepare()))
    t0 = time.perf_counter()
    tree = open_tree(repo, run_dir, RUN, node, node)
    at_turn = time.perf_counter() - t0
    assert tree is not None
    (tree.path / "pkg00" / "mod00001.py").write_text(f"VALUE = '{node}'\n")
    return background, at_turn, _time(lambda: commit_all(tree, f"{node}: turn 1\n"))


def _from_spare(repo: Path, root: Path, rnd: int) -> tuple[float, float]:
    """A run writes a spare into the pool (as it does while its first node works), then the
    next run's first node takes it, its base commit made first as the pooled rows' is:
    (writing the spare, the node's share)."""
    pool = root / worktree_pool.POOL
    background = _time(lambda: worktree_spare.make(repo, pool))
    run_id = f"5pa{rnd:05d}{RUN[8:]}"
    run_dir = root / "runs" / run_id
    ensure_base(repo, run_id, exclude=[run_dir])
    return background, _time(lambda: open_tree(repo, run_dir, run_id, "n0", "n0"))


def run(quick: bool) -> list[dict]:
    """Rows: worktree vs clone --shared, a turn's commit vs two snapshots, disk per node."""
    files, turns = (2_000, 9) if quick else (10_000, 21)
    tmp = Path(tempfile.mkdtemp(prefix="bench-worktree-"))
    try:
        repo = _repository(tmp, files)
        run_id, run_dir = RUN, tmp / "runs" / RUN
        make = _time(lambda: open_tree(repo, run_dir, RUN, "n0", "n0"))
        second = _time(lambda: open_tree(repo, run_dir, RUN, "n1", "n1"))
        prepared = [_prepared(repo, run_dir, f"p{rnd}") for rnd in range(ROUNDS)]
        background = statistics.median(p[0] for p in prepared)
        at_turn = statistics.median(p[1] for p in prepared)
        first_commit = statistics.median(p[2] for p in prepared) * 1e3
        spares = [_from_spare(repo, tmp / "kept", rnd) for rnd in range(ROUNDS)]
        spare_made = statistics.median(p[0] for p in spares)
        from_spare = statistics.median(p[1] for p in spares)
        clones = [_time(lambda c=c: _git(tmp, "clone", "-q", "--shared", str(repo),
                                         str(tmp / f"clone{c}"))) for c in range(ROUNDS)]
        clone = statistics.median(clones)
        tree = open_tree(repo, run_dir, RUN, "n0", "n0")
        assert tree is not None
        commits, snapshots = [], []
        for turn in range(turns):
            target = tree.path / f"pkg{turn % 100:02d}" / f"mod{turn:05d}.py"
            target.write_text(f"VALUE = {turn}  # turn {turn}\n")
            commits.append(_time(lambda t=turn: commit_all(tree, f"turn {t}\n")))
            shared = tmp / "clone0" / target.relative_to(tree.path)
            t0 = time.perf_counter()
            workspace_diff._snapshot(tmp / "clone0")
            shared.write_text(f"VALUE = {turn}  # turn {turn}\n")
            workspace_diff._snapshot(tmp / "clone0")
            snapshots.append(time.perf_counter() - t0)
        node = _du(tree.path) + _du(repo / ".git" / "worktrees" / "n0")
        work = _du(repo) - _du(repo / ".git")
        firsts, seconds, bases, stashes = [], [], [], []
        for rnd in range(ROUNDS):  # each run's two worktrees wait in the pool for the next
            remove_run_worktrees(run_dir, run_id, None)
            run_id = f"b3nc{4001 + rnd}{RUN[8:]}"
            run_dir = tmp / "runs" / run_id
            stashes.append(_time(lambda: _git(repo, "stash", "create")))
            bases.append(_time(lambda r=run_id, d=run_dir: ensure_base(repo, r, exclude=[d])))
            firsts.append(_time(lambda r=run_id, d=run_dir: open_tree(repo, d, r, "n0", "n0")))
            seconds.append(_time(lambda r=run_id, d=run_dir: open_tree(repo, d, r, "n1", "n1")))
        pooled, pooled_second = statistics.median(firsts), statistics.median(seconds)
        base, stash = statistics.median(bases), statistics.median(stashes)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    commit_ms, snap_ms = statistics.median(commits) * 1e3, statistics.median(snapshots) * 1e3
    label = f"{files:,} files"
    return [
        {"name": f"the run's base commit, median of {ROUNDS} ({label}; reference: git stash "
                 f"create)", "value": round(base * 1e3, 1), "unit": "ms",
         "reference": round(stash * 1e3, 1), "ratio": round(base / stash, 2),
         "target": "<= 1.5 x git stash create", "ok": base / stash <= 1.5},
        {"name": f"first node's worktree, taken from the pool ({label})",
         "value": round(pooled, 3), "unit": "s",
         "reference": round(clone, 3), "ratio": round(pooled / clone, 3),
         "target": "< 0.10 x git clone --shared", "ok": pooled / clone < 0.10},
        {"name": f"first node's worktree of the next run, none deleted: the spare the run "
                 f"before wrote, median of {ROUNDS} ({label})",
         "value": round(from_spare, 3), "unit": "s", "reference": round(clone, 3),
         "ratio": round(from_spare / clone, 3), "target": "< 0.10 x git clone --shared",
         "ok": from_spare / clone < 0.10},
        {"name": f"writing that spare, in the background while the run before worked, "
                 f"median of {ROUNDS} ({label})", "value": round(spare_made, 3), "unit": "s",
         "reference": round(clone, 3), "ratio": round(spare_made / clone, 2),
         "target": "reference: what the next run's first node would pay without it",
         "ok": None},
        {"name": f"another node's worktree, taken from the pool ({label})",
         "value": round(pooled_second, 3), "unit": "s", "reference": round(clone, 3),
         "ratio": round(pooled_second / clone, 3), "target": "< 0.10 x git clone --shared",
         "ok": pooled_second / clone < 0.10},
        {"name": f"first node's worktree, none pooled, with the base commit: a repository's "
                 f"first run ({label})",
         "value": round(make, 3), "unit": "s", "reference": round(clone, 3),
         "ratio": round(make / clone, 2), "target": "< 0.10 x git clone --shared",
         "ok": make / clone < 0.10},
        {"name": f"another node's worktree, none pooled ({label})",
         "value": round(second, 3), "unit": "s", "reference": round(clone, 3),
         "ratio": round(second / clone, 2), "target": "< 0.10 x git clone --shared",
         "ok": second / clone < 0.10},
        {"name": f"another node's worktree when its turn comes, prepared in the background "
                 f"while the first node ran, none pooled, median of {ROUNDS} ({label})",
         "value": round(at_turn, 3), "unit": "s", "reference": round(clone, 3),
         "ratio": round(at_turn / clone, 3), "target": "< 0.10 x git clone --shared",
         "ok": at_turn / clone < 0.10},
        {"name": f"its preparation in the background, off the node's turn, median of {ROUNDS} "
                 f"({label})", "value": round(background, 3), "unit": "s",
         "reference": round(clone, 3), "ratio": round(background / clone, 2),
         "target": "reference: what the turn would pay without it", "ok": None},
        {"name": f"a node's first commit, in a worktree prepared in the background, median "
                 f"of {ROUNDS} ({label})", "value": round(first_commit, 1), "unit": "ms",
         "reference": round(snap_ms, 1), "ratio": round(first_commit / snap_ms, 2),
         "target": "< 50 ms (reference: a shared workspace's two snapshots)",
         "ok": first_commit < 50},
        {"name": f"a turn's commit, median of {turns} ({label})", "value": round(commit_ms, 1),
         "unit": "ms", "reference": round(snap_ms, 1), "ratio": round(commit_ms / snap_ms, 2),
         "target": "< 50 ms (reference: a shared workspace's two snapshots)",
         "ok": commit_ms < 50},
        {"name": f"disk per node ({label})", "value": round(node / 2**20, 1), "unit": "MB",
         "reference": round(work / 2**20, 1), "ratio": round(node / work, 2),
         "target": "reference: the repository's working tree; objects are shared",
         "ok": None},
    ]
