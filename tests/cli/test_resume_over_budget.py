"""`resume` of a run paused over budget: while nothing raised the limit that paused it,
resuming would pause it again at once, so it writes nothing, says whose budget, which
limit and the figures, gives the command that raises it, and exits 3 (paused). A
`budget` line on stdin that lifts the limit lets it go on, with no `resume` line."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from desktop.cli import main
from desktop.views.runs import open_run

SPENT = 1200  # the tokens the first two turns report


def _cli(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
         *args: str, stdin: str = "") -> tuple[int, str, str]:
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def _flow(tmp_path: Path, *, node_budget: bool) -> Path:
    usage = {"usage": {"inputTokens": 300, "outputTokens": 300}}
    doc = {"name": "Budget", "task": "spend", "mode": "AUTO",
           "nodes": [{"id": "n1", "label": "First", "entry": True},
                     {"id": "n2", "label": "Second"}],
           "nodeConfigs": {"n1": {"script": [usage, {"say": "n1 done"}]},
                           "n2": {"script": [usage, {"sleep": 1}, {"say": "n2 done"},
                                             {"done": True}]}},
           "edges": [{"id": "e1", "from": "n1", "to": "n2", "type": "handoff"}]}
    if node_budget:
        doc["nodeConfigs"]["n2"]["budget"] = {"maxTokens": 500}
    else:
        doc["budget"] = {"maxTokens": 1000}
    path = tmp_path / "budget.flow.yaml"
    path.write_text(yaml.safe_dump(doc), encoding="utf-8")
    return path


def _paused_run(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                monkeypatch: pytest.MonkeyPatch, *, node_budget: bool = False
                ) -> tuple[Path, Path, str]:
    """(data folder, run folder, what `run` said) of a run paused over its budget."""
    data = tmp_path / "data"
    code, _out, err = _cli(capsys, monkeypatch, "run",
                           str(_flow(tmp_path, node_budget=node_budget)),
                           "--data-dir", str(data))
    assert code == 3, err
    [folder] = (data / "runs").iterdir()
    assert open_run(folder).budget_exceeded is not None
    return data, folder, err


def test_run_paused_over_budget_gives_the_command_that_raises_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    data, folder, err = _paused_run(tmp_path, capsys, monkeypatch)
    run8 = folder.name[:8]
    assert f"continue with `agent-canvas resume {run8}" not in err
    assert "the run's budget is reached (tokens 1,200 of 1,000)" in err
    assert f"`echo 'budget tokens=N' | agent-canvas resume {run8} --data-dir {data}`" in err
    assert f"PATCH /api/runs/{folder.name}/budget with {{\"maxTokens\": N}}" in err


def test_resume_without_a_raise_writes_nothing_and_says_how_to_raise_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    data, folder, _ = _paused_run(tmp_path, capsys, monkeypatch)
    run8 = folder.name[:8]
    log = (folder / "events.jsonl").read_bytes()
    for _ in range(2):  # it was a run.resumed and a run.budget_exceeded each time
        code, _out, err = _cli(capsys, monkeypatch, "resume", run8, "--data-dir", str(data))
        assert code == 3
        assert (folder / "events.jsonl").read_bytes() == log
        assert "is paused over budget: the run's budget is reached (tokens 1,200 of " \
            "1,000)" in err and "nothing was written" in err
        assert f"`echo 'budget tokens=N' | agent-canvas resume {run8} --data-dir {data}`" \
            in err
        assert "continue with" not in err
    # runs show gives the same way out, not a plain resume
    code, out, _ = _cli(capsys, monkeypatch, "runs", "show", run8, "--data-dir", str(data))
    assert "echo 'budget tokens=N' | agent-canvas resume" in " ".join(out.split())
    assert "resume with `agent-canvas resume" not in out


def test_a_raise_that_leaves_the_limit_reached_writes_nothing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    data, folder, _ = _paused_run(tmp_path, capsys, monkeypatch)
    log = (folder / "events.jsonl").read_bytes()

    @settings(max_examples=10, deadline=None,
              suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(limit=st.integers(1, SPENT))
    def attempt(limit: int) -> None:
        code, _out, err = _cli(capsys, monkeypatch, "resume", folder.name[:8], "--data-dir",
                               str(data), stdin=f"status\nbudget tokens={limit}\n")
        assert code == 3 and (folder / "events.jsonl").read_bytes() == log
        assert "the 1 `budget` line read leaves it reached" in err
        assert "1 other command read not run" in err

    attempt()


def test_a_budget_line_that_lifts_the_limit_resumes_the_run_to_its_end(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    data, folder, _ = _paused_run(tmp_path, capsys, monkeypatch)
    code, out, err = _cli(capsys, monkeypatch, "resume", folder.name[:8], "--data-dir",
                          str(data), stdin=f"budget tokens={SPENT + 2000}\n")
    assert code == 0, out + err
    state = open_run(folder)
    assert state.status == "completed" and state.budget is not None
    assert state.budget.max_tokens == SPENT + 2000


def test_a_node_over_its_own_budget_is_named_with_the_command_for_its_budget(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    data, folder, _ = _paused_run(tmp_path, capsys, monkeypatch, node_budget=True)
    run8 = folder.name[:8]
    log = (folder / "events.jsonl").read_bytes()
    code, _out, err = _cli(capsys, monkeypatch, "resume", run8, "--data-dir", str(data))
    assert code == 3 and (folder / "events.jsonl").read_bytes() == log
    assert "the budget of node Second is reached (tokens 600 of 500)" in err
    assert f"`echo 'budget n2 tokens=N' | agent-canvas resume {run8} --data-dir {data}`" \
        in err
    assert '{"nodeId": "n2", "maxTokens": N}' in err
    code, out, err = _cli(capsys, monkeypatch, "resume", run8, "--data-dir", str(data),
                          stdin="budget Second tokens=5000\n")
    assert code == 0, out + err
    assert open_run(folder).status == "completed"
