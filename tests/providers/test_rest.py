"""REST backends (perplexity, xai) against the fake model server's chat completions wire."""

from pathlib import Path

import pytest

from desktop.contract.base import new_id
from desktop.contract.events import parse_event
from desktop.contract.state import NodeConfig, NodeState
from desktop.providers.base import TurnRequest
from desktop.providers.fakeserver import FakeModelServer, Script
from desktop.providers.rest import RestProvider

RUN_ID = "11111111-2222-4333-8444-555555555555"


def request(tmp_path: Path, name: str, env: dict[str, str]) -> TurnRequest:
    node = NodeState(id=new_id(), runId=RUN_ID, label="r", provider=name)

    async def gate(tool, context):  # pragma: no cover - REST offers no tools
        raise AssertionError

    return TurnRequest(run_id=RUN_ID, node=node, config=NodeConfig(), agent_run_id="x",
                       agent_run_dir=tmp_path, prompt="Hello?", env=env, cwd=tmp_path,
                       turn_number=1, gate=gate)


async def collect(provider: RestProvider, req: TurnRequest) -> list[dict]:
    return [event async for event in provider.start(req)]


@pytest.mark.parametrize("name", ["perplexity", "xai"])
async def test_streamed_text_usage_and_key_by_name(name, tmp_path: Path):
    script = Script.from_data([{"text": "Streaming answer here.", "chunk": 4}])
    async with FakeModelServer(script) as server:
        key = f"{name.upper()}_API_KEY"
        provider = RestProvider(name)
        events = await collect(provider, request(tmp_path, name, {
            key: "value-of-the-key", f"{name.upper()}_BASE_URL": f"{server.url}/v1"}))
        assert server.requests[-1].wire == "chat"
        assert "authorization" in [h.lower() for h in server.requests[-1].headers]
    for event in events:
        parse_event({**event, "runId": RUN_ID})
    deltas = [e["text"] for e in events if e["type"] == "message.assistant.delta"]
    assert len(deltas) > 1 and "".join(deltas) == "Streaming answer here."
    assert provider.outcome.final_text == "Streaming answer here."
    assert provider.outcome.exit_code == 0
    assert any(e["type"] == "telemetry.usage" for e in events)
    assert "value-of-the-key" not in repr(events)


async def test_http_error_is_classified(tmp_path: Path):
    script = Script.from_data([{"error": {"status": 429, "message": "slow down"}}])
    async with FakeModelServer(script) as server:
        provider = RestProvider("xai")
        events = await collect(provider, request(tmp_path, "xai", {
            "XAI_API_KEY": "k" * 10, "XAI_BASE_URL": server.url}))
    assert events[-1]["type"] == "agent.error" and events[-1]["category"] == "rate_limit"
    assert provider.outcome.exit_code == 1 and "slow down" in provider.outcome.error


async def test_missing_key_is_an_authentication_error(tmp_path: Path):
    provider = RestProvider("perplexity")
    events = await collect(provider, request(tmp_path, "perplexity", {}))
    assert events[0]["category"] == "authentication"
    assert "PERPLEXITY_API_KEY" in provider.outcome.error


async def test_unreachable_server_is_a_network_error(tmp_path: Path):
    provider = RestProvider("xai")
    events = await collect(provider, request(tmp_path, "xai", {
        "XAI_API_KEY": "k" * 10, "XAI_BASE_URL": "http://127.0.0.1:9"}))
    assert events[-1]["category"] == "network"
