"""API keys in the OS keyring: stored and removed by name, refused with a clear message,
and handed to an agent by name (redacted everywhere a run keeps anything)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import keyring
import pytest
from hypothesis import given
from hypothesis import strategies as st
from keyring.backends import fail

from desktop.contract.base import new_id
from desktop.contract.events import Resolution
from desktop.contract.state import NodeConfig, NodeState
from desktop.disk import keychain
from desktop.providers import registry
from desktop.runtime.turn import TurnContext, TurnRunner

KEY = "sk-ant-keyring-canary-0123456789"


def test_a_key_is_stored_listed_and_removed_by_name(memory_keyring, monkeypatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    keychain.set_key("ANTHROPIC_API_KEY", f"  {KEY}\t")
    assert memory_keyring.values == {(keychain.SERVICE, "ANTHROPIC_API_KEY"): KEY}
    status = {s.name: s for s in keychain.statuses({})}
    assert status["ANTHROPIC_API_KEY"].in_keyring
    assert status["ANTHROPIC_API_KEY"].providers == ("claude",)
    assert not status["OPENAI_API_KEY"].in_keyring
    assert keychain.keyring_env({}) == {"ANTHROPIC_API_KEY": KEY}
    # a key exported in the environment wins: the keyring's is not used
    assert keychain.keyring_env({"ANTHROPIC_API_KEY": "from-env"}) == {}
    assert keychain.delete_key("ANTHROPIC_API_KEY")
    assert not keychain.delete_key("ANTHROPIC_API_KEY")
    assert keychain.keyring_env({}) == {}


@pytest.mark.parametrize(("name", "value", "says"), [
    ("HOME", "whatever-value", "not a provider key"),
    ("OPENAI_API_KEY", "   ", "empty"),
    ("OPENAI_API_KEY", "sk-one\nsk-two", "one line"),
    ("OPENAI_API_KEY", "x" * 5000, "one line"),
])
def test_bad_names_and_values_are_refused(memory_keyring, name, value, says) -> None:
    with pytest.raises(keychain.KeychainError, match=says):
        keychain.set_key(name, value)
    assert memory_keyring.values == {}


def test_without_a_keyring_storing_says_what_to_do_and_reading_finds_nothing() -> None:
    keyring.set_keyring(fail.Keyring())
    assert not keychain.available()
    with pytest.raises(keychain.KeychainError, match="export the variable"):
        keychain.set_key("GEMINI_API_KEY", "gm-0123456789")
    assert keychain.keyring_env({}) == {}
    assert not any(s.in_keyring for s in keychain.statuses({}))


@given(st.text(alphabet=st.characters(blacklist_characters="\r\n\0",
                                       blacklist_categories=("Cs",)), min_size=1, max_size=200))
def test_any_one_line_key_comes_back_as_stored(value: str) -> None:
    keyring.set_keyring(ring := type(keyring.get_keyring())())
    if not value.strip():
        with pytest.raises(keychain.KeychainError):
            keychain.set_key("XAI_API_KEY", value)
        return
    keychain.set_key("XAI_API_KEY", value)
    assert ring.get_password(keychain.SERVICE, "XAI_API_KEY") == value.strip()
    assert keychain.keyring_env({}) == {"XAI_API_KEY": value.strip()}


@pytest.mark.skipif(os.name != "posix", reason="shell steps")
async def test_an_agent_gets_its_keyring_key_by_name_and_no_file_or_event_holds_it(
        tmp_path: Path, memory_keyring, monkeypatch) -> None:
    for name in keychain.key_names():
        monkeypatch.delenv(name, raising=False)
    keychain.set_key("ANTHROPIC_API_KEY", KEY)
    keychain.set_key("OPENAI_API_KEY", "sk-openai-other-0123456789")
    run_id = new_id()
    run_dir = tmp_path / "data" / "runs" / run_id
    run_dir.mkdir(parents=True)
    (run_dir / "events.jsonl").write_text(json.dumps({"seq": 1, "runId": run_id}) + "\n")
    probe = tmp_path / "env.json"  # the test's probe, outside every folder the app keeps
    dump = f"{sys.executable} -c 'import os, json; print(json.dumps(dict(os.environ)))' > {probe}"
    script = [{"shell": dump}, {"shell": 'echo "my key is $ANTHROPIC_API_KEY"'},
              {"shell": 'echo "# key $ANTHROPIC_API_KEY" > "$RUN_FOLDER/output.md"'},
              {"say": "done"}]
    events: list[dict] = []

    async def gate(tool, context):
        return Resolution(status="approved")

    ctx = TurnContext(
        run_id=run_id, run_dir=run_dir,
        # a claude node, run by the scripted agent: it gets claude's key, as claude would
        node=NodeState(id=new_id(), runId=run_id, key="n1", label="N", provider="claude"),
        config=NodeConfig(script=script), global_mode="IMPLEMENTATION", items=[],
        turn_number=1, attempt=1, restart=False, parent_agent_run_id=None,
        previous_agent_run_id=None, emit=events.append, gate=gate, conductor_url=None,
        project_id="p", task_id="t", data_dir=tmp_path / "data")
    result = await TurnRunner(lambda _name: registry.create("scripted")).run(ctx)
    assert result.ok, result.error
    env = json.loads(probe.read_text())
    assert env["ANTHROPIC_API_KEY"] == KEY
    assert "OPENAI_API_KEY" not in env  # another provider's key stays in the keyring
    kept = b"".join(p.read_bytes() for p in (tmp_path / "data").rglob("*") if p.is_file())
    assert KEY.encode() not in kept
    assert KEY not in json.dumps(events)
    assert "my key is [REDACTED]" in json.dumps(events)


def test_a_keyring_found_in_the_background_is_the_one_keys_are_read_from(
        memory_keyring, monkeypatch) -> None:
    monkeypatch.delenv("XAI_API_KEY", raising=False)
    monkeypatch.setattr(keychain, "_detecting", None)
    memory_keyring.values[(keychain.SERVICE, "XAI_API_KEY")] = "xai-0123456789"
    keychain.detect_soon()
    keychain.detect_soon()  # asked again while (or after) it looks: one search
    assert keychain.keyring_env({}) == {"XAI_API_KEY": "xai-0123456789"}
    assert keychain._detecting is not None and not keychain._detecting.is_alive()
