"""The acp provider with Gemini CLI in ACP mode, against the fake model server."""

from pathlib import Path

import pytest

from desktop.contract.state import NodeConfig
from desktop.providers.acp_provider import AcpProvider
from desktop.providers.fakeserver import Script
from tests.agents.acp_helpers import of_type, recording_gate, run
from tests.agents.conftest import make_request

pytestmark = pytest.mark.timeout(300)
KEY = "gemini"  # the fake server plays the Gemini wire for this node key


def gemini_request(tmp_path: Path, prompt: str = "Do the task.", **kwargs):
    request = make_request(tmp_path, KEY, prompt, **kwargs)
    request.config = NodeConfig(command="gemini")
    return request


async def test_gemini_acp_text(server, offline, agents_bin, tmp_path: Path):
    server.script = Script.from_data({"agents": {KEY: [{"text": "Hello over ACP."}]}})
    provider = AcpProvider(offline=offline, bin_dir=agents_bin)
    events = await run(provider, gemini_request(tmp_path))
    assert provider.outcome.exit_code == 0, provider.outcome.error
    assert provider.outcome.final_text == "Hello over ACP."
    assert provider.outcome.session_id
    assert of_type(events, "message.assistant.delta")
    assert of_type(events, "telemetry.usage")
    assert provider.outcome.commandline.split()[1] == "--acp"


@pytest.mark.parametrize("decision", ["approved", "denied"])
async def test_gemini_acp_tool_call_through_the_gate(decision, server, offline, agents_bin,
                                                     tmp_path: Path):
    server.script = Script.from_data({"agents": {KEY: [
        {"shell": "echo gated > gated.txt"}, {"text": "Finished."}]}})
    gate, asked = recording_gate(decision)
    provider = AcpProvider(offline=offline, bin_dir=agents_bin)
    request = gemini_request(tmp_path, gated=True, gate=gate)
    events = await run(provider, request)
    assert provider.outcome.exit_code == 0, provider.outcome.error
    assert [t.name for t in asked] == ["shell"]
    assert "echo gated > gated.txt" in asked[0].args["command"]
    proof = request.cwd / "gated.txt"
    completed = of_type(events, "tool.completed")
    assert len(completed) == 1
    if decision == "approved":
        assert proof.read_text().strip() == "gated"
        assert completed[0]["result"]["ok"] is True
        kinds = [e["type"] for e in events if e["type"].startswith("tool.")]
        assert kinds == ["tool.proposed", "tool.started", "tool.completed"]
    else:
        assert not proof.exists()
        assert completed[0]["result"]["ok"] is False
        assert not of_type(events, "tool.started")
    assert provider.outcome.final_text == "Finished."


async def test_gemini_acp_resumes_its_session(server, offline, agents_bin, tmp_path: Path):
    server.script = Script.from_data({"agents": {KEY: [
        {"text": "First answer."}, {"text": "Second answer."}]}})
    first = AcpProvider(offline=offline, bin_dir=agents_bin)
    await run(first, gemini_request(tmp_path, "Remember the word PAPAYA."))
    session = first.outcome.session_id
    second = AcpProvider(offline=offline, bin_dir=agents_bin)
    events = await run(second, gemini_request(tmp_path, "Which word?", session_id=session,
                                              turn=2))
    assert second.outcome.exit_code == 0, second.outcome.error
    assert [e["text"] for e in of_type(events, "message.assistant.final")] == ["Second answer."]
    if second.outcome.session_id == session:
        assert server.model_requests(KEY)[-1].body["contents"] > 1  # the history came along
    else:
        # Gemini CLI 0.61's session/load first re-creates the session's recording file; within
        # the same minute that is the saved file itself (its name has minute precision), so the
        # history is wiped before it is read. The turn then goes on in a new session, saying so.
        notes = [e["text"] for e in of_type(events, "node.log")]
        assert any(f"cannot load session {session}" in n for n in notes)
