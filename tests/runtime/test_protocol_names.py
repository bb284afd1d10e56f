"""Both generations of the agent protocol's variable names: the spec's and conductor-loop's
``JRUN_*`` names reach agents with the same values, the preamble names both, and `bus
post` finds the bus under either."""

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from desktop.contract.protocol_env import JRUN_NAMES, protocol_value, with_newer_names
from desktop.providers import bus_client
from desktop.runtime.agent_env import build_env, protocol_vars
from desktop.runtime.prompt import preamble

NEWER = {"JRUN_TASK_FOLDER", "JRUN_RUN_FOLDER", "JRUN_MESSAGE_BUS", "JRUN_RUNS_DIR",
         "JRUN_CONDUCTOR_URL"}


def _vars(tmp_path: Path, url: str | None) -> dict[str, str]:
    return protocol_vars(run_id="r1", run_dir=tmp_path / "runs" / "r1",
                         agent_run_dir=tmp_path / "runs" / "r1" / "agents" / "a1",
                         agent_run_id="a1", parent_agent_run_id=None, project_id="p",
                         task_id="t", conductor_url=url, node_id="n", node_key=None,
                         turn_number=1, attempt=1)


def test_the_newer_names_are_conductor_loops() -> None:
    assert set(JRUN_NAMES.values()) == NEWER
    assert set(JRUN_NAMES) == {"TASK_FOLDER", "RUN_FOLDER", "MESSAGE_BUS", "RUNS_DIR",
                               "CONDUCTOR_URL"}


@pytest.mark.parametrize("url", ["http://127.0.0.1:8765", None])
def test_agents_get_both_generations_with_the_same_values(tmp_path: Path, url) -> None:
    env = build_env("claude", [], _vars(tmp_path, url), parent={})
    for old, new in JRUN_NAMES.items():
        if old == "CONDUCTOR_URL" and url is None:
            assert old not in env and new not in env
            continue
        assert env[new] == env[old], new
    assert env["JRUN_MESSAGE_BUS"] == str(tmp_path / "runs" / "r1" / "events.jsonl")


def test_the_preamble_names_both(tmp_path: Path) -> None:
    env = _vars(tmp_path, "http://127.0.0.1:8765")
    text = preamble(env, env["RUN_FOLDER"], "agent-canvas bus post")
    assert f"TASK_FOLDER={env['TASK_FOLDER']}" in text
    for old, new in JRUN_NAMES.items():
        assert f"{new} (= {old})" in text


@given(st.dictionaries(st.sampled_from([*JRUN_NAMES, "JRUN_ID", "HOME"]),
                       st.text(min_size=1, max_size=8)))
def test_either_name_gives_the_value(env: dict[str, str]) -> None:
    both = with_newer_names(env)
    for old, new in JRUN_NAMES.items():
        assert protocol_value(both, old) == env.get(old)
        assert protocol_value({new: "v"}, old) == "v"


def test_bus_post_finds_the_bus_under_the_newer_name(tmp_path: Path, monkeypatch) -> None:
    bus = tmp_path / "runs" / "r1" / "events.jsonl"
    bus.parent.mkdir(parents=True)
    bus.write_text("")
    for name in [*JRUN_NAMES, *JRUN_NAMES.values()]:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("JRUN_MESSAGE_BUS", str(bus))
    monkeypatch.setenv("JRUN_ID", "a1")
    bus_client.post_message("FACT", "found it")
    assert "found it" in bus.read_text()
