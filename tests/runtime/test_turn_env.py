"""The agent's environment: allowlist + protocol vars + only its own API key; no leaks."""

import json
import os
import sys
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from desktop.contract.base import new_id
from desktop.contract.events import Resolution
from desktop.contract.protocol_env import JRUN_NAMES
from desktop.contract.state import NodeConfig, NodeState
from desktop.providers.redact import Redactor
from desktop.runtime.agent_env import (
    API_KEY_BY_PROVIDER,
    BASE_VARS,
    WINDOWS_BASE_VARS,
    build_env,
    key_provider,
)
from desktop.runtime.turn import TurnContext, TurnRunner

pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX process groups")

CANARIES = {
    "OPENAI_API_KEY": "canary-openai-0123456789",
    "ANTHROPIC_API_KEY": "canary-anthropic-0123456789",
    "MY_SERVICE_TOKEN": "canary-token-0123456789",
    "DB_PASSWORD": "canary-password-0123456789",
}
INJECTED = {
    "JRUN_PROJECT_ID", "JRUN_TASK_ID", "JRUN_ID", "JRUN_PARENT_ID", "RUNS_DIR", "MESSAGE_BUS",
    "TASK_FOLDER", "RUN_FOLDER", "AGENT_CANVAS_RUN_ID", "AGENT_CANVAS_NODE_ID",
    "AGENT_CANVAS_NODE_KEY", "AGENT_CANVAS_TURN", "AGENT_CANVAS_ATTEMPT",
    "JRUN_RUNS_DIR", "JRUN_MESSAGE_BUS", "JRUN_TASK_FOLDER", "JRUN_RUN_FOLDER",
}
SCRIPTED_EXTRA = {"PYTHONPATH", "PYTHONIOENCODING", "AGENT_CANVAS_SCRIPT", "AGENT_CANVAS_INBOX"}
SHELL_EXTRA = {"PWD", "SHLVL", "_", "OLDPWD"}  # set by /bin/sh for the dump command itself


def _ctx(tmp_path: Path, script, **config) -> tuple[TurnContext, list[dict]]:
    run_id = new_id()
    run_dir = tmp_path / "runs" / run_id
    run_dir.mkdir(parents=True)
    (run_dir / "events.jsonl").write_text(json.dumps({"seq": 1, "runId": run_id}) + "\n")
    events: list[dict] = []

    async def gate(tool, context):
        return Resolution(status="approved")

    ctx = TurnContext(
        run_id=run_id, run_dir=run_dir,
        node=NodeState(id=new_id(), runId=run_id, key="n1", label="N"),
        config=NodeConfig(script=script, **config), global_mode="IMPLEMENTATION",
        items=[], turn_number=1, attempt=1, restart=False,
        parent_agent_run_id="20260101-1200000000-7", previous_agent_run_id=None,
        emit=events.append, gate=gate, conductor_url="http://127.0.0.1:9", project_id="p",
        task_id="t", data_dir=tmp_path)
    return ctx, events


async def test_agent_env_is_exactly_allowlist_plus_injected(tmp_path: Path, monkeypatch):
    for name, value in CANARIES.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("ALLOWED_ONE", "yes")
    monkeypatch.setenv("NOT_ALLOWED", "no")
    # The dump goes outside the run folder: it is the test's probe, not something we store.
    dump_path = tmp_path / "env.json"
    dump = (f"{sys.executable} -c 'import os, json; print(json.dumps(dict(os.environ)))'"
            f" > {dump_path}")
    # DB_PASSWORD is allowlisted, so the agent has it and prints it: it must be redacted.
    script = [{"shell": dump}, {"shell": 'echo "leaking $DB_PASSWORD now"'}]
    ctx, events = _ctx(tmp_path, script,
                       envAllowlist=["ALLOWED_*", "OPENAI_API_KEY", "DB_PASSWORD"])
    result = await TurnRunner().run(ctx)
    assert result.ok
    env = json.loads(dump_path.read_text())
    base = {n for n in BASE_VARS if n in os.environ}
    expected = base | INJECTED | SCRIPTED_EXTRA | {"ALLOWED_ONE", "DB_PASSWORD", "CONDUCTOR_URL",
                                                  "JRUN_CONDUCTOR_URL"}
    assert set(env) - SHELL_EXTRA == expected
    assert "OPENAI_API_KEY" not in env  # another provider's key, even when allowlisted
    assert env["RUN_FOLDER"] == str(ctx.run_dir / "agents" / result.agent_run_id)
    assert env["JRUN_PARENT_ID"] == "20260101-1200000000-7"
    assert env["MESSAGE_BUS"] == str(ctx.run_dir / "events.jsonl")
    for old, new in JRUN_NAMES.items():  # conductor-loop's newer names, the same values
        assert env[new] == env[old], new

    stored = b"".join(p.read_bytes() for p in ctx.run_dir.rglob("*") if p.is_file())
    emitted = json.dumps(events)
    for name, value in CANARIES.items():
        assert value.encode() not in stored, name
        assert value not in emitted, name
    assert "leaking [REDACTED] now" in emitted
    assert "[REDACTED]" in (ctx.run_dir / "agents" / result.agent_run_id /
                            "agent-stdout.txt").read_text()


@pytest.mark.parametrize("provider", sorted(API_KEY_BY_PROVIDER))
def test_each_provider_gets_only_its_own_key(provider: str):
    parent = {name: f"value-of-{name}" for name in API_KEY_BY_PROVIDER.values()}
    parent["PATH"] = "/bin"
    env = build_env(provider, ["*"], {"RUN_FOLDER": "/r"}, parent)
    keys = {n for n in env if n in API_KEY_BY_PROVIDER.values()}
    assert keys == {API_KEY_BY_PROVIDER[provider]}
    assert env["RUN_FOLDER"] == "/r" and env["PATH"] == "/bin"


@given(st.dictionaries(st.from_regex(r"[A-Z][A-Z_]{0,12}", fullmatch=True),
                       st.text(max_size=5), max_size=12),
       st.lists(st.from_regex(r"[A-Z][A-Z_]{0,12}", fullmatch=True), max_size=4))
@example(parent={"PATH": "/bin", "MINE": "1", "OTHER": "2", "OPENAI_API_KEY": "k"},
         allowlist=["MINE", "OPENAI_API_KEY"])
def test_nothing_outside_base_allowlist_and_injected(parent, allowlist):
    env = build_env("scripted", allowlist, {"JRUN_ID": "x"}, parent)
    base = BASE_VARS + (WINDOWS_BASE_VARS if os.name == "nt" else ())
    passed = {name: value for name, value in parent.items()
              if (name in base or name in allowlist)
              and name not in API_KEY_BY_PROVIDER.values()}
    assert env == {**passed, "JRUN_ID": "x"}  # all of those, and nothing else


def test_redactor_covers_text_bytes_and_nested_events():
    red = Redactor(["supersecret-1"])
    event = {"type": "x", "a": ["ok supersecret-1"], "b": {"c": "supersecret-1!"}, "n": 3}
    assert red.event(event) == {"type": "x", "a": ["ok [REDACTED]"],
                                "b": {"c": "[REDACTED]!"}, "n": 3}
    assert red.data(b"xx supersecret-1") == b"xx [REDACTED]"


@pytest.mark.parametrize(("command", "key"), [
    ("claude", "ANTHROPIC_API_KEY"), ("codex", "OPENAI_API_KEY"), (None, "GEMINI_API_KEY"),
    ("gemini --acp", "GEMINI_API_KEY"), ("/opt/bin/claude-code-acp --verbose", "ANTHROPIC_API_KEY"),
])
def test_acp_agents_get_the_key_of_the_agent_they_wrap(command: str | None, key: str):
    parent = {name: f"value-of-{name}" for name in API_KEY_BY_PROVIDER.values()}
    env = build_env(key_provider("acp", command), [], {}, parent)
    assert {n for n in env if n in API_KEY_BY_PROVIDER.values()} == {key}


def test_an_unknown_acp_agent_gets_no_key():
    parent = {name: f"value-of-{name}" for name in API_KEY_BY_PROVIDER.values()}
    assert not set(build_env(key_provider("acp", "my-agent --acp"), ["*"], {}, parent)) & set(
        API_KEY_BY_PROVIDER.values())
