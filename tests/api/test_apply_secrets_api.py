"""POST /api/runs/RUN/apply refuses a result whose files hold the value of a secret an
agent was given (409 result_has_secrets naming the files, the secret names in the
message, nothing changed), applies it once the file is left out, and with allowSecrets."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from api_helpers import Api, workflow

KEY = "sk-api-test-0a1b2c3d4e5f6a7b"
USER = ("-c", "user.name=U", "-c", "user.email=u@example.com")


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *USER, *args], cwd=repo, capture_output=True, text=True,
                          check=True).stdout.strip()


async def test_apply_refuses_a_secret_until_its_file_is_left_out_or_it_is_allowed(
        api: Api, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BILLING_API_KEY", KEY)
    repo = tmp_path / "project"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    (repo / "lib.txt").write_text("committed\n")
    git(repo, "add", "lib.txt")
    git(repo, "commit", "-q", "-m", "init")
    # the agent writes the key from its environment (a key in its script would reach it
    # redacted, as the run records its workflow)
    run_id = (await api.start(workflow({"impl": {
        "workspace": str(repo), "envAllowlist": ["BILLING_*"], "script": [
            {"shell": "printf 'BILLING_API_KEY=%s\\n' \"$BILLING_API_KEY\" > config.env"},
            {"edit": {"path": "app.txt", "content": "app\n"}}]}})))["id"]
    assert (await api.finished(run_id))["status"] == "completed"
    base = f"/api/runs/{run_id}"
    for body in ({}, {"check": True}, {"branch": "x"}):
        refused = await api.json("POST", f"{base}/apply", 409, body)
        error = refused["error"]
        assert error["code"] == "result_has_secrets" and error["problems"] == ["config.env"]
        assert "config.env (BILLING_API_KEY)" in error["message"]
        assert error["field"] == "allowSecrets" and KEY not in str(refused)
    assert git(repo, "branch", "--list", "x") == "" and not (repo / "config.env").exists()
    rest = await api.json("POST", f"{base}/apply", 200, {"branch": "x", "files": ["app.txt"]})
    assert rest["applied"] and rest["files"] == ["app.txt"]
    allowed = await api.json("POST", f"{base}/apply", 200,
                             {"branch": "y", "allowSecrets": True})
    assert allowed["applied"] and "config.env" in allowed["files"]
