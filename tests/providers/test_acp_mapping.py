"""ACP session updates -> contract events (pure mapping)."""

from hypothesis import given
from hypothesis import strategies as st

from desktop.contract.events import parse_event
from desktop.providers.acp_mapping import AcpMapper, tool_args, tool_name, unified_diff

RUN_ID = "11111111-2222-4333-8444-555555555555"


def kinds(events: list[dict]) -> list[str]:
    return [e["type"] for e in events]


def chunk(kind: str, text: str) -> dict:
    return {"sessionUpdate": kind, "content": {"type": "text", "text": text}}


def test_message_chunks_stream_then_one_final_per_message():
    m = AcpMapper(RUN_ID)
    events = m.update(chunk("agent_message_chunk", "Hel"))
    events += m.update(chunk("agent_message_chunk", "lo"))
    events += m.update({"sessionUpdate": "tool_call", "toolCallId": "t", "title": "ls",
                        "kind": "execute", "status": "pending"})
    events += m.update(chunk("agent_message_chunk", "Bye"))
    events += m.finish()
    finals = [e for e in events if e["type"] == "message.assistant.final"]
    assert [f["text"] for f in finals] == ["Hello", "Bye"]
    deltas = [e for e in events if e["type"] == "message.assistant.delta"]
    assert deltas[0]["messageId"] == deltas[1]["messageId"] == finals[0]["messageId"]
    assert m.final_text == "Bye"


def test_thoughts_become_thinking_events():
    m = AcpMapper(RUN_ID)
    events = m.update(chunk("agent_thought_chunk", "hmm"))
    events += m.update(chunk("agent_message_chunk", "ok"))
    assert kinds(events) == ["message.assistant.thinking.delta",
                             "message.assistant.thinking.final", "message.assistant.delta"]


def test_tool_lifecycle_and_diff_artifact():
    written: list = []

    def write(path, patch, tool_id):
        written.append((path, patch, tool_id))
        return "agents/a1/acp-diffs/001-x.py.patch"

    m = AcpMapper(RUN_ID, write, node_id="node-1")
    events = m.update({"sessionUpdate": "tool_call", "toolCallId": "t1", "title": "Edit x.py",
                       "kind": "edit", "status": "pending",
                       "locations": [{"path": "/w/x.py"}]})
    events += m.update({"sessionUpdate": "tool_call_update", "toolCallId": "t1",
                        "status": "in_progress"})
    events += m.update({"sessionUpdate": "tool_call_update", "toolCallId": "t1",
                        "status": "completed", "content": [
                            {"type": "diff", "path": "/w/x.py", "oldText": "a\n",
                             "newText": "b\n"}]})
    assert kinds(events) == ["tool.proposed", "tool.started", "tool.completed",
                             "artifact.created"]
    assert events[0]["tool"]["name"] == "edit"
    assert events[0]["tool"]["args"]["paths"] == ["/w/x.py"]
    assert events[2]["result"] == {"ok": True, "output": "changed /w/x.py"}
    artifact = events[3]["artifact"]
    assert artifact["kind"] == "diff" and artifact["nodeId"] == "node-1"
    assert "-a\n+b\n" in written[0][1] and written[0][2] == "t1"
    assert m.finish() == []


def test_update_for_an_unseen_tool_and_failure():
    m = AcpMapper(RUN_ID)
    events = m.update({"sessionUpdate": "tool_call_update", "toolCallId": "t9",
                       "status": "failed", "title": "rm -rf x", "kind": "execute",
                       "content": [{"type": "content",
                                    "content": {"type": "text", "text": "boom"}}]})
    assert kinds(events) == ["tool.proposed", "tool.started", "tool.completed"]
    assert events[0]["tool"]["args"]["command"] == "rm -rf x"
    assert events[2]["error"] == {"message": "boom"}


def test_permission_decisions():
    m = AcpMapper(RUN_ID)
    tool = {"toolCallId": "p", "title": "echo 1", "kind": "execute", "status": "pending"}
    assert kinds(m.permission_asked(tool)) == ["tool.proposed"]
    assert m.permission_asked(tool) == []
    assert kinds(m.permission_decided("p", True)) == ["tool.started"]
    m.permission_asked({**tool, "toolCallId": "q"})
    assert m.permission_decided("q", False) == []
    end = m.finish()
    assert [(e["toolId"], e["result"]["ok"]) for e in end] == [("p", False), ("q", False)]
    assert end[1]["error"]["message"] == "denied"


def test_plan_to_progress_and_unknown_to_raw():
    m = AcpMapper(RUN_ID)
    [plan] = m.update({"sessionUpdate": "plan", "entries": [
        {"content": "a", "priority": "high", "status": "pending"}]})
    assert plan["message"] == "plan: 0/1 done" and plan["plan"][0]["content"] == "a"
    [raw] = m.update({"sessionUpdate": "brand_new", "x": 1})
    assert raw["type"] == "agent.raw" and raw["line"]["x"] == 1


def test_muted_while_a_session_replays():
    m = AcpMapper(RUN_ID)
    m.muted = True
    assert m.update(chunk("agent_message_chunk", "old")) == []
    m.muted = False
    assert m.finish() == []


def test_usage_from_the_prompt_result():
    m = AcpMapper(RUN_ID)
    [std] = m.usage({"stopReason": "end_turn", "usage": {"inputTokens": 3, "outputTokens": 4}})
    assert (std["inputTokens"], std["outputTokens"]) == (3, 4)
    [gem] = m.usage({"_meta": {"quota": {"token_count": {"input_tokens": 9, "output_tokens": 1},
                                         "model_usage": [{"model": "g"}]}}})
    assert (gem["inputTokens"], gem["model"]) == (9, "g")
    assert m.usage({"stopReason": "end_turn"}) == []


def test_names_and_diffs():
    assert tool_name({"kind": "execute"}) == "shell"
    assert tool_name({"kind": "other", "title": "Fetch docs"}) == "Fetch docs"
    assert tool_args({"rawInput": "x"})["input"] == "x"
    assert unified_diff("f", None, "new\n").startswith("--- /dev/null")


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner,
                                                                 max_size=3),
    max_leaves=12)
update_kinds = st.sampled_from(["agent_message_chunk", "agent_thought_chunk", "tool_call",
                                "tool_call_update", "plan", "usage_update", "other"])
updates = st.one_of(
    json_values,
    st.fixed_dictionaries({"sessionUpdate": update_kinds}, optional={
        "content": json_values | st.fixed_dictionaries(
            {"type": st.sampled_from(["text", "image"]), "text": json_values}),
        "toolCallId": st.text(max_size=4) | st.integers(),
        "status": st.sampled_from(["pending", "in_progress", "completed", "failed"]) | json_values,
        "title": json_values, "kind": json_values, "rawInput": json_values,
        "entries": json_values, "locations": json_values}))


@given(st.lists(updates, max_size=12))
def test_any_update_stream_maps_to_valid_events(stream):
    m = AcpMapper(RUN_ID, lambda path, patch, tid: "agents/a/p.patch")
    events = []
    for update in stream:
        events += m.update(update)
        events += m.permission_asked(update)
    events += m.finish()
    for event in events:
        parse_event({**event, "runId": RUN_ID})
