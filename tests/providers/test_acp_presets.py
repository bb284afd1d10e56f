"""How the acp provider passes a node's model and Codex's approval settings to each adapter."""

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from desktop.contract.base import new_id
from desktop.contract.state import NodeConfig, NodeState
from desktop.providers.acp_presets import agent_family, codex_overrides, family_args, family_env
from desktop.providers.acp_provider import AcpProvider
from desktop.providers.base import TurnRequest

RUN_ID = "11111111-2222-4333-8444-555555555555"


def request(tmp_path: Path, command: str, model: str | None = None,
            args: list[str] | None = None) -> TurnRequest:
    node = NodeState(id=new_id(), runId=RUN_ID, key="n", label="N", provider="acp")

    async def gate(tool, context):  # never asked here
        raise AssertionError

    return TurnRequest(run_id=RUN_ID, node=node,
                       config=NodeConfig(command=command, model=model, args=args or []),
                       agent_run_id=new_id(), agent_run_dir=tmp_path, prompt="x", env={},
                       cwd=tmp_path, turn_number=1, gate=gate)


def test_families_of_the_presets_and_paths():
    assert agent_family("/opt/bin/claude-agent-acp") == "claude"
    assert agent_family("claude-code-acp") == "claude"
    assert agent_family("codex-acp") == "codex"
    assert agent_family("gemini") == "gemini"
    assert agent_family("my-agent") is None


def test_model_reaches_each_adapter_its_own_way(tmp_path: Path):
    provider = AcpProvider()
    claude = request(tmp_path, "claude", model="claude-sonnet-4-5")
    assert provider.argv(claude, {"PATH": ""}) == ["claude-agent-acp"]
    assert provider.environment(claude)["ANTHROPIC_MODEL"] == "claude-sonnet-4-5"
    codex = provider.argv(request(tmp_path, "codex", model="gpt-5.4"), {"PATH": ""})
    assert codex[:3] == ["codex-acp", "-c", 'model="gpt-5.4"']
    gemini = provider.argv(request(tmp_path, "gemini", model="gemini-2.5-flash"), {"PATH": ""})
    assert gemini == ["gemini", "--acp", "--model", "gemini-2.5-flash"]
    assert "ANTHROPIC_MODEL" not in provider.environment(request(tmp_path, "codex", "m"))


def test_node_args_win_over_the_preset_settings(tmp_path: Path):
    args = ["-c", 'model="o3"', "--config=approval_policy=\"on-request\""]
    argv = AcpProvider().argv(request(tmp_path, "codex", model="gpt-5.4", args=args),
                              {"PATH": ""})
    assert argv == ["codex-acp", "-c", 'sandbox_mode="danger-full-access"', *args]


@given(st.lists(st.text(max_size=12), max_size=6))
def test_codex_overrides_is_total(words):
    keys = codex_overrides(words)
    assert all(isinstance(k, str) for k in keys)
    assert family_args("codex", None, words).count("-c") <= 2
    assert family_env("other", "m") == {}
