"""The acp provider's ``claude`` and ``codex`` presets: the ACP adapters of Claude Code
(``claude-agent-acp``, over the Claude Agent SDK) and Codex (``codex-acp``), against the
fake model server, with tool calls approved and denied through the gate."""

from pathlib import Path

import pytest

from desktop.contract.state import NodeConfig
from desktop.providers.acp_provider import AcpProvider
from desktop.providers.fakeserver import Script
from tests.agents.acp_helpers import of_type, recording_gate, run
from tests.agents.conftest import make_request

pytestmark = pytest.mark.timeout(300)
# Preset -> a model the node names (it must reach the fake server).
ADAPTERS = {"claude": "claude-sonnet-4-5", "codex": "gpt-5.4"}


def adapter_request(tmp_path: Path, preset: str, **kwargs):
    """A node keyed ``preset`` (its fake-server script) running the acp ``preset``."""
    request = make_request(tmp_path, preset, **kwargs)
    request.config = NodeConfig(command=preset, model=ADAPTERS[preset])
    return request


@pytest.mark.parametrize("preset", sorted(ADAPTERS))
async def test_adapter_text_turn(preset, server, offline, agents_bin, tmp_path: Path):
    server.script = Script.from_data({"agents": {preset: [{"text": "Hello over ACP."}]}})
    provider = AcpProvider(offline=offline, bin_dir=agents_bin)
    events = await run(provider, adapter_request(tmp_path, preset))
    assert provider.outcome.exit_code == 0, provider.outcome.error
    assert provider.outcome.final_text == "Hello over ACP."
    assert [e["text"] for e in of_type(events, "message.assistant.final")] == ["Hello over ACP."]
    assert provider.outcome.session_id
    assert Path(provider.outcome.commandline.split()[0]).name.endswith("-acp")
    requests = server.model_requests(preset)
    assert len(requests) == 1
    assert requests[0].model == ADAPTERS[preset]  # the node's model reached the adapter


@pytest.mark.parametrize("decision", ["approved", "denied"])
@pytest.mark.parametrize("preset", sorted(ADAPTERS))
async def test_adapter_tool_call_through_the_gate(preset, decision, server, offline,
                                                  agents_bin, tmp_path: Path):
    server.script = Script.from_data({"agents": {preset: [
        {"shell": "echo gated > gated.txt"}, {"text": "Finished."}]}})
    gate, asked = recording_gate(decision)
    provider = AcpProvider(offline=offline, bin_dir=agents_bin)
    request = adapter_request(tmp_path, preset, gated=True, gate=gate)
    events = await run(provider, request)
    assert provider.outcome.exit_code == 0, provider.outcome.error
    assert [t.name for t in asked] == ["shell"]
    command = asked[0].args["command"]
    assert "echo gated > gated.txt" in (command if isinstance(command, str) else command[-1])
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
    if decision == "denied" and preset == "codex":
        # Codex offers no "deny and go on": its only rejection ("abort") ends the turn to wait
        # for instructions. The turn still ends normally, saying so.
        notes = [e["text"] for e in of_type(events, "node.log")]
        assert any("after a denied tool call" in n for n in notes)
        assert len(server.model_requests(preset)) == 1
    else:
        assert provider.outcome.final_text == "Finished."
        assert len(server.model_requests(preset)) == 2
