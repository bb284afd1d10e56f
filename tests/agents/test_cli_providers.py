"""Each CLI provider, run directly, against scripted replies of the fake model server."""

from pathlib import Path

import pytest

from desktop.providers.cli_agents import ClaudeProvider, CodexProvider, GeminiProvider
from desktop.providers.fakeserver import Script
from tests.agents.conftest import make_request

PROVIDERS = {"claude": ClaudeProvider, "codex": CodexProvider, "gemini": GeminiProvider}
pytestmark = pytest.mark.timeout(300)


async def run(provider, request) -> list[dict]:
    return [event async for event in provider.start(request)]


def of_type(events: list[dict], kind: str) -> list[dict]:
    return [e for e in events if e["type"] == kind]


@pytest.mark.parametrize("agent", sorted(PROVIDERS))
async def test_text_reply(agent, server, offline, agents_bin, tmp_path: Path):
    server.script = Script.from_data({"agents": {agent: [{"text": "Hello there."}]}})
    provider = PROVIDERS[agent](offline=offline, bin_dir=agents_bin)
    events = await run(provider, make_request(tmp_path, agent))
    assert [e["text"] for e in of_type(events, "message.assistant.final")] == ["Hello there."]
    assert provider.outcome.exit_code == 0, provider.outcome.error
    assert provider.outcome.final_text == "Hello there."
    assert provider.outcome.session_id
    assert of_type(events, "telemetry.usage")


@pytest.mark.parametrize("agent", sorted(PROVIDERS))
async def test_tool_call_in_skip_mode(agent, server, offline, agents_bin, tmp_path: Path):
    server.script = Script.from_data({"agents": {agent: [
        {"text": "Running.", "shell": "echo tool-ran > proof.txt && echo ok"},
        {"text": "It ran."}]}})
    provider = PROVIDERS[agent](offline=offline, bin_dir=agents_bin)
    request = make_request(tmp_path, agent)
    events = await run(provider, request)
    completed = of_type(events, "tool.completed")
    assert completed and completed[0]["result"]["ok"], events
    assert (request.cwd / "proof.txt").read_text().strip() == "tool-ran"
    assert provider.outcome.final_text == "It ran."
    assert len(server.model_requests(agent)) == 2


@pytest.mark.parametrize("agent", sorted(PROVIDERS))
async def test_api_error_is_classified(agent, server, offline, agents_bin, tmp_path: Path):
    server.script = Script.from_data({"agents": {agent: [
        {"error": {"status": 401, "message": "invalid api key"}}]}})
    provider = PROVIDERS[agent](offline=offline, bin_dir=agents_bin)
    events = await run(provider, make_request(tmp_path, agent))
    errors = of_type(events, "agent.error")
    assert errors and errors[-1]["category"] == "authentication"
    assert provider.outcome.exit_code != 0
    assert provider.outcome.error.startswith("authentication:")


@pytest.mark.parametrize("agent", sorted(PROVIDERS))
async def test_session_resumes_on_next_turn(agent, server, offline, agents_bin, tmp_path: Path):
    server.script = Script.from_data({"agents": {agent: [
        {"text": "First answer."}, {"text": "Second answer."}]}})
    first = PROVIDERS[agent](offline=offline, bin_dir=agents_bin)
    await run(first, make_request(tmp_path, agent, "Remember the word PAPAYA."))
    session = first.outcome.session_id
    assert session
    second = PROVIDERS[agent](offline=offline, bin_dir=agents_bin)
    await run(second, make_request(tmp_path, agent, "Which word?", session_id=session, turn=2))
    assert second.outcome.exit_code == 0, second.outcome.error
    assert second.outcome.final_text == "Second answer."
    history = server.model_requests(agent)[-1].body
    assert "PAPAYA" in str(history) or history.get("messages", history.get("input",
                                                   history.get("contents", 0))) > 1


def recording_gate(decision: str, modified: dict | None = None):
    from desktop.contract.events import Resolution

    asked: list = []

    async def gate(tool, context):
        asked.append(tool)
        return Resolution(status=decision, modifiedArgs=modified,
                          reason="not this one" if decision == "denied" else None)

    return gate, asked


@pytest.mark.parametrize(("decision", "expect"), [
    ("approved", "original"), ("denied", None), ("modified", "changed")])
async def test_claude_gated_tool_call(decision, expect, server, offline, agents_bin,
                                      tmp_path: Path):
    server.script = Script.from_data({"agents": {"claude": [
        {"shell": "echo original > gated.txt"}, {"text": "Finished."}]}})
    modified = {"command": "echo changed > gated.txt"} if decision == "modified" else None
    gate, asked = recording_gate(decision, modified)
    provider = ClaudeProvider(offline=offline, bin_dir=agents_bin)
    request = make_request(tmp_path, "claude", gated=True, gate=gate)
    events = await run(provider, request)
    assert [t.name for t in asked] == ["Bash"]
    assert asked[0].args["command"] == "echo original > gated.txt"
    proof = request.cwd / "gated.txt"
    completed = of_type(events, "tool.completed")[0]
    if expect is None:
        assert not proof.exists()
        assert completed["result"]["ok"] is False
        assert not of_type(events, "tool.started")
    else:
        assert proof.read_text().strip() == expect
        assert completed["result"]["ok"] is True
        kinds = [e["type"] for e in events if e["type"].startswith("tool.")]
        assert kinds == ["tool.proposed", "tool.started", "tool.completed"]
    assert provider.outcome.final_text == "Finished."


@pytest.mark.parametrize("agent", ["codex", "gemini"])
async def test_gated_node_on_a_provider_that_cannot_gate_fails(agent, offline, agents_bin,
                                                               tmp_path: Path):
    provider = PROVIDERS[agent](offline=offline, bin_dir=agents_bin)
    assert not provider.can_gate
    events = await run(provider, make_request(tmp_path, agent, gated=True))
    assert provider.outcome.exit_code != 0
    assert "cannot hold tool calls" in provider.outcome.error
    assert not of_type(events, "tool.started")
