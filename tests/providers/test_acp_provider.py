"""The acp provider end to end against a scripted ACP agent (no npm needed)."""

import asyncio
import os
import sys
from pathlib import Path

import pytest

from desktop.contract.base import new_id
from desktop.contract.events import Resolution, parse_event
from desktop.contract.state import NodeConfig, NodeState, Permissions
from desktop.providers import registry
from desktop.providers.acp_provider import AcpProvider
from desktop.providers.base import TurnRequest

pytestmark = pytest.mark.timeout(60)
AGENT = Path(__file__).with_name("fake_acp_agent.py")
RUN_ID = "11111111-2222-4333-8444-555555555555"


def recording_gate(decision: str):
    asked: list = []

    async def gate(tool, context):
        asked.append((tool, context))
        return Resolution(status=decision, reason="no" if decision == "denied" else None,
                          modifiedArgs={"command": "echo x"} if decision == "modified" else None)

    return gate, asked


def request(tmp_path: Path, prompt: str, gate=None, session_id: str | None = None,
            command: str | None = None) -> TurnRequest:
    run_dir = tmp_path / "run"
    folder = run_dir / "agents" / "a1"
    folder.mkdir(parents=True, exist_ok=True)
    work = tmp_path / "workspace"
    work.mkdir(exist_ok=True)
    node = NodeState(id=new_id(), runId=RUN_ID, key="acp", label="acp node", provider="acp",
                     permissions=Permissions(cliPermissionsMode="gated"))
    config = NodeConfig(command=command or f"{sys.executable} -u {AGENT}")
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG")}
    return TurnRequest(run_id=RUN_ID, node=node, config=config, agent_run_id="a1",
                       agent_run_dir=folder, prompt=prompt, env=env, cwd=work, turn_number=1,
                       gate=gate or recording_gate("approved")[0], session_id=session_id,
                       stdout_path=folder / "agent-stdout.txt",
                       stderr_path=folder / "agent-stderr.txt")


async def run(provider: AcpProvider, req: TurnRequest) -> list[dict]:
    events = [event async for event in provider.start(req)]
    for event in events:  # every event is a valid contract event
        parse_event({**event, "runId": RUN_ID})
    return events


def of_type(events: list[dict], kind: str) -> list[dict]:
    return [e for e in events if e["type"] == kind]


def test_registered_and_can_gate():
    assert "acp" in registry.available()
    assert registry.can_gate("acp")


async def test_text_turn(tmp_path: Path):
    provider = AcpProvider()
    req = request(tmp_path, "Say hi. PLAN")
    events = await run(provider, req)
    assert provider.outcome.exit_code == 0, provider.outcome.error
    assert provider.outcome.final_text == "All done."
    assert provider.outcome.session_id == "fake-session-1"
    assert [e["text"] for e in of_type(events, "message.assistant.delta")] == ["All ", "done."]
    assert [e["text"] for e in of_type(events, "message.assistant.final")] == ["All done."]
    assert of_type(events, "message.assistant.thinking.final")[0]["text"] == "Let me think."
    plan = of_type(events, "node.progress")[0]
    assert plan["message"] == "plan: 1/2 done; now: Write"
    assert [e["content"] for e in plan["plan"]] == ["Read", "Write"]
    usage = of_type(events, "telemetry.usage")[0]
    assert (usage["inputTokens"], usage["outputTokens"]) == (12, 5)
    assert "fake acp agent ready" in (req.stderr_path.read_text())
    assert '"session/prompt"' not in req.stdout_path.read_text()  # only the agent's side
    assert provider.process is not None and provider.process.exit_code is not None


async def test_approved_tool_writes_in_workspace_and_records_a_diff(tmp_path: Path):
    gate, asked = recording_gate("approved")
    provider = AcpProvider()
    req = request(tmp_path, "TOOL", gate)
    events = await run(provider, req)
    assert [t.name for t, _ in asked] == ["shell"]
    assert asked[0][0].args["command"] == "echo hi > out.txt"
    kinds = [e["type"] for e in events if e["type"].startswith("tool.")]
    assert kinds == ["tool.proposed", "tool.started", "tool.completed"]
    assert of_type(events, "tool.completed")[0]["result"]["ok"] is True
    assert (req.cwd / "out.txt").read_text() == "hi\n"
    artifact = of_type(events, "artifact.created")[0]["artifact"]
    assert artifact["kind"] == "diff" and not Path(artifact["path"]).is_absolute()
    patch = (tmp_path / "run" / artifact["path"]).read_text()
    assert "+hi" in patch and "/dev/null" in patch
    assert provider.outcome.exit_code == 0


async def test_denied_tool_does_not_run(tmp_path: Path):
    gate, asked = recording_gate("denied")
    provider = AcpProvider()
    req = request(tmp_path, "TOOL", gate)
    events = await run(provider, req)
    assert len(asked) == 1
    assert not (req.cwd / "out.txt").exists()
    assert not of_type(events, "tool.started")
    completed = of_type(events, "tool.completed")[0]
    assert completed["result"]["ok"] is False
    assert provider.outcome.final_text == "All done."


async def test_modified_is_allowed_with_a_note(tmp_path: Path):
    gate, _ = recording_gate("modified")
    events = await run(AcpProvider(), request(tmp_path, "TOOL", gate))
    assert (tmp_path / "workspace" / "out.txt").exists()
    notes = [e["text"] for e in of_type(events, "node.log")]
    assert any("ACP cannot pass" in n for n in notes)


async def test_a_failing_gate_never_allows(tmp_path: Path):
    async def broken(tool, context):
        raise RuntimeError("run stopping")

    events = await run(AcpProvider(), request(tmp_path, "TOOL", broken))
    assert not (tmp_path / "workspace" / "out.txt").exists()
    assert not of_type(events, "tool.started")


async def test_reads_outside_the_workspace_are_refused(tmp_path: Path):
    provider = AcpProvider()
    await run(provider, request(tmp_path, "ESCAPE"))
    assert provider.outcome.final_text.startswith("read refused.")


async def test_unknown_updates_and_noise_become_raw_events(tmp_path: Path):
    provider = AcpProvider()
    events = await run(provider, request(tmp_path, "WEIRD"))
    raw = of_type(events, "agent.raw")
    assert any(e["line"].get("sessionUpdate") == "mystery_update" for e in raw)
    assert any(e.get("problem") == "not-json-rpc" for e in of_type(events, "node.log"))
    assert provider.outcome.exit_code == 0


async def test_prompt_error_is_classified(tmp_path: Path):
    provider = AcpProvider()
    events = await run(provider, request(tmp_path, "FAIL"))
    assert provider.outcome.exit_code == 1
    assert of_type(events, "agent.error")[0]["category"] == "authentication"
    assert provider.outcome.error.startswith("authentication:")


async def test_resume_loads_the_session_without_replaying_it(tmp_path: Path):
    provider = AcpProvider()
    events = await run(provider, request(tmp_path, "again", session_id="fake-session-1"))
    assert provider.outcome.session_id == "fake-session-1"
    assert [e["text"] for e in of_type(events, "message.assistant.final")] == ["All done."]
    unknown = AcpProvider()
    events = await run(unknown, request(tmp_path, "again", session_id="gone"))
    assert unknown.outcome.exit_code == 0
    assert any("cannot load session gone" in e["text"] for e in of_type(events, "node.log"))


async def test_a_replay_streamed_after_the_load_answer_stays_out_of_the_turn(tmp_path: Path):
    provider = AcpProvider()
    events = await run(provider, request(tmp_path, "again", session_id="fake-session-late"))
    assert provider.outcome.session_id == "fake-session-late"
    assert [e["text"] for e in of_type(events, "message.assistant.final")] == ["All done."]
    assert not [e for e in events if "earlier" in str(e)]
    assert provider.outcome.final_text == "All done."


async def test_cancel_ends_the_process_group(tmp_path: Path):
    provider = AcpProvider()
    req = request(tmp_path, "HANG")
    seen: list[dict] = []

    async def consume():
        async for event in provider.start(req):
            seen.append(event)

    task = asyncio.create_task(consume())
    while not any(e["type"] == "message.assistant.thinking.delta" for e in seen):
        await asyncio.sleep(0.01)
    await provider.cancel()
    await asyncio.wait_for(task, 20)
    assert provider.outcome.exit_code != 0
    assert provider.outcome.error == "the agent was stopped"
    from desktop.providers.process import group_members
    assert not group_members(provider.outcome.pgid)


async def test_missing_command_fails_cleanly(tmp_path: Path):
    provider = AcpProvider()
    events = await run(provider, request(tmp_path, "hi", command="/nonexistent/acp-agent"))
    assert provider.outcome.exit_code == 127
    assert "cannot start" in of_type(events, "node.log")[0]["text"]


def test_presets_pick_the_adapters(tmp_path: Path):
    req = request(tmp_path, "x", command="gemini")
    argv = AcpProvider().argv(req, {"PATH": ""})
    assert argv[:2] == ["gemini", "--acp"]
    req.config.command = "claude"
    assert AcpProvider().argv(req, {"PATH": ""}) == ["claude-agent-acp"]
    req.config.command = "codex"
    assert AcpProvider().argv(req, {"PATH": ""}) == [
        "codex-acp", "-c", 'approval_policy="untrusted"', "-c", 'sandbox_mode="danger-full-access"']
