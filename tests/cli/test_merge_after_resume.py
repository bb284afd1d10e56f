"""INTERACTIVE: a merge withdrawn when the terminal let go of the run is asked again only
when its node's turn is stepped. `runs show` says so, and a `merge` sent before that step
says which step asks it, instead of only that no merge is pending."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from desktop.cli import main
from desktop.views.runs import open_run

USER = ("-c", "user.name=The User", "-c", "user.email=user@example.com")


def _cli(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
         *args: str, stdin: str = "") -> tuple[int, str, str]:
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def _flow(tmp_path: Path) -> Path:
    """Lead hands off to a and b, which both rewrite line 1 of config.py and report."""
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "config.py").write_text("x = 1\n")
    subprocess.run(["git", *USER, "add", "."], cwd=repo, check=True)
    subprocess.run(["git", *USER, "commit", "-qm", "base"], cwd=repo, check=True)
    edit = {n: [{"edit": {"path": "config.py", "content": f"x = {v}\n"}}, {"say": "set"},
                {"done": True}] for n, v in (("a", 10), ("b", 20))}
    doc = {"name": "Conflict", "task": "Change x.", "mode": "INTERACTIVE",
           "workspace": str(repo),
           "nodes": [{"id": "lead", "label": "Lead", "entry": True},
                     {"id": "a", "label": "A"}, {"id": "b", "label": "B"}],
           "nodeConfigs": {
               "lead": {"script": {"turns": [
                   [{"say": "delegating"}, {"handoff": {"to": "a", "message": "10"}},
                    {"handoff": {"to": "b", "message": "20"}}],
                   [{"say": "one in"}], [{"say": "both in"}, {"done": True}]]}},
               "a": {"script": edit["a"]}, "b": {"script": edit["b"]}},
           "edges": [{"id": "l-a", "from": "lead", "to": "a", "type": "handoff"},
                     {"id": "l-b", "from": "lead", "to": "b", "type": "handoff"},
                     {"id": "a-l", "from": "a", "to": "lead", "type": "report"},
                     {"id": "b-l", "from": "b", "to": "lead", "type": "report"}]}
    path = tmp_path / "conflict.flow.yaml"
    path.write_text(yaml.safe_dump(doc), encoding="utf-8")
    return path


def test_a_merge_sent_before_its_step_says_to_step_the_node_first(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    data = tmp_path / "data"
    code, out, err = _cli(capsys, monkeypatch, "run", str(_flow(tmp_path)), "--data-dir",
                          str(data), stdin="step\nstep b\nstep a\nstep\nstep\n")
    assert code == 3 and "[Lead] MERGE" in out, out + err
    [folder] = (data / "runs").iterdir()
    run8 = folder.name[:8]
    code, out, _ = _cli(capsys, monkeypatch, "runs", "show", run8, "--data-dir", str(data))
    text = " ".join(out.split())
    assert "waits for Lead's merge" in text
    assert "asked again when it resumes and Lead's turn is stepped (`step lead`)" in text
    code, out, err = _cli(capsys, monkeypatch, "resume", run8, "--mode", "interactive",
                          "--data-dir", str(data), stdin="merge theirs\n")
    assert code == 3
    assert "merge: no merge approval is pending: the merge of Lead is asked again when " \
        "Lead's turn is stepped: `step lead` first" in out, out + err
    # what it says holds: the step asks the merge, and the answer finishes the run
    code, out, err = _cli(capsys, monkeypatch, "resume", run8, "--mode", "interactive",
                          "--data-dir", str(data), stdin="step lead\nmerge theirs\n")
    assert code == 0, out + err
    assert "merged:" in out and open_run(folder).status == "completed"
