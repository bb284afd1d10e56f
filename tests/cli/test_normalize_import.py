"""``normalize`` and ``import`` on streams recorded from the real CLIs."""

import argparse
import json
from pathlib import Path

import pytest

from desktop.cli import import_run, normalize
from desktop.contract.events import parse_event
from desktop.views.runs import open_run

FIXTURES = Path(__file__).parents[1] / "providers" / "fixtures"


def run_cmd(module, argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    module.register(parser.add_subparsers())
    args = parser.parse_args(argv)
    return args.handler(args)


@pytest.mark.parametrize("agent", ["claude", "codex", "gemini"])
def test_normalize_prints_contract_events(agent, capsys):
    assert run_cmd(normalize, ["normalize", "--provider", agent,
                               str(FIXTURES / f"{agent}-tool.jsonl")]) == 0
    lines = capsys.readouterr().out.splitlines()
    events = [parse_event(json.loads(line)) for line in lines]
    types = [e.type for e in events]
    assert "tool.completed" in types and "message.assistant.final" in types


def test_normalize_reports_garbage_without_failing(tmp_path: Path, capsys):
    stream = tmp_path / "s.jsonl"
    stream.write_bytes(b'not json\n{"type":"init","session_id":"s1"}\n\xff\xfe\n')
    assert run_cmd(normalize, ["normalize", "--provider", "gemini", str(stream)]) == 0
    out = capsys.readouterr()
    events = [json.loads(line) for line in out.out.splitlines()]
    assert [e["type"] for e in events] == ["node.log", "node.patch", "node.log"]
    assert "not JSON" in out.err


def test_normalize_missing_file_is_a_clear_error(tmp_path: Path, capsys):
    assert run_cmd(normalize, ["normalize", "--provider", "codex",
                               str(tmp_path / "nope.jsonl")]) == 2
    assert "nope.jsonl" in capsys.readouterr().err


@pytest.mark.parametrize(("name", "status"), [("codex-tool", "completed"),
                                              ("claude-auth", "failed")])
def test_import_makes_a_run_that_opens(name, status, tmp_path: Path, capsys):
    data = tmp_path / "data"
    assert run_cmd(import_run, ["import", "--provider", name.split("-")[0],
                                str(FIXTURES / f"{name}.jsonl"), "--data-dir", str(data)]) == 0
    run_id = capsys.readouterr().out.strip()
    state = open_run(data / "runs" / run_id)
    assert state.status == status
    node = next(iter(state.nodes.values()))
    assert node.session.session_id
    assert (data / "runs" / run_id / "agents").is_dir()
