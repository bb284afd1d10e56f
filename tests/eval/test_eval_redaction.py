"""An evaluation's own files hold no secret value, though the agent wrote one into the
workspace: the case's diff, its check output, the case files and the report are redacted
as the engine redacts its run folders."""

from pathlib import Path

import pytest

from desktop.cli import main
from tests.eval.evalkit import flow, suite, version_dirs

SECRET = "tok-EVALSECRET-4242-abcdef"
AGENT = """#!/bin/sh
printf '%s\\n' "$MY_SERVICE_TOKEN" > secret.txt
echo "the token is $MY_SERVICE_TOKEN"
"""


def test_no_file_of_the_evaluation_but_the_workspace_holds_the_secret(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_SERVICE_TOKEN", SECRET)
    agent = tmp_path / "agent.sh"
    agent.write_text(AGENT)
    agent.chmod(0o755)
    leak = flow(tmp_path / "leak.flow.yaml", None, provider="command", command=str(agent),
                envAllowlist=["MY_SERVICE_TOKEN"])
    (tmp_path / "cases" / "c1").mkdir(parents=True)
    (tmp_path / "cases" / "c1" / "README.md").write_text("start\n")
    s = suite(tmp_path / "s.suite.yaml", [{
        "id": "c1", "task": "write the token", "workspace": "cases/c1",
        "checks": [{"type": "command", "run": "cat secret.txt"}]}])
    out = tmp_path / "out"
    main(["eval", "run", str(s), "--baseline", str(leak), "--new", str(leak), "--out",
          str(out), "-q"])
    kept = list(out.glob("runs/*/workspace/secret.txt"))
    assert len(kept) == 2 and all(SECRET in p.read_text() for p in kept)
    for side in ("baseline", "new"):
        [version] = version_dirs(out, side)
        assert "+[REDACTED]" in (version / "assets" / "c1" / "diff.patch").read_text()
    assert (out / "report.html").is_file()
    leaked = [p for p in out.rglob("*") if p.is_file() and not _in_a_workspace(out, p)
              and SECRET.encode() in p.read_bytes()]
    assert leaked == []


def _in_a_workspace(out: Path, path: Path) -> bool:
    """Whether ``path`` is in a kept run's workspace (``runs/<id>/workspace/``)."""
    parts = path.relative_to(out).parts
    return len(parts) > 3 and parts[0] == "runs" and parts[2] == "workspace"
