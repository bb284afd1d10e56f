"""An agent that writes the API key it was given into a file of its worktree: its turn's
commit keeps its exact work, the run records which file holds which secret (never the
value), `runs show` says so, and `runs apply` (working tree, --branch, --check) refuses
the result, naming the file, the secret and the ways on, until the file is left out or
the user passes --allow-secrets."""

from __future__ import annotations

import os
from pathlib import Path

import orjson
import pytest
import yaml
from cli_kit import Cli, git, make_cli

KEY = "sk-canvas-test-9d8c7b6a5f4e3d2c"
pytestmark = pytest.mark.skipif(os.name != "posix", reason="shell steps")


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        tmp_path: Path) -> Cli:
    monkeypatch.setenv("STRIPE_API_KEY", KEY)
    return make_cli(capsys, monkeypatch, ["--data-dir", str(tmp_path / "data")])


def a_run_that_writes_the_key(tmp_path: Path) -> tuple[Path, Path]:
    repo = tmp_path / "project"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    (repo / "README.md").write_text("a project\n")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "init")
    script = [{"shell": "printf 'STRIPE_API_KEY=%s\\n' \"$STRIPE_API_KEY\" > .env && "
                        "printf 'print(1)\\n' > app.py"},
              {"say": "configured"}]
    doc = {"name": "leaky", "task": "configure the app",
           "nodes": [{"id": "impl", "label": "Implementer", "entry": True}],
           "nodeConfigs": {"impl": {"workspace": str(repo), "envAllowlist": ["*"],
                                    "script": script}},
           "edges": []}
    flow = tmp_path / "leaky.flow.yaml"
    flow.write_text(yaml.safe_dump(doc, sort_keys=False))
    return repo, flow


def test_a_result_holding_the_agent_s_key_is_refused_until_left_out_or_allowed(
        cli: Cli, tmp_path: Path) -> None:
    repo, flow = a_run_that_writes_the_key(tmp_path)
    assert cli("run", str(flow)).code == 0
    [listed] = orjson.loads(cli("runs", "list", "--json").out)
    run8 = listed["id"][:8]
    run_dir = tmp_path / "data" / "runs" / listed["id"]
    branch = f"canvas/{run8}/impl"

    # the turn's commit is the agent's exact work, as its worktree holds it
    assert git(repo, "show", f"{branch}:.env") == f"STRIPE_API_KEY={KEY}"
    # the run records the file and the secret's name, and no file of it the value
    events = [orjson.loads(line) for line in (run_dir / "events.jsonl").read_bytes()
              .splitlines()]
    [diff] = [e["artifact"] for e in events if e["type"] == "artifact.created"
              and e["artifact"]["kind"] == "diff"]
    assert diff["secrets"] == [{"path": ".env", "name": "STRIPE_API_KEY"}]
    for path in run_dir.rglob("*"):
        if path.is_file() and "worktrees" not in path.relative_to(run_dir).parts:
            assert KEY.encode() not in path.read_bytes(), path
    shown = cli("runs", "show", run8)
    assert "Implementer wrote the value of a secret" in " ".join(shown.out.split())
    assert ".env (STRIPE_API_KEY)" in shown.out

    for args in (["--branch", "x"], [], ["--check"], ["--branch", "x", "--check"]):
        refused = cli("runs", "apply", run8, *args)
        said = " ".join(refused.out.split())
        assert refused.code == 1, (args, refused.out, refused.err)
        assert ".env (STRIPE_API_KEY)" in said and "--allow-secrets" in said
        assert "holds a secret: .env (STRIPE_API_KEY)" in refused.out
        assert KEY not in refused.out + refused.err
    assert git(repo, "branch", "--list", "x") == ""
    assert not (repo / ".env").exists() and not (repo / "app.py").exists()
    as_json = orjson.loads(cli("runs", "apply", run8, "--branch", "x", "--json").out)
    assert as_json["secrets"] == [{"path": ".env", "name": "STRIPE_API_KEY"}]

    rejected = cli("runs", "apply", run8, "--branch", "x", "--file", "app.py")
    assert rejected.code == 0, rejected.out + rejected.err
    assert git(repo, "ls-tree", "--name-only", "x").split() == ["README.md", "app.py"]
    allowed = cli("runs", "apply", run8, "--branch", "y", "--allow-secrets")
    assert allowed.code == 0, allowed.out + allowed.err
    assert git(repo, "show", "y:.env") == f"STRIPE_API_KEY={KEY}"
