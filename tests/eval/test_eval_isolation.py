"""Evaluation cases keep their own workspaces when the workflow works in git worktrees:
each case starts from its own copy, its diff holds only its own change, and the
repository the workflow names gains no branch, worktree or ref."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.eval.evalkit import case_file, flow, run, suite

USER = ("-c", "user.name=U", "-c", "user.email=u@example.com")


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *USER, *args], cwd=repo, capture_output=True, text=True,
                          check=True).stdout.strip()


async def test_each_case_works_in_its_own_copy_not_in_the_workflow_s_repository(
        tmp_path: Path) -> None:
    repo = tmp_path / "project"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    (repo / "app.txt").write_text("the user's\n")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "init")
    refs = git(repo, "for-each-ref")
    script = [{"shell": "echo \"$CASE_NOTE\" > note.txt; ls > listing.txt"}, {"say": "done"}]
    workflow = flow(tmp_path / "flow.yaml", script, workspace=str(repo), isolation="worktree")
    for name in ("one", "two"):
        folder = tmp_path / "cases" / name
        folder.mkdir(parents=True)
        (folder / f"{name}.txt").write_text(f"{name}\n")
    cases = [{"id": name, "task": f"case {name}", "workspace": f"cases/{name}"}
             for name in ("one", "two")]
    out = await run(suite(tmp_path / "s.suite.yaml", cases), workflow, workflow,
                    tmp_path / "out", concurrency=2)
    for side in ("baseline", "new"):
        for name, other in (("one", "two"), ("two", "one")):
            case = case_file(out, side, name)
            assert case["metrics"]["diff_files"] == 2, case["metrics"]  # note and listing
            [patch] = out.glob(f"{side}/*/assets/{name}/diff.patch")
            text = patch.read_text()
            assert f"+{name}.txt" in text and f"{other}.txt" not in text
    assert git(repo, "for-each-ref") == refs  # no canvas branch or base ref
    assert git(repo, "worktree", "list").count("\n") == 0
    assert git(repo, "status", "--porcelain") == ""
