"""`echo 'budget NODE tokens=N' | agent-canvas resume RUN --server URL` of a run paused over
budget raises the limit in the service first and then resumes, so the run goes on to its
end as it does in-process, instead of pausing over budget again with the raise coming
after it; without a raise nothing is written and the command that raises it is given."""

from __future__ import annotations

import copy
import io
import itertools
import sys
from pathlib import Path

import orjson
import pytest
import yaml
from service_process import ServeProcess

from desktop.cli import main

USAGE = {"usage": {"inputTokens": 300, "outputTokens": 300}}
FLOW = {"name": "Budget", "task": "spend", "mode": "AUTO",
        "nodes": [{"id": "n1", "label": "First", "entry": True},
                  {"id": "n2", "label": "Second"}],
        "nodeConfigs": {"n1": {"script": [USAGE, {"say": "n1 done"}]},
                        "n2": {"script": [USAGE, {"sleep": 1}, {"say": "n2 done"},
                                          {"done": True}],
                               "budget": {"maxTokens": 500}}},
        "edges": [{"id": "e1", "from": "n1", "to": "n2", "type": "handoff"}]}


@pytest.fixture(scope="module")
def service(tmp_path_factory) -> ServeProcess:
    svc = ServeProcess(tmp_path_factory.mktemp("budget-service"))
    yield svc
    svc.stop()


def _cli(capsys, monkeypatch, *args: str, stdin: str = "") -> tuple[int, str, str]:
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def _paused(service: ServeProcess, tmp_path: Path, capsys, monkeypatch, *,
            in_service: bool, run_budget: bool = False) -> str:
    """The id of a run paused over n2's budget (or the run's): held by the service, or
    left by a run in this process in the service's data folder (which no engine holds)."""
    doc = copy.deepcopy(FLOW)
    if run_budget:
        del doc["nodeConfigs"]["n2"]["budget"]
        doc["budget"] = {"maxTokens": 1000}
    path = tmp_path / "budget.flow.yaml"
    path.write_text(yaml.safe_dump(doc), encoding="utf-8")
    where = ["--data-dir", str(service.data_dir)]
    if in_service:
        where += ["--server", service.url]
    code, _out, err = _cli(capsys, monkeypatch, "run", str(path), *where)
    assert code == 3, err
    runs = orjson.loads(_cli(capsys, monkeypatch, "runs", "list", "--json", *where)[1])
    return str(runs[0]["id"])


def _types(service: ServeProcess, run_id: str) -> list[str]:
    """The log's event types; the raise of a budget reads ``budget.raised``."""
    lines = (service.data_dir / "runs" / run_id / "events.jsonl").read_bytes().splitlines()
    events = [orjson.loads(line) for line in lines]
    return ["budget.raised" if "budget" in (e.get("config") or e.get("patch") or {})
            else e["type"] for e in events]


@pytest.mark.parametrize("in_service", [True, False])
@pytest.mark.parametrize("run_budget", [True, False])
def test_a_budget_line_raises_the_limit_before_the_run_resumes(
        service, tmp_path, capsys, monkeypatch, in_service: bool, run_budget: bool) -> None:
    run_id = _paused(service, tmp_path, capsys, monkeypatch, in_service=in_service,
                     run_budget=run_budget)
    server = ["--server", service.url, "--data-dir", str(service.data_dir)]
    line = "budget tokens=5000" if run_budget else "budget second tokens=5000"
    code, out, err = _cli(capsys, monkeypatch, "resume", run_id[:8], *server,
                          stdin=line + "\n")
    assert code == 0, out + err
    types = _types(service, run_id)
    assert types[-1] == "run.completed"
    raised = types.index("budget.raised")
    # the resume right after the raise lets the run go on: no pause over budget since
    assert types[raised + 1] == "run.resumed"
    assert "run.budget_exceeded" not in types[raised:]
    assert not any(a == b == "run.budget_exceeded" for a, b in itertools.pairwise(types))


def test_without_a_raise_nothing_is_written_and_the_way_out_is_said(
        service, tmp_path, capsys, monkeypatch) -> None:
    run_id = _paused(service, tmp_path, capsys, monkeypatch, in_service=True)
    log = (service.data_dir / "runs" / run_id / "events.jsonl").read_bytes()
    code, _out, err = _cli(capsys, monkeypatch, "resume", run_id[:8], "--server",
                           service.url, "--data-dir", str(service.data_dir),
                           stdin="budget second tokens=100\n")
    assert code == 3
    assert (service.data_dir / "runs" / run_id / "events.jsonl").read_bytes() == log
    assert "the budget of node Second is reached" in err and "nothing was written" in err
    assert f"| agent-canvas resume {run_id[:8]} --server {service.url}`" in err
