"""Forking a run: copy the log and the agent folders, restore the nodes' files as they were
at the fork point, open the fork's engine.

- A long run in the scratch folder, forked at its last point: every recorded diff replayed
  into a fresh workspace. The run is written as an engine writes one: three nodes taking
  turns in a chain, each turn streaming message deltas and recording a diff that adds a
  file. References, measured in the same run: resuming a copy of the same run (fold the
  whole log and open its engine), and copying its folder with ``shutil.copytree``.
- A run of three nodes in a generated git repository (10,000 files, 2,000 quick), forked
  half way. Before: the nodes share the repository folder (``isolation: shared``) and the
  fork copies it and undoes the diffs recorded after the point. After: each node works in
  its own worktree (``isolation: worktree``) and the fork checks each node's commit of the
  point out in a worktree of its own (bench/fork_repo.py writes both runs).
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from bench.fork_repo import fork_in_repository
from desktop.runtime.fork import ForkRequest, fork_run
from desktop.runtime.recovery import resume_engine
from desktop.store.eventlog import Durability, EventLog

RUN_ID = "0b5e7f3a-1c2d-4e5f-8a9b-0c1d2e3f4a5c"
NODES = [f"00000000-0000-4000-8000-00000000010{i}" for i in range(3)]


def _patch(turn: int) -> bytes:
    """The diff of a turn that writes ``notes/turn-N.txt`` (as git records it)."""
    body = f"turn {turn}\n"
    return (f"diff --git a/notes/turn-{turn}.txt b/notes/turn-{turn}.txt\n"
            "new file mode 100644\n"
            f"--- /dev/null\n+++ b/notes/turn-{turn}.txt\n@@ -0,0 +1 @@\n+{body}").encode()


def _write_run(run_dir: Path, turns: int, deltas: int) -> int:
    """A run of ``turns`` chained turns; returns how many events it has."""
    log = EventLog.open(run_dir, durability=Durability.NONE)
    nodes = {n: {"id": n, "runId": RUN_ID, "key": f"n{i}", "label": f"N{i}"}
             for i, n in enumerate(NODES)}
    log.append({"type": "run.created", "runId": RUN_ID, "nodes": nodes, "nodeConfigs": {},
                "edges": {}, "workflowName": "bench"})
    log.append({"type": "inbox.queued", "runId": RUN_ID, "nodeId": NODES[0],
                "item": {"id": "item-0", "kind": "task", "text": "go"}})
    log.append({"type": "run.started", "runId": RUN_ID})
    for turn in range(turns):
        node = NODES[turn % 3]
        agent = f"20260101-{turn:010d}-1"
        folder = run_dir / "agents" / agent
        folder.mkdir(parents=True)
        (folder / "diff.patch").write_bytes(_patch(turn))
        (folder / "output.md").write_text(f"turn {turn} done\n")
        log.append({"type": "turn.status", "runId": RUN_ID, "nodeId": node,
                    "status": "started", "turnId": f"t{turn}", "agentRunId": agent,
                    "attempt": 1, "inboxItemIds": [f"item-{turn}"]})
        for i in range(deltas):
            log.append({"type": "message.assistant.delta", "runId": RUN_ID, "nodeId": node,
                        "text": f"word {i} "})
        log.append({"type": "artifact.created", "runId": RUN_ID, "nodeId": node,
                    "artifact": {"id": f"00000000-0000-4000-8000-{turn:012d}", "runId": RUN_ID,
                                 "nodeId": node, "kind": "diff", "name": "diff.patch",
                                 "path": f"agents/{agent}/diff.patch",
                                 "createdAt": "2026-01-01T00:00:00.000Z"}})
        log.append({"type": "turn.status", "runId": RUN_ID, "nodeId": node,
                    "status": "completed", "turnId": f"t{turn}", "agentRunId": agent})
        log.append({"type": "inbox.queued", "runId": RUN_ID, "nodeId": NODES[(turn + 1) % 3],
                    "item": {"id": f"item-{turn + 1}", "kind": "handoff", "text": "next"}})
        log.flush()
    log.close()
    subprocess.run(["git", "init", "-q", str(run_dir / "workspace")], check=True)
    return log.last_seq


def run(quick: bool) -> list[dict]:
    """Rows for a fork at the last point of a run of 600 turns (60 quick)."""
    turns, deltas = (60, 150) if quick else (600, 300)
    tmp = Path(tempfile.mkdtemp(prefix="bench-fork-"))
    try:
        source = tmp / "data" / "runs" / RUN_ID
        events = _write_run(source, turns, deltas)
        t0 = time.perf_counter()
        fork = fork_run(source, tmp / "data", ForkRequest(at=events))
        fork_s = time.perf_counter() - t0
        fork.engine.close()
        restored = fork.workspaces[0]
        assert fork.plan.seq == events and restored.diffs == turns, (fork.plan.seq, restored)
        assert len(list((fork.engine.run_dir / "workspace" / "notes").iterdir())) == turns
        copy = tmp / "copy" / "runs" / RUN_ID
        t0 = time.perf_counter()
        shutil.copytree(source, copy, ignore=shutil.ignore_patterns("engine.lock"))
        copy_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        engine = resume_engine(copy)
        resume_s = time.perf_counter() - t0
        engine.close()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    label = f"{turns} turns, {events:,} events, {turns} diffs"
    return [*_rows(fork_s, resume_s, copy_s, label), *fork_in_repository(quick)]


def _rows(fork_s: float, resume_s: float, copy_s: float, label: str) -> list[dict]:
    return [
        {"name": f"fork at the last point ({label})", "value": round(fork_s, 3), "unit": "s",
         "reference": round(resume_s, 3), "ratio": round(fork_s / resume_s, 2),
         "target": "reference: resume the same run", "ok": None},
        {"name": "fork vs copying the run folder", "value": round(fork_s, 3), "unit": "s",
         "reference": round(copy_s, 3), "ratio": round(fork_s / copy_s, 2),
         "target": "reference: shutil.copytree", "ok": None},
    ]
