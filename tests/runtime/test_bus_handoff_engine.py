"""A handoff posted only on the bus (no handoff.json) routes the turn's output in the engine."""

from __future__ import annotations

import sys
from pathlib import Path

from engine_helpers import events_of, of_type, run_doc, workflow

POSTER = """
import os
from desktop.store.eventlog import append_external
append_external(os.environ["MESSAGE_BUS"], {"type": "bus.message", "busType": "DECISION",
    "message": "over to you", "handoffTo": "reviewer", "agentRunId": os.environ["JRUN_ID"]})
print("posted")
"""


async def test_bus_only_handoff_reaches_its_target(tmp_path: Path) -> None:
    repo = str(Path(__file__).resolve().parents[2])
    doc = workflow(
        {
            "writer": {"provider": "command", "command": sys.executable,
                       "args": ["-c", f"import sys; sys.path.insert(0, {repo!r})\n" + POSTER],
                       "envAllowlist": ["PYTHONPATH"]},
            "reviewer": {"script": [{"say": "reviewed"}]},
            "other": {"script": [{"say": "not me"}]},
        },
        edges=[{"from": "writer", "to": "reviewer"}, {"from": "writer", "to": "other"}],
    )
    engine = await run_doc(doc, tmp_path)
    events = events_of(engine.run_dir)
    assert engine.state.status == "completed"
    ids = {n.key: n.id for n in engine.state.nodes.values()}
    sent = [e["envelope"] for e in of_type(events, "handoff.sent")
            if e["envelope"]["fromNodeId"] == ids["writer"]]
    assert [s["toNodeId"] for s in sent] == [ids["reviewer"]]
    assert sent[0]["payload"]["message"] == "over to you"
    assert engine.state.turns.get(ids["other"], 0) == 0
    assert engine.bus_handoffs == {}
