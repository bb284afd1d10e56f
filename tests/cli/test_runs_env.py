"""`runs show` lists each agent run's sandbox and runner hash; `runs diff-env` names the
environment fields that differ between two runs."""

import json
from pathlib import Path

import pytest

from desktop.cli import main
from desktop.graph.io import load_workflow
from desktop.store.runner import runner_hash
from tests.runtime.engine_helpers import run_doc

EXAMPLE = Path(__file__).parents[2] / "resources" / "examples" / "single-agent.flow.yaml"


async def run_example(data_dir: Path, **config) -> str:
    doc = load_workflow(EXAMPLE)
    cfg = doc.config("implementer").model_copy(update=config)
    doc.node_configs["implementer"] = cfg
    engine = await run_doc(doc, data_dir)
    assert engine.state.status == "completed"
    return engine.state.id


@pytest.fixture
async def two_runs(tmp_path: Path) -> tuple[Path, str, str, str]:
    first = await run_example(tmp_path)
    same = await run_example(tmp_path)
    other = await run_example(tmp_path, command_blocklist=["curl"], env_allowlist=["ZZ_*"])
    return tmp_path, first, same, other


async def test_runs_show_lists_sandbox_and_runner_hash(two_runs, capsys) -> None:
    data, first, _, _ = two_runs
    assert main(["runs", "show", first, "--data-dir", str(data)]) == 0
    out = capsys.readouterr().out
    [record_path] = (data / "runs" / first).glob("agents/*/runner.json")
    record = json.loads(record_path.read_bytes())
    assert "implementer" in out and "none" in out
    assert runner_hash(record)[:20] in out.replace("\n", "").replace("│", "").replace(" ", "")
    assert main(["runs", "show", first, "--json", "--data-dir", str(data)]) == 0
    state = json.loads(capsys.readouterr().out)
    assert state["runnerHashes"] == {record_path.parent.name: runner_hash(record)}


async def test_diff_env_same_and_different(two_runs, capsys, monkeypatch) -> None:
    data, first, same, other = two_runs
    assert main(["runs", "diff-env", first, same, "--data-dir", str(data)]) == 0
    assert "implementer" in capsys.readouterr().out
    assert main(["runs", "diff-env", first, same, "--json", "--data-dir", str(data)]) == 0
    [pair] = json.loads(capsys.readouterr().out)
    assert pair["same"] and pair["left"]["runnerHash"] != pair["right"]["runnerHash"]
    assert main(["runs", "diff-env", first, other, "--json", "--data-dir", str(data)]) == 1
    [pair] = json.loads(capsys.readouterr().out)
    assert not pair["same"]
    assert [d["field"] for d in pair["differences"]] == ["commands.blocklist"]
    assert pair["differences"][0]["right"] == ["curl"]
    assert main(["runs", "diff-env", first, other, "--data-dir", str(data)]) == 1
    assert 'commands.blocklist: [] -> ["curl"]' in capsys.readouterr().out
    assert main(["runs", "diff-env", first, "nope", "--data-dir", str(data)]) == 2
