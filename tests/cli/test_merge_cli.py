"""A merge that conflicts, resolved from the terminal: `merge ours|theirs [FILE...]`,
`merge edit FILE[=FROM]`, `merge agent`, in-process and through the service; and the
words of a `merge` line as a choice."""

from __future__ import annotations

import io
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml
from service_process import ServeProcess

from desktop.cli import main
from desktop.cli.merge_words import merge_choice, split_approval

USER = ("-c", "user.name=The User", "-c", "user.email=user@example.com")
RESOLVE = ("grep -q '^<<<<<<<' shared.txt && printf 'by the agent\\n' > shared.txt; true")


@dataclass
class Result:
    returncode: int
    stdout: str
    stderr: str


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch):
    """Run the command in this process; ``stdin`` text is piped in as commands."""
    def run(*args: str, stdin: str = "") -> Result:
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
        code = main(list(args))
        out = capsys.readouterr()
        return Result(code, out.out, out.err)
    return run


def repo_and_flow(tmp_path: Path) -> tuple[Path, Path]:
    """A repository with shared.txt committed, and a flow where left and right rewrite it
    in parallel and report to lead (whose agent resolves a conflict left to it)."""
    repo = tmp_path / "project"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "shared.txt").write_text("base\n")
    subprocess.run(["git", *USER, "add", "."], cwd=repo, check=True)
    subprocess.run(["git", *USER, "commit", "-qm", "base"], cwd=repo, check=True)
    ws = str(repo)
    doc = {"name": "merge cli", "task": "t",
           "nodes": [{"id": k, "label": k.title(), "entry": k == "lead"}
                     for k in ("lead", "left", "right")],
           "nodeConfigs": {
               "lead": {"workspace": ws, "stallThreshold": 10,
                        "script": [{"shell": RESOLVE}, {"say": "lead"}]},
               "left": {"workspace": ws,
                        "script": [{"edit": {"path": "shared.txt", "content": "left\n"}}]},
               "right": {"workspace": ws,
                         "script": [{"edit": {"path": "shared.txt", "content": "right\n"}}]}},
           "edges": [{"from": "lead", "to": "left"}, {"from": "lead", "to": "right"},
                     {"from": "left", "to": "lead", "type": "report"},
                     {"from": "right", "to": "lead", "type": "report"}]}
    path = tmp_path / "merge.flow.yaml"
    path.write_text(yaml.safe_dump(doc))
    return repo, path


def lead_file(repo: Path) -> str:
    branch = subprocess.run(["git", "for-each-ref", "--format=%(refname:short)",
                             "refs/heads/canvas/*/lead"], cwd=repo, capture_output=True,
                            text=True, check=True).stdout.strip()
    return subprocess.run(["git", "show", f"{branch}:shared.txt"], cwd=repo,
                          capture_output=True, text=True, check=True).stdout


@pytest.mark.parametrize("line, content", [
    ("merge theirs", None),  # the sender's side: left's or right's, whichever came second
    ("merge edit shared.txt={fixed}", "fixed by hand\n"),
    ("merge agent", "by the agent\n"),
])
def test_a_conflict_is_resolved_from_stdin(cli, tmp_path: Path, line: str,
                                           content: str | None) -> None:
    repo, path = repo_and_flow(tmp_path)
    fixed = tmp_path / "fixed.txt"
    fixed.write_text("fixed by hand\n")
    result = cli("run", str(path), "--data-dir", str(tmp_path / "data"),
                 stdin=f"approve\n{line.format(fixed=fixed)}\n")
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    assert "MERGE " in out and "conflicts in shared.txt (1 conflict)" in out
    assert "resolved with `merge`" in out  # `approve` says what to type instead
    assert "merged: " in out
    found = lead_file(repo)
    assert found in ("left\n", "right\n") if content is None else found == content
    assert (repo / "shared.txt").read_text() == "base\n"


def test_without_stdin_a_merge_approval_pauses_and_the_status_says_what_to_type(
        cli, tmp_path: Path) -> None:
    _repo, path = repo_and_flow(tmp_path)
    result = cli("run", str(path), "--data-dir", str(tmp_path / "data"))
    assert result.returncode == 3
    assert "MERGE " in result.stdout


def test_merge_words_become_a_choice(tmp_path: Path) -> None:
    request = {"worktree": str(tmp_path), "files": [
        {"path": "src/a.py"}, {"path": "b.txt"}, {"path": "docs/b.txt"}]}
    assert merge_choice(["ours"], request) == {
        "files": {"src/a.py": "ours", "b.txt": "ours", "docs/b.txt": "ours"},
        "contents": {}, "agent": False}
    assert merge_choice(["theirs", "a.py", "ours"], request)["files"] == {
        "src/a.py": "theirs", "b.txt": "ours", "docs/b.txt": "ours"}
    assert merge_choice(["theirs", "b.txt", "agent"], request) == {
        "files": {"b.txt": "theirs"}, "contents": {}, "agent": True}
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text("x = 1\n")  # edited by hand in the worktree
    assert merge_choice(["edit", "a.py", "agent"], request)["contents"] == {"src/a.py": "x = 1\n"}
    (tmp_path / "b.txt").write_text("<<<<<<< HEAD\nx\n=======\ny\n>>>>>>> other\n")
    for words, problem in ((["edit", "b.txt"], "still has conflict markers"),
                           (["ours", "nope.py"], "is not one of the conflicting files"),
                           (["theirs", "docs"], "is not one"),
                           (["a.py"], "usage: merge"), (["agent", "b.txt"], "usage: merge")):
        with pytest.raises(ValueError, match=problem):
            merge_choice(words, request)
    assert split_approval(["3f2a", "ours"], ["3f2a1b", "9c0d"]) == ("3f2a1b", ["ours"])
    assert split_approval(["ours"], ["3f2a1b"]) == (None, ["ours"])


@pytest.fixture(scope="module")
def service(tmp_path_factory) -> ServeProcess:
    svc = ServeProcess(tmp_path_factory.mktemp("merge-service"))
    yield svc
    svc.stop()


def test_a_conflict_is_resolved_from_stdin_through_the_service(
        cli, service: ServeProcess, tmp_path: Path) -> None:
    repo, path = repo_and_flow(tmp_path)
    result = cli("run", str(path), "--server", service.url, "--data-dir",
                 str(service.data_dir), stdin="merge ours\n")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "merged: " in result.stdout
    assert lead_file(repo) in ("left\n", "right\n")
