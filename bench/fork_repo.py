"""bench_fork's runs in a git repository: the fork before and after nodes had worktrees.

Two runs of three nodes taking turns in a chain, each turn adding a file, written as an
engine writes them, in two copies of one generated repository (10,000 files, 2,000
quick, with an uncommitted change and an untracked file):

- before: the nodes share the repository folder (``isolation: shared``); a fork copies
  the folder and undoes the diffs recorded after the fork point;
- after: each node works in its own worktree and commits every turn (``isolation:
  worktree``); a fork checks each node's commit of the point out on a branch of its own.

Both are forked half way; the ratio is after / before, measured in the same run.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from desktop.runtime import workspace_diff
from desktop.runtime.fork import ForkRequest, fork_run
from desktop.runtime.worktree_cleanup import remove_run_worktrees
from desktop.runtime.worktrees import NodeTree, commit_all, open_tree
from desktop.store.eventlog import Durability, EventLog
from desktop.views.forks import scan_run

SHARED = "0b5e7f3a-1c2d-4e5f-8a9b-0c1d2e3f4a01"
TREES = "1b5e7f3a-1c2d-4e5f-8a9b-0c1d2e3f4a02"
NODES = [f"00000000-0000-4000-8000-00000000020{i}" for i in range(3)]
USER = ("-c", "user.name=bench", "-c", "user.email=bench@localhost")
Turn = Callable[[int, str], tuple[bytes, dict[str, str]]]


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *USER, *args], cwd=cwd, check=True, capture_output=True)


def _repository(repo: Path, files: int) -> Path:
    for i in range(files):
        path = repo / f"pkg{i % 100:02d}" / f"mod{i:05d}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f'"""Module {i}."""\n\nVALUE = {i}\n' + "# padding\n" * 20)
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "generated")
    (repo / "pkg00" / "mod00000.py").write_text("VALUE = 'changed, not committed'\n")
    (repo / "untracked.py").write_text("NEW = True\n")
    return repo


def _patch(turn: int) -> bytes:
    """The diff of a turn that writes ``notes/turn-N.txt`` (as git records it)."""
    return (f"diff --git a/notes/turn-{turn}.txt b/notes/turn-{turn}.txt\n"
            "new file mode 100644\n"
            f"--- /dev/null\n+++ b/notes/turn-{turn}.txt\n@@ -0,0 +1 @@\n+turn {turn}\n"
            ).encode()


def _write_run(run_dir: Path, run_id: str, repo: Path, isolation: str, turns: int,
               turn: Turn, before: list[dict] | None = None) -> None:
    """The run's log and agent folders; ``turn(n, node)`` does turn n's work and returns
    its diff and the diff artifact's commit fields."""
    log = EventLog.open(run_dir, durability=Durability.NONE)
    nodes = {n: {"id": n, "runId": run_id, "key": f"n{i}", "label": f"N{i}"}
             for i, n in enumerate(NODES)}
    configs = {n: {"workspace": str(repo), "isolation": isolation} for n in NODES}
    log.append({"type": "run.created", "runId": run_id, "nodes": nodes, "nodeConfigs": configs,
                "edges": {}, "workflowName": "bench"})
    log.append({"type": "inbox.queued", "runId": run_id, "nodeId": NODES[0],
                "item": {"id": "item-0", "kind": "task", "text": "go"}})
    log.append({"type": "run.started", "runId": run_id})
    for event in before or []:
        log.append({"runId": run_id, **event})
    for n in range(turns):
        node = NODES[n % 3]
        agent = f"20260101-{n:010d}-2"
        folder = run_dir / "agents" / agent
        folder.mkdir(parents=True)
        log.append({"type": "turn.status", "runId": run_id, "nodeId": node,
                    "status": "started", "turnId": f"t{n}", "agentRunId": agent,
                    "attempt": 1, "inboxItemIds": [f"item-{n}"]})
        patch, commit = turn(n, node)
        (folder / "diff.patch").write_bytes(patch)
        log.append({"type": "artifact.created", "runId": run_id, "nodeId": node,
                    "artifact": {"id": f"00000000-0000-4000-8000-{n:012d}", "runId": run_id,
                                 "nodeId": node, "kind": "diff", "name": "diff.patch",
                                 "path": f"agents/{agent}/diff.patch",
                                 "createdAt": "2026-01-01T00:00:00.000Z", **commit}})
        log.append({"type": "turn.status", "runId": run_id, "nodeId": node,
                    "status": "completed", "turnId": f"t{n}", "agentRunId": agent})
        log.append({"type": "inbox.queued", "runId": run_id, "nodeId": NODES[(n + 1) % 3],
                    "item": {"id": f"item-{n + 1}", "kind": "handoff", "text": "next"}})
    log.close()


def _shared_run(run_dir: Path, repo: Path, turns: int) -> None:
    def turn(n: int, _node: str) -> tuple[bytes, dict[str, str]]:
        (repo / "notes").mkdir(exist_ok=True)
        (repo / "notes" / f"turn-{n}.txt").write_text(f"turn {n}\n")
        return _patch(n), {}

    _write_run(run_dir, SHARED, repo, "shared", turns, turn)


def _worktree_run(run_dir: Path, repo: Path, turns: int) -> None:
    trees: dict[str, NodeTree] = {}
    for i, node in enumerate(NODES):
        tree = open_tree(repo, run_dir, TREES, f"n{i}", node)
        assert tree is not None
        trees[node] = tree
    records = [{"type": "node.patch", "nodeId": node, "patch": {"git": {
        **tree.record(run_dir), "head": tree.base}}} for node, tree in trees.items()]

    def turn(n: int, node: str) -> tuple[bytes, dict[str, str]]:
        tree = trees[node]
        start = workspace_diff._snapshot(tree.path) or tree.base
        (tree.path / "notes").mkdir(exist_ok=True)
        (tree.path / "notes" / f"turn-{n}.txt").write_text(f"turn {n}\n")
        commit = commit_all(tree, f"turn {n}\n")
        assert commit is not None
        return workspace_diff._diff(tree.path, start, commit), {"commit": commit,
                                                                 "branch": tree.branch}

    _write_run(run_dir, TREES, repo, "worktree", turns, turn, records)


def _fork_half_way(run_dir: Path, data: Path) -> tuple[float, Path]:
    points = scan_run(run_dir).points
    t0 = time.perf_counter()
    fork = fork_run(run_dir, data, ForkRequest(at=points[len(points) // 2].seq))
    took = time.perf_counter() - t0
    fork.engine.close()
    return took, fork.engine.run_dir


def fork_in_repository(quick: bool) -> list[dict]:
    """Rows: a fork half way of the run in worktrees against the shared one."""
    files, turns = (2_000, 12) if quick else (10_000, 60)
    tmp = Path(tempfile.mkdtemp(prefix="bench-fork-git-"))
    try:
        shared_repo = _repository(tmp / "shared", files)
        trees_repo = _repository(tmp / "trees", files)
        data = tmp / "data"
        shared_dir, trees_dir = data / "runs" / SHARED, data / "runs" / TREES
        _shared_run(shared_dir, shared_repo, turns)
        _worktree_run(trees_dir, trees_repo, turns)
        before, copy = _fork_half_way(shared_dir, data)
        after, fork = _fork_half_way(trees_dir, data)
        half = len(list((copy / "workspaces" / "1" / "notes").iterdir()))
        mine = [len(list(p.glob("notes/*"))) for p in (fork / "worktrees").iterdir()]
        assert sum(mine) == half and 0 < half < turns, (half, mine)
        remove_run_worktrees(fork, fork.name)
        remove_run_worktrees(trees_dir, TREES)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    label = f"{files:,} files, 3 nodes, {turns} turns"
    return [{"name": f"fork half way in a git repository ({label}): each node's commit "
                     "checked out in a worktree of the fork",
             "value": round(after, 3), "unit": "s", "reference": round(before, 3),
             "ratio": round(after / before, 2),
             "target": "reference (before): isolation shared, the folder copied and the "
                       "later diffs undone", "ok": None}]
