"""An evaluation with the real Claude Code CLI against the fake model server: both sides run
through the engine, the artifacts follow the contract, and the comparison sees the change."""

from pathlib import Path

import orjson
import pytest

from desktop.eval.conformance import check_artifacts
from desktop.eval.evaluate import evaluate
from desktop.providers.fakeserver import Script
from tests.eval.evalkit import run, suite, version_dirs, write_yaml

pytestmark = pytest.mark.timeout(300)


def claude_flow(path: Path, key: str) -> Path:
    return write_yaml(path, {"name": key, "task": "placeholder", "nodes": [
        {"id": key, "label": "Claude", "provider": "claude", "entry": True}],
        "nodeConfigs": {key: {"instructions": "Do the task.", "limits": {"timeoutSec": 120}}}})


async def test_claude_baseline_against_new(server, offline_registry, tmp_path: Path) -> None:
    server.script = Script.from_data({"agents": {
        "base": [{"text": "Writing it.", "shell": "echo proof > proof.txt"},
                 {"text": "Wrote proof.txt."}],
        "next": [{"text": "Nothing to do here."}],
    }})
    s = suite(tmp_path / "s.suite.yaml", [{"id": "proof", "task": "Create proof.txt.",
                                           "checks": [{"type": "fileExists", "path": "proof.txt"},
                                                      {"type": "toolCalled", "tool": "Bash"}]}])
    out = await run(s, claude_flow(tmp_path / "a.flow.yaml", "base"),
                    claude_flow(tmp_path / "b.flow.yaml", "next"), tmp_path / "out",
                    concurrency=1)
    [base_dir], [new_dir] = version_dirs(out, "baseline"), version_dirs(out, "new")
    base = orjson.loads((base_dir / "proof.json").read_bytes())
    new = orjson.loads((new_dir / "proof.json").read_bytes())
    assert base["status"] == new["status"] == "ok", (base.get("runner_failure"),
                                                      new.get("runner_failure"))
    bash = [a for a in base["proposed_actions"] if a["tool_name"] == "Bash"]
    assert bash and "proof.txt" in bash[0]["params"]["command"]
    assert bash[0]["risk_level"] == "low" and bash[0]["action_type"] == "shell"
    assert new["final_output"]["content"].strip() == "Nothing to do here."
    run_json = orjson.loads((base_dir / "run.json").read_bytes())
    assert run_json["base_url"] == offline_registry.node_url("base")
    comparison = evaluate(out)
    assert comparison["regressions"] == ["proof"]
    assert check_artifacts(out) == []
