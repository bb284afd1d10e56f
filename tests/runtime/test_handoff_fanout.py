"""An agent that hands off to several nodes in one turn reaches every one of them."""

from __future__ import annotations

from pathlib import Path

from engine_helpers import events_of, of_type, run_doc, workflow


async def test_two_handoff_steps_in_one_turn_reach_both_targets(tmp_path: Path) -> None:
    doc = workflow(
        {
            "lead": {"script": {"turns": [[
                {"handoff": {"to": "left", "message": "take the left half"}},
                {"handoff": {"to": "right", "message": "take the right half"}},
            ], [{"say": "collected"}]]}},
            "left": {"script": [{"say": "left done"}]},
            "right": {"script": [{"say": "right done"}]},
        },
        edges=[{"from": "lead", "to": "left"}, {"from": "lead", "to": "right"},
               {"from": "left", "to": "lead", "type": "report"},
               {"from": "right", "to": "lead", "type": "report"}],
    )
    engine = await run_doc(doc, tmp_path)
    events = events_of(engine.run_dir)
    assert engine.state.status == "completed"
    sent = {(e["envelope"]["toNodeId"], e["envelope"]["payload"]["message"])
            for e in of_type(events, "handoff.sent")
            if e["envelope"]["fromNodeId"] == engine.state.nodes[_id(engine, "lead")].id}
    assert (_id(engine, "left"), "take the left half") in sent
    assert (_id(engine, "right"), "take the right half") in sent
    assert engine.state.turns[_id(engine, "left")] == 1
    assert engine.state.turns[_id(engine, "right")] == 1


def _id(engine, key: str) -> str:
    return next(n.id for n in engine.state.nodes.values() if n.key == key)
