"""No secret value reaches the run folder, whatever the variable is called and wherever
the agent prints or writes it."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from pathlib import Path

import orjson
import pytest
import yaml

from desktop.contract.secrets import SECRET_NAMES_FILE, is_secret_name
from desktop.providers.redact import MIN_SECRET_LEN, Redactor, secret_values

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(os.name != "posix", reason="shell steps")

# Ten differently named secrets; the last two are named by the user, not by the rules.
NAMES = ["AWS_SECRET_ACCESS_KEY", "AWS_ACCESS_KEY_ID", "GITHUB_PAT", "STRIPE_KEY",
         "GCP_CREDENTIALS", "SMTP_PASSWD", "SLACK_BOT_TOKEN_V2", "APP_SECRET_SALT",
         "MYCORP_LICENSE", "BILLING_DB_URI"]


def _workflow(tmp: Path, workspace: Path) -> Path:
    bus = f"{sys.executable} -m desktop bus post"
    echo = " ; ".join(f'echo "{n}=${n}"' for n in NAMES)
    to_err = " ; ".join(f'echo "{n}=${n}" >&2' for n in NAMES)
    leak_all = " ".join(f"${n}" for n in NAMES)
    script = [
        {"shell": echo},
        {"shell": to_err},
        {"say": "done looking"},
        {"shell": f'echo "{leak_all}" > leak.txt'},  # into the workspace: diff.patch
        {"shell": f'{bus} "posting {leak_all}"'},
        {"shell": f'echo "# out {leak_all}" > "$RUN_FOLDER/output.md"'},
        {"handoff": {"to": "b", "message": "see output"}},
        {"shell": f'{bus} --handoff b "handing {leak_all}"'},
    ]
    doc = {
        "name": "canaries", "task": "print the environment",
        "nodes": [{"id": "a", "label": "A", "entry": True}, {"id": "b", "label": "B"}],
        "nodeConfigs": {"a": {"envAllowlist": ["*"], "workspace": str(workspace),
                              "script": script},
                        "b": {"script": [{"say": "got it"}]}},
        "edges": [{"from": "a", "to": "b"}],
    }
    path = tmp / "canaries.flow.yaml"
    path.write_text(yaml.safe_dump(doc))
    return path


def test_no_canary_of_ten_reaches_any_file_of_the_run(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / SECRET_NAMES_FILE).write_text("# our own\nBILLING_DB_*\n")
    workspace = tmp_path / "ws"
    workspace.mkdir()
    subprocess.run(["git", "init", "-q", str(workspace)], check=True)
    canaries = {name: f"canary-{i}-{uuid.uuid4().hex[:12]}" for i, name in enumerate(NAMES)}
    env = dict(os.environ, PYTHONPATH=str(ROOT), AGENT_CANVAS_SECRET_NAMES="MYCORP_*",
               **canaries)
    result = subprocess.run(
        [sys.executable, "-m", "desktop", "run", str(_workflow(tmp_path, workspace)),
         "--data-dir", str(data), "--json"],
        capture_output=True, env=env, cwd=ROOT, timeout=120, stdin=subprocess.DEVNULL)
    assert result.returncode == 0, result.stderr.decode()[-3000:]
    [run_dir] = (data / "runs").iterdir()
    found = []
    work = run_dir / "worktrees"  # the node's own worktree of ws: the work itself
    for path in run_dir.rglob("*"):
        if path.is_file() and not path.is_symlink() and not path.is_relative_to(work):
            content = path.read_bytes()
            found += [f"{path.relative_to(run_dir)}: {n}" for n, v in canaries.items()
                      if v.encode() in content]
    assert not found, found
    for name, value in canaries.items():  # nor the terminal's copy of the events
        assert value.encode() not in result.stdout, name
    # The agent did print them: the redaction, not silence, kept them out.
    stdout = "".join(p.read_text() for p in run_dir.glob("agents/*/agent-stdout.txt"))
    assert all(f"{name}={Redactor.MARK}" in stdout for name in NAMES)
    events = [orjson.loads(line) for line in (run_dir / "events.jsonl").read_bytes().split(b"\n")
              if line]
    posts = [e["message"] for e in events if e["type"] == "bus.message" and "posting" in
             e.get("message", "")]
    assert posts and posts[0].count(Redactor.MARK) == len(NAMES)
    leak = work / "a" / "leak.txt"  # the work itself, in the node's worktree of ws
    assert leak.read_text().count("canary-") == len(NAMES)
    assert not (workspace / "leak.txt").exists()


@pytest.mark.parametrize("name, secret", [
    ("AWS_SECRET_ACCESS_KEY", True), ("AWS_REGION", True), ("GITHUB_TOKEN", True),
    ("GITHUB_SHA", False), ("GITHUB_WORKSPACE", False), ("OPENAI_API_KEY", True),
    ("SSH_KEY", True), ("GOOGLE_APPLICATION_CREDENTIALS", True), ("PGPASSWORD", True),
    ("db_password", True), ("NPM_AUTH", True), ("SENTRY_DSN", True), ("HOME", False),
    ("PATH", False), ("PWD", False), ("KEYBOARD_LAYOUT", False),
    ("AGENT_CANVAS_SECRET_NAMES", False),
])
def test_secret_names(name: str, secret: bool) -> None:
    assert is_secret_name(name) is secret


def test_short_values_and_existing_paths_are_not_redacted(tmp_path: Path) -> None:
    env = {"A_TOKEN": "x" * (MIN_SECRET_LEN - 1), "B_TOKEN": "y" * MIN_SECRET_LEN,
           "GOOGLE_APPLICATION_CREDENTIALS": str(tmp_path), "MY_THING": "z" * 20}
    assert secret_values(env) == ["y" * MIN_SECRET_LEN]
    assert secret_values(env, patterns=["MY_*"]) == ["z" * 20, "y" * MIN_SECRET_LEN]


def test_event_redaction_copies_only_what_changes() -> None:
    red = Redactor(["supersecret-1"])
    shared = {"keep": ["a", "b"]}
    event = {"type": "x", "args": {"cmd": "echo supersecret-1"}, "other": shared}
    args = event["args"]
    red.event_in_place(event)
    assert event["args"] == {"cmd": "echo [REDACTED]"} and args == {"cmd": "echo supersecret-1"}
    assert event["other"] is shared
