"""``import`` writes a run folder the way a live run does: no secret value reaches it."""

import argparse
import json
import os
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from desktop.cli import import_run

FIXTURES = Path(__file__).parents[1] / "providers" / "fixtures"

# JSON writes these characters as they are: the secret is the same bytes in the stream
SECRETS = st.text(alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.",
                  min_size=8, max_size=40).filter(lambda s: not os.path.exists(s))


def import_file(stream: Path, data: Path, capsys) -> Path:
    parser = argparse.ArgumentParser()
    import_run.register(parser.add_subparsers())
    args = parser.parse_args(["import", "--provider", "claude", str(stream),
                              "--data-dir", str(data)])
    assert args.handler(args) == 0
    return data / "runs" / capsys.readouterr().out.strip()


def files_holding(folder: Path, secret: str) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*")
                  if p.is_file() and secret.encode() in p.read_bytes())


@settings(max_examples=15, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(secret=SECRETS)
def test_import_redacts_the_secrets_of_the_environment(secret: str, monkeypatch, capsys):
    monkeypatch.setenv("MY_SERVICE_TOKEN", secret)
    with tempfile.TemporaryDirectory() as tmp:
        stream = Path(tmp) / "sec.jsonl"
        lines = [
            {"type": "assistant", "message": {"content": [
                {"type": "text", "text": f"key is {secret}"},
                {"type": "tool_use", "id": "t1", "name": "Bash",
                 "input": {"command": f"curl -H 'Authorization: {secret}'"}}]}},
            {"type": "result", "subtype": "success", "is_error": False,
             "result": f"done with {secret}", "session_id": "s1"},
        ]
        stream.write_text("".join(json.dumps(line) + "\n" for line in lines))
        run_dir = import_file(stream, Path(tmp) / "data", capsys)
        assert files_holding(run_dir, secret) == []
        stdout = next(run_dir.glob("agents/*/agent-stdout.txt")).read_text()
        assert "key is [REDACTED]" in stdout
        events = (run_dir / "events.jsonl").read_text()
        assert "[REDACTED]" in events
