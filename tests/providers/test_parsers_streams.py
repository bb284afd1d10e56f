"""The stream parsers on streams recorded from the real CLIs (see fixtures/record.py)."""

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from desktop.contract.events import GenericEvent, parse_event
from desktop.providers.parsers import parser_for

FIXTURES = Path(__file__).parent / "fixtures"
RUN_ID = "11111111-2222-4333-8444-555555555555"


def parse(name: str) -> tuple[list[dict], object]:
    agent = name.split("-", 1)[0]
    parser = parser_for(agent, run_id=RUN_ID)
    events: list[dict] = []
    for line in (FIXTURES / f"{name}.jsonl").read_bytes().splitlines():
        events += parser.feed(line)
    events += parser.finish()
    return events, parser


def of_type(events: list[dict], kind: str) -> list[dict]:
    return [e for e in events if e["type"] == kind]


ALL = sorted(p.stem for p in FIXTURES.glob("*.jsonl"))


@pytest.mark.parametrize("name", ALL)
def test_every_event_is_a_valid_contract_event(name: str):
    events, parser = parse(name)
    assert events
    for event in events:
        model = parse_event({**event, "runId": RUN_ID})
        if event["type"] not in ("agent.raw", "agent.error"):
            assert not isinstance(model, GenericEvent), event
    assert parser.unparsed == 0
    assert of_type(events, "node.patch")[0]["patch"]["session"]["sessionId"] == parser.session_id


@pytest.mark.parametrize("agent", ["claude", "codex", "gemini"])
def test_text_reply_gives_final_message_and_usage(agent: str):
    events, parser = parse(f"{agent}-text")
    finals = of_type(events, "message.assistant.final")
    assert [e["text"] for e in finals] == ["Hello from the fake model."]
    assert parser.final_text == "Hello from the fake model."
    usage = of_type(events, "telemetry.usage")
    assert usage and sum(e["outputTokens"] for e in usage) > 0
    assert parser.error is None


def test_claude_streams_deltas_thinking_and_cost():
    events, _ = parse("claude-text")
    deltas = "".join(e["text"] for e in of_type(events, "message.assistant.delta"))
    assert deltas == "Hello from the fake model."
    thinking = of_type(events, "message.assistant.thinking.final")
    assert thinking[0]["text"] == "The user wants a greeting."
    assert "".join(e["text"] for e in of_type(events, "message.assistant.thinking.delta")) == \
        "The user wants a greeting."
    assert of_type(events, "telemetry.usage")[-1]["costUsd"] > 0


def test_claude_counts_each_model_reply_as_it_ends_and_the_result_adds_only_the_rest():
    events, _ = parse("claude-tool")
    usage = of_type(events, "telemetry.usage")
    assert [(e["inputTokens"], e["outputTokens"]) for e in usage[:2]] == [(12, 2), (12, 9)]
    # the first reply is counted before its tool runs, not at the end of the turn
    assert events.index(usage[0]) < events.index(of_type(events, "tool.completed")[0])
    assert (sum(e["inputTokens"] for e in usage), sum(e["outputTokens"] for e in usage)) \
        == (24, 11)  # the result line's totals
    assert usage[-1]["costUsd"] > 0


def _claude_line(event: dict) -> bytes:
    return json.dumps({"type": "stream_event", "event": event}).encode()


@given(st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 10**5)), max_size=8),
       st.integers(0, 10**6), st.integers(0, 10**5))
def test_claude_usage_adds_up_to_the_larger_of_the_replies_and_the_result(
        replies: list[tuple[int, int]], more_in: int, more_out: int):
    parser = parser_for("claude", run_id=RUN_ID)
    events: list[dict] = []
    for tokens_in, tokens_out in replies:
        events += parser.feed(_claude_line({"type": "message_start", "message": {
            "id": "m", "usage": {"input_tokens": tokens_in, "output_tokens": 1}}}))
        events += parser.feed(_claude_line({"type": "message_delta",
                                            "usage": {"output_tokens": tokens_out}}))
    total_in = sum(r[0] for r in replies)
    total_out = sum(r[1] for r in replies)
    told = (total_in + more_in) if more_in % 2 else max(total_in - more_in, 0)
    events += parser.feed(json.dumps({"type": "result", "subtype": "success", "result": "ok",
                                      "usage": {"input_tokens": told,
                                                "output_tokens": total_out + more_out},
                                      "total_cost_usd": 0.5}).encode())
    usage = of_type(events, "telemetry.usage")
    assert sum(e["inputTokens"] for e in usage) == max(told, total_in)
    assert sum(e["outputTokens"] for e in usage) == total_out + more_out
    assert sum(e.get("costUsd", 0) for e in usage) == 0.5


def test_gemini_deltas_add_up_to_final():
    events, _ = parse("gemini-tool")
    finals = [e["text"] for e in of_type(events, "message.assistant.final")]
    assert finals == ["Running it.", "The command printed hello-from-tool."]
    assert "".join(e["text"] for e in of_type(events, "message.assistant.delta")) == \
        "".join(finals)


@pytest.mark.parametrize("agent", ["claude", "codex", "gemini"])
def test_tool_call_is_proposed_started_and_completed_in_order(agent: str):
    events, parser = parse(f"{agent}-tool")
    kinds = [e["type"] for e in events if e["type"].startswith("tool.")]
    assert kinds == ["tool.proposed", "tool.started", "tool.completed"]
    proposed = of_type(events, "tool.proposed")[0]["tool"]
    completed = of_type(events, "tool.completed")[0]
    assert completed["toolId"] == proposed["id"]
    assert "echo hello-from-tool" in str(proposed["args"])
    assert completed["result"]["ok"] is True
    assert "hello-from-tool" in completed["result"]["output"]
    assert completed["result"]["exitCode"] == 0
    assert parser.open_tools() == []


@pytest.mark.parametrize("agent", ["claude", "codex", "gemini"])
def test_failing_command_reports_exit_code(agent: str):
    events, _ = parse(f"{agent}-fail")
    completed = of_type(events, "tool.completed")[0]
    assert completed["result"]["ok"] is False
    assert completed["result"]["exitCode"] == 3
    assert completed["error"]["message"]


@pytest.mark.parametrize("agent", ["claude", "gemini"])
def test_file_write_becomes_artifact(agent: str):
    events, _ = parse(f"{agent}-write")
    artifacts = of_type(events, "artifact.created")
    assert [a["artifact"]["name"] for a in artifacts] == ["notes.txt"]
    assert artifacts[0]["artifact"]["runId"] == RUN_ID


@pytest.mark.parametrize(("name", "category"), [
    ("claude-auth", "authentication"), ("codex-auth", "authentication"),
    ("gemini-auth", "authentication"), ("claude-ratelimit", "rate_limit"),
    ("codex-ratelimit", "rate_limit"), ("claude-model", "unknown_model"),
    ("codex-model", "unknown_model"), ("gemini-model", "unknown_model"),
])
def test_errors_are_classified_with_the_agents_message(name: str, category: str):
    events, parser = parse(name)
    errors = of_type(events, "agent.error")
    assert len(errors) == 1, errors
    assert errors[0]["category"] == category
    assert parser.error["category"] == category
    assert errors[0]["message"] == parser.error["message"]
    assert not of_type(events, "message.assistant.final")


def _claude_lines_without_text_blocks() -> list[bytes]:
    """The recorded text stream with every assistant text block taken out: the reply is
    then only in the closing result event's ``result`` field."""
    kept = []
    for line in (FIXTURES / "claude-text.jsonl").read_bytes().splitlines():
        data = json.loads(line)
        if data.get("type") == "assistant":
            content = [b for b in data["message"]["content"] if b.get("type") != "text"]
            if not content:
                continue
            data["message"]["content"] = content
        if data.get("type") == "stream_event" and data["event"].get("type") == \
                "content_block_delta" and data["event"]["delta"].get("type") == "text_delta":
            continue
        kept.append(json.dumps(data).encode())
    return kept


def test_claude_final_text_only_in_result_is_the_final_message():
    parser = parser_for("claude", run_id=RUN_ID)
    events: list[dict] = []
    for line in _claude_lines_without_text_blocks():
        events += parser.feed(line)
    events += parser.finish()
    finals = of_type(events, "message.assistant.final")
    assert [e["text"] for e in finals] == ["Hello from the fake model."]
    assert parser.final_text == "Hello from the fake model."
    parse_event({**finals[0], "runId": RUN_ID})


def test_claude_final_text_in_both_places_is_one_final_message():
    events, _ = parse("claude-text")
    assert [e["text"] for e in of_type(events, "message.assistant.final")] == [
        "Hello from the fake model."]


@given(st.text(min_size=1, max_size=40), st.integers(1, 3))
def test_each_turn_of_a_resumed_stream_gets_its_result_text_once(text: str, turns: int):
    parser = parser_for("claude", run_id=RUN_ID)
    events: list[dict] = []
    for turn in range(turns):
        if turn % 2:  # every other turn also sends the text as a block
            events += parser.feed(json.dumps({"type": "assistant", "message": {
                "id": f"m{turn}", "content": [{"type": "text", "text": text}]}}))
        events += parser.feed(json.dumps({"type": "result", "subtype": "success",
                                          "is_error": False, "result": text}))
    assert [e["text"] for e in of_type(events, "message.assistant.final")] == [text] * turns
