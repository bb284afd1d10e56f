"""The scripted agent as a real process: every step kind, gating, script selection."""

import json
import os
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from desktop.contract.base import new_id
from desktop.contract.events import Resolution, ToolCall
from desktop.contract.state import NodeConfig, NodeState
from desktop.providers import registry
from desktop.providers.base import TurnRequest
from desktop.providers.command import CommandProvider, command_argv
from desktop.providers.scripted.agent import select_steps, validate_script
from desktop.providers.scripted.provider import ScriptedProvider


class Gate:
    """Records tool calls and answers from a list (default: approve)."""

    def __init__(self, *answers: Resolution):
        self.calls: list[ToolCall] = []
        self.answers = list(answers)

    async def __call__(self, tool: ToolCall, context: str | None) -> Resolution:
        self.calls.append(tool)
        return self.answers.pop(0) if self.answers else Resolution(status="approved")


def _request(tmp_path: Path, config: NodeConfig, gate=None, inbox=None, turn=1) -> TurnRequest:
    run_id = new_id()
    folder = tmp_path / "agent"
    folder.mkdir(exist_ok=True)
    cwd = tmp_path / "ws"
    cwd.mkdir(exist_ok=True)
    bus = tmp_path / "events.jsonl"
    if not bus.exists():
        bus.write_text(json.dumps({"seq": 1, "type": "run.created", "runId": run_id}) + "\n")
    env = {"PATH": os.environ["PATH"], "RUN_FOLDER": str(folder), "MESSAGE_BUS": str(bus),
           "JRUN_ID": "20260101-1200000000-1", "AGENT_CANVAS_RUN_ID": run_id}
    return TurnRequest(
        run_id=run_id, node=NodeState(id=new_id(), runId=run_id, label="n"), config=config,
        agent_run_id="20260101-1200000000-1", agent_run_dir=folder, prompt="p", env=env, cwd=cwd,
        turn_number=turn, gate=gate or Gate(), inbox=inbox or [],
        stdout_path=folder / "agent-stdout.txt", stderr_path=folder / "agent-stderr.txt")


async def _play(provider, request) -> list[dict]:
    return [event async for event in provider.start(request)]


def _types(events: list[dict]) -> list[str]:
    return [e["type"] for e in events]


async def test_every_step_kind(tmp_path: Path):
    script = [
        {"think": "let me see"}, {"say": "one two three four five"}, {"repeat_output": "again"},
        {"shell": "echo from-shell"}, {"edit": {"path": "src/a.txt", "content": "hello\n"}},
        {"spawn_node": {"key": "helper", "roleTemplate": "tester"}},
        {"create_edge": {"from": "n", "to": "helper"}},
        {"bus": {"type": "DECISION", "message": "chose A"}},
        {"handoff": {"to": "reviewer", "message": "please review", "structured": {"k": 1}}},
        {"write_output": "the output"}, {"done": True}, {"emit_raw": "not json at all"},
        {"deltas": 5}, {"usage": {"inputTokens": 3, "outputTokens": 4}}, {"sleep": 0.01},
    ]
    gate = Gate()
    req = _request(tmp_path, NodeConfig(script=script), gate)
    provider = ScriptedProvider()
    events = await _play(provider, req)
    types = _types(events)
    assert provider.outcome.exit_code == 0 and provider.can_gate
    assert "message.assistant.thinking.final" in types
    finals = [e["text"] for e in events if e["type"] == "message.assistant.final"]
    assert finals[:2] == ["one two three four five", "again"]
    first = next(e for e in events if e["type"] == "message.assistant.final")
    deltas = [e["text"] for e in events if e["type"] == "message.assistant.delta"
              and e["messageId"] == first["messageId"]]
    assert len(deltas) > 1 and "".join(deltas) == "one two three four five"
    assert [c.name for c in gate.calls] == ["command", "edit_file", "spawn_node", "create_edge"]
    completed = [e for e in events if e["type"] == "tool.completed"]
    assert "from-shell" in completed[0]["result"]["output"]
    assert (req.cwd / "src/a.txt").read_text() == "hello\n"
    assert {"type": "node.log", "stream": "stdout", "text": "not json at all"} in events
    assert types.count("message.assistant.delta") >= 5 + 4
    assert "telemetry.usage" in types
    assert (req.agent_run_dir / "output.md").read_text() == "the output"
    assert (req.agent_run_dir / "DONE").exists()
    handoff = json.loads((req.agent_run_dir / "handoff.json").read_text())
    assert handoff["to"] == "reviewer" and handoff["structured"] == {"k": 1}
    bus_lines = [json.loads(x) for x in (tmp_path / "events.jsonl").read_text().splitlines()]
    assert bus_lines[-1]["busType"] == "DECISION" and bus_lines[-1]["seq"] == 2


async def test_denial_goes_back_to_the_agent_and_it_carries_on(tmp_path: Path):
    gate = Gate(Resolution(status="denied", reason="not in PLANNING mode"))
    script = [{"shell": "touch should-not-exist"}, {"say": "still here"}]
    req = _request(tmp_path, NodeConfig(script=script), gate)
    events = await _play(ScriptedProvider(), req)
    completed = next(e for e in events if e["type"] == "tool.completed")
    assert completed["error"]["message"] == "not in PLANNING mode"
    assert "tool.started" not in _types(events)
    assert not (req.cwd / "should-not-exist").exists()
    assert events[-1]["type"] == "message.assistant.final"


async def test_modified_args_are_what_runs(tmp_path: Path):
    gate = Gate(Resolution(status="modified", modifiedArgs={"cmd": "echo changed > m.txt"}))
    req = _request(tmp_path, NodeConfig(script=[{"shell": "echo original > m.txt"}]), gate)
    events = await _play(ScriptedProvider(), req)
    started = next(e for e in events if e["type"] == "tool.started")
    assert started["args"] == {"cmd": "echo changed > m.txt"}
    assert (req.cwd / "m.txt").read_text().strip() == "changed"


async def test_fail_step_exits_1_with_reason(tmp_path: Path):
    provider = ScriptedProvider()
    req = _request(tmp_path, NodeConfig(script=[{"say": "x"}, {"fail": "boom reason"}]))
    events = await _play(provider, req)
    assert provider.outcome.exit_code == 1
    assert "boom reason" in provider.outcome.error
    assert {"type": "node.log", "stream": "stderr", "text": "boom reason"} in events


async def test_turns_and_when_pick_by_turn_and_inbox(tmp_path: Path):
    script = {"turns": [[{"say": "first"}],
                        {"when": [{"inboxContains": "URGENT", "steps": [{"say": "urgent"}]}],
                         "default": [{"say": "calm"}]}]}
    for turn, inbox, expected in ((1, [], "first"), (2, [], "calm"),
                                  (5, [{"kind": "task", "text": "this is urgent"}], "urgent")):
        req = _request(tmp_path, NodeConfig(script=script), inbox=inbox, turn=turn)
        events = await _play(ScriptedProvider(), req)
        assert events[-1]["text"] == expected


step = st.sampled_from([{"say": "a"}, {"think": "b"}, {"done": True}])
scripts = st.recursive(
    st.lists(step, max_size=3),
    lambda inner: st.one_of(
        st.builds(lambda xs: {"turns": xs}, st.lists(inner, min_size=1, max_size=3)),
        st.builds(lambda xs: {"attempts": xs}, st.lists(inner, min_size=1, max_size=3)),
        st.builds(lambda w, d: {"when": [{"inboxContains": w, "steps": d}], "default": d},
                  st.text(min_size=1, max_size=3), inner),
        st.builds(lambda ms, d: {"models": ms, "default": d},
                  st.dictionaries(st.sampled_from(["a", "b"]), inner, min_size=1), inner),
    ),
    max_leaves=6,
)


@given(scripts, st.integers(1, 6), st.integers(1, 4), st.text(max_size=10),
       st.sampled_from([None, "a", "b", "c"]))
def test_any_valid_script_selects_a_step_list(script, turn, attempt, inbox, model):
    assert validate_script(script) == []
    steps = select_steps(script, turn, attempt, inbox, model)
    assert isinstance(steps, list) and all(isinstance(s, dict) for s in steps)


def test_a_models_script_plays_the_steps_of_the_node_model() -> None:
    script = {"models": {"big": [{"say": "big"}]}, "default": [{"say": "other"}]}
    assert select_steps(script, 1, 1, "", "big") == [{"say": "big"}]
    assert select_steps(script, 1, 1, "", "small") == [{"say": "other"}]
    assert select_steps(script, 1, 1, "") == [{"say": "other"}]
    assert "script.models.big[0]" in validate_script({"models": {"big": [{"fly": 1}]}})[0]


def test_validate_script_names_the_bad_step():
    problems = validate_script({"turns": [[{"say": "x"}, {"launch": "rockets"}]]})
    assert problems and "script.turns[0][1]" in problems[0] and "launch" in problems[0]


async def test_command_provider_streams_lines_and_passes_events(tmp_path: Path):
    code = ("import sys, json; print('hello ' + sys.stdin.read()); "
            "print(json.dumps({'type': 'telemetry.usage', 'inputTokens': 5})); "
            "print(json.dumps({'type': 'tool.completed'})); print('bye')")
    config = NodeConfig(command=sys.executable, args=["-c", code])
    provider = registry.create("command")
    assert isinstance(provider, CommandProvider) and not provider.can_gate
    events = await _play(provider, _request(tmp_path, config))
    assert provider.outcome.exit_code == 0
    assert [e["text"] for e in events if e["type"] == "message.assistant.delta"] == [
        "hello p\n", "bye\n"]
    assert {"type": "telemetry.usage", "inputTokens": 5} in events
    assert any(e["type"] == "node.log" and "invalid tool.completed" in e["text"] for e in events)
    assert events[-1] == {"type": "message.assistant.final", "text": "hello p\nbye"}


async def test_command_provider_missing_program(tmp_path: Path):
    provider = CommandProvider()
    events = await _play(provider, _request(tmp_path, NodeConfig(command="/no/such/prog")))
    assert provider.outcome.exit_code == 127 and "cannot start" in events[0]["text"]


def test_command_argv_splits_only_without_args():
    assert command_argv("my agent --fast", []) == ["my", "agent", "--fast"]
    assert command_argv("/opt/my agent", ["x"]) == ["/opt/my agent", "x"]
    with pytest.raises(ValueError, match="command"):
        command_argv(None, [])


async def test_paced_deltas_stream_one_message(tmp_path: Path):
    script = [{"deltas": {"count": 40, "perSecond": 2000}}, {"deltas": 3}]
    events = await _play(ScriptedProvider(), _request(tmp_path, NodeConfig(script=script), Gate()))
    finals = [e for e in events if e["type"] == "message.assistant.final"]
    assert [f["text"] for f in finals] == ["40 deltas", "3 deltas"]
    paced = [e for e in events if e["type"] == "message.assistant.delta"
             and e["messageId"] == finals[0]["messageId"]]
    assert [e["text"] for e in paced] == [f"t{i} " for i in range(40)]
