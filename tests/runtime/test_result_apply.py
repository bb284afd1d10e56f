"""Applying a run's result to the user's repository: a three-way merge onto their working
tree that keeps every uncommitted change of theirs, or a new branch on their HEAD; all of
it or the accepted files; a collision changes nothing and names the files."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from gitkit import (
    fingerprint,
    git,
    library_commit,
    no_git_config,
    stopped_at_a_conflict,
    tree_files,
    user_repo,
    with_submodule,
)
from lockkit import applying_elsewhere

from desktop.runtime.apply_lock import ApplyBusy, hold_apply_lock
from desktop.runtime.repo_busy import RepoBusy
from desktop.runtime.result_apply import apply_result
from desktop.runtime.result_undo import undo_apply
from desktop.runtime.run_result import ResultError, RunResult, changed_files, file_patch
from desktop.runtime.worktrees import commit_all, head, open_tree
from desktop.store.applied import read_applied

__all__ = ["no_git_config"]
RUN = "1a2b3c4d-0000-4000-8000-000000000001"
NODE = "00000000-0000-4000-8000-00000000000a"
BASE_COMMITTED = "as committed\nplus an unstaged line\n"
RUNS_COMMITTED = "the run's first line\n" + BASE_COMMITTED


def a_result(tmp_path: Path) -> tuple[Path, RunResult]:
    """The user's repository with uncommitted work, and a run's result that changes a file
    they have uncommitted changes in, adds one and deletes one."""
    repo = user_repo(tmp_path / "repo")
    run_dir = tmp_path / "runs" / RUN
    tree = open_tree(repo, run_dir, RUN, "impl", NODE)
    assert tree is not None
    (tree.path / "committed.txt").write_text(RUNS_COMMITTED)
    (tree.path / "src").mkdir()
    (tree.path / "src" / "new.py").write_text("print('new')\n")
    (tree.path / "staged.txt").unlink()
    assert commit_all(tree, "the run's turn\n") is not None
    tip = head(tree.path)
    return repo, RunResult(RUN, run_dir, NODE, "impl", repo, tree.branch, tree.base, tip,
                           changed_files(repo, tree.base, tip))


def test_the_result_lists_each_changed_file_with_its_patch(tmp_path: Path,
                                                           no_git_config) -> None:
    _, result = a_result(tmp_path)
    assert [(f.path, f.status) for f in result.files] == [
        ("committed.txt", "modified"), ("src/new.py", "added"), ("staged.txt", "deleted")]
    patch = file_patch(result, "committed.txt")
    assert "+the run's first line\n" in patch and patch.endswith("\n")
    with pytest.raises(ResultError, match=r"did not change nope\.txt"):
        file_patch(result, "nope.txt")


def test_applied_to_the_working_tree_it_merges_with_later_uncommitted_work(
        tmp_path: Path, no_git_config) -> None:
    repo, result = a_result(tmp_path)
    # after the run started, the user changed the same file elsewhere and added a file
    (repo / "committed.txt").write_text(BASE_COMMITTED + "and a later line\n")
    (repo / "later.txt").write_text("mine\n")
    before = fingerprint(repo)
    outcome = apply_result(result)
    assert outcome.applied and outcome.collisions == []
    assert outcome.files == ["committed.txt", "src/new.py", "staged.txt"]
    assert (repo / "committed.txt").read_text() == RUNS_COMMITTED + "and a later line\n"
    assert (repo / "src" / "new.py").read_text() == "print('new')\n"
    assert not (repo / "staged.txt").exists()
    after = fingerprint(repo)
    # their index, HEAD, branches and every other file are as they were
    assert after["index"] == before["index"] and after["head"] == before["head"]
    assert after["refs"] == before["refs"] and after["stash"] == before["stash"]
    untouched = {k: v for k, v in before["files"].items()
                 if k not in ("committed.txt", "staged.txt")}
    assert {k: after["files"][k] for k in untouched} == untouched
    [record] = read_applied(result.run_dir)
    assert record["target"] == "worktree" and record["resultCommit"] == result.commit
    assert record["files"] == outcome.files
    again = apply_result(result)
    assert not again.applied and "already there" in again.message


def test_a_collision_changes_nothing_and_names_the_files(tmp_path: Path,
                                                         no_git_config) -> None:
    repo, result = a_result(tmp_path)
    (repo / "committed.txt").write_text("the user's own first line\n" + BASE_COMMITTED)
    before = fingerprint(repo)
    for check in (True, False):
        outcome = apply_result(result, check=check)
        assert not outcome.applied and outcome.collisions == ["committed.txt"]
        assert fingerprint(repo) == before
    assert read_applied(result.run_dir) == []
    # leaving that file out, the rest applies
    rest = apply_result(result, files=["src/new.py"])
    assert rest.applied and rest.files == ["src/new.py"]
    assert (repo / "committed.txt").read_text().startswith("the user's own first line\n")
    assert (repo / "staged.txt").exists()


def test_check_says_what_would_change_and_changes_nothing(tmp_path: Path,
                                                          no_git_config) -> None:
    repo, result = a_result(tmp_path)
    before = fingerprint(repo)
    outcome = apply_result(result, check=True)
    assert not outcome.applied and outcome.files == result.paths()
    assert "applies cleanly" in outcome.message
    assert fingerprint(repo) == before and read_applied(result.run_dir) == []


def test_a_branch_holds_the_result_on_the_user_s_head_and_their_checkout_is_untouched(
        tmp_path: Path, no_git_config) -> None:
    repo, result = a_result(tmp_path)
    before = fingerprint(repo)
    outcome = apply_result(result, branch="feature/result")
    assert outcome.applied and outcome.commit == git(repo, "rev-parse", "feature/result")
    assert git(repo, "rev-parse", f"{outcome.commit}^") == git(repo, "rev-parse", "HEAD")
    files = tree_files(repo, "feature/result")
    # the run's change on their last commit; their uncommitted work stays theirs alone
    assert files["committed.txt"] == b"the run's first line\nas committed\n"
    assert files["src/new.py"] == b"print('new')\n"
    assert "staged.txt" not in files and "untracked.txt" not in files
    assert f"Run: {RUN}" in git(repo, "log", "-1", "--format=%B", "feature/result")
    after = fingerprint(repo)
    assert {k: v for k, v in after.items() if k != "refs"} == \
        {k: v for k, v in before.items() if k != "refs"}
    with pytest.raises(ResultError, match="already exists"):
        apply_result(result, branch="feature/result")
    with pytest.raises(ResultError, match="not a branch name"):
        apply_result(result, branch="bad..name")


def test_a_file_the_run_did_not_change_is_refused_by_name(tmp_path: Path,
                                                          no_git_config) -> None:
    repo, result = a_result(tmp_path)
    before = fingerprint(repo)
    with pytest.raises(ResultError, match=r"did not change README\.md"):
        apply_result(result, files=["README.md"])
    assert fingerprint(repo) == before


def test_an_apply_while_another_process_applies_the_run_is_refused_at_once(
        tmp_path: Path, no_git_config) -> None:
    """As a `runs apply` in a terminal and the app's Apply on the same run would."""
    repo, result = a_result(tmp_path)
    before = fingerprint(repo)
    busy = rf"another apply of run {RUN[:8]} is under way .*let that one finish"
    with applying_elsewhere(result.run_dir):
        for branch in (None, "feature/result"):
            with pytest.raises(ApplyBusy, match=busy):
                apply_result(result, branch=branch)
        assert fingerprint(repo) == before and read_applied(result.run_dir) == []
        # a check writes nothing of the user's: it goes on beside an application
        assert apply_result(result, check=True).files == result.paths()
    assert apply_result(result).applied


def descriptors_on(path: Path) -> list[str]:
    """This process's open descriptors on PATH; other threads' files do not count."""
    found = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            if os.readlink(f"/proc/self/fd/{fd}") == str(path):
                found.append(fd)
        except OSError:  # closed between the listing and the read
            continue
    return found


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="reads /proc/self/fd")
def test_the_apply_lock_is_let_go_however_an_apply_ends_and_no_descriptor_stays(
        tmp_path: Path, no_git_config) -> None:
    _, result = a_result(tmp_path)
    lock_file = (result.run_dir / "apply.lock").resolve()
    with pytest.raises(ResultError, match="did not change"):  # raised inside the lock
        apply_result(result, files=["README.md"])
    with hold_apply_lock(result.run_dir), pytest.raises(ApplyBusy):
        apply_result(result)  # in this process too: each apply opens its own descriptor
    assert apply_result(result).applied
    assert not apply_result(result).applied  # already there, and the lock was free again
    assert lock_file.exists() and descriptors_on(lock_file) == []


def test_an_apply_lock_that_is_a_link_is_refused_naming_it(tmp_path: Path,
                                                            no_git_config) -> None:
    repo, result = a_result(tmp_path)
    elsewhere = tmp_path / "elsewhere.txt"
    elsewhere.write_text("not the run's\n")
    (result.run_dir / "apply.lock").symlink_to(elsewhere)
    before = fingerprint(repo)
    with pytest.raises(ResultError, match=r"apply\.lock: is a symbolic link"):
        apply_result(result)
    assert fingerprint(repo) == before and elsewhere.read_text() == "not the run's\n"


def mid_rebase(repo: Path) -> tuple[object, ...]:
    """What of a repository mid-rebase (HEAD detached, which fingerprint does not read)
    applying must not change: index, HEAD, branches, status and every file."""
    files = {p.relative_to(repo).as_posix(): p.read_bytes() for p in sorted(repo.rglob("*"))
             if p.is_file() and ".git" not in p.relative_to(repo).parts}
    return ((repo / ".git" / "index").read_bytes(), git(repo, "rev-parse", "HEAD"),
            git(repo, "for-each-ref", "refs/heads"),
            git(repo, "status", "--porcelain", "--ignored", "--untracked-files=all"), files)


def test_a_repository_mid_rebase_takes_no_result_and_says_how_to_go_on(
        tmp_path: Path, no_git_config) -> None:
    repo, result = a_result(tmp_path)
    stopped_at_a_conflict(repo, "rebase")
    before = mid_rebase(repo)
    # onto the tree the files would join the commit being rewritten; as a branch they
    # would sit on it instead of on the user's branch
    for kwargs in ({}, {"check": True}, {"branch": "agent/result"}):
        with pytest.raises(RepoBusy, match=r"in the middle of a rebase; finish it "
                           r"\(`git rebase --continue`\) or undo it \(`git rebase --abort`\)"):
            apply_result(result, **kwargs)
    assert mid_rebase(repo) == before and read_applied(result.run_dir) == []


def test_a_repository_mid_merge_takes_the_result_only_as_a_branch(
        tmp_path: Path, no_git_config) -> None:
    repo, result = a_result(tmp_path)
    stopped_at_a_conflict(repo, "merge")
    before = fingerprint(repo)
    with pytest.raises(RepoBusy, match=r"middle of a merge; .*--branch NAME"):
        apply_result(result)
    assert fingerprint(repo) == before
    made = apply_result(result, files=["src/new.py"], branch="agent/result")
    assert made.applied and git(repo, "rev-parse", "agent/result^") == \
        git(repo, "rev-parse", "HEAD")
    assert {k: v for k, v in fingerprint(repo).items() if k != "refs"} == \
        {k: v for k, v in before.items() if k != "refs"}


def test_a_submodule_the_result_moves_is_left_out_of_the_working_tree_and_said(
        tmp_path: Path, no_git_config) -> None:
    """A submodule's checkout is a repository of its own, which ``git apply`` cannot
    move: applying to the working tree leaves it out and says how to move it, never
    claiming it changed; a branch made from the result records it."""
    repo, lib = with_submodule(tmp_path)
    new = library_commit(lib, "v2\n")
    run_dir = tmp_path / "runs" / RUN
    tree = open_tree(repo, run_dir, RUN, "impl", NODE)
    assert tree is not None
    git(tree.path, "-c", "protocol.file.allow=always", "submodule", "update", "--init", "-q")
    git(tree.path / "vendor" / "lib", "pull", "-q", "--ff-only", "origin", "main")
    (tree.path / "notes.txt").write_text("bumped the library\n")
    assert commit_all(tree, "the run's turn\n") is not None
    tip = head(tree.path)
    result = RunResult(RUN, run_dir, NODE, "impl", repo, tree.branch, tree.base, tip,
                       changed_files(repo, tree.base, tip))
    assert result.paths() == ["notes.txt", "vendor/lib"]
    before = fingerprint(repo)

    checked = apply_result(result, check=True)
    assert checked.files == ["notes.txt"]
    said = f"left out: 1 submodule the result moves, vendor/lib (to {new[:12]}"
    assert said in checked.message
    applied = apply_result(result)
    assert applied.applied and applied.files == ["notes.txt"] and said in applied.message
    assert (repo / "notes.txt").read_text() == "bumped the library\n"
    assert read_applied(run_dir)[-1]["files"] == ["notes.txt"]
    assert git(repo / "vendor" / "lib", "rev-parse", "HEAD") != new  # theirs to move

    made = apply_result(result, branch="with-the-library")
    assert made.applied and made.files == ["notes.txt", "vendor/lib"]
    assert "left out" not in made.message
    assert git(repo, "rev-parse", "with-the-library:vendor/lib") == new
    after = fingerprint(repo)
    assert after["files"] != before["files"]  # notes.txt, applied
    (repo / "notes.txt").unlink()
    assert {k: v for k, v in fingerprint(repo).items() if k != "refs"} == \
        {k: v for k, v in before.items() if k != "refs"}  # refs: the new branch


def test_a_big_untracked_file_the_result_leaves_alone_is_not_copied_into_the_repository(
        tmp_path: Path, no_git_config, monkeypatch: pytest.MonkeyPatch) -> None:
    """Applying (and undoing) records the user's state in the repository's objects; a
    dataset of theirs the result never writes need not be, while one where the result
    adds a file still collides."""
    monkeypatch.setattr("desktop.runtime.git_base.BIG_UNTRACKED", 1000)
    repo, result = a_result(tmp_path)
    (repo / "dataset.bin").write_bytes(b"d" * 5000)
    blob = git(repo, "hash-object", "dataset.bin")  # its id, not written

    def in_objects() -> bool:
        return subprocess.run(["git", "cat-file", "-e", blob], cwd=repo).returncode == 0

    outcome = apply_result(result)
    assert outcome.applied and "dataset.bin" not in outcome.files and not in_objects()
    assert undo_apply(result).applied and not in_objects()
    assert (repo / "dataset.bin").read_bytes() == b"d" * 5000
    assert not (repo / "src" / "new.py").exists()

    (repo / "src").mkdir()
    (repo / "src" / "new.py").write_bytes(b"the user's own, big\n" * 100)
    before = fingerprint(repo)
    clash = apply_result(result)
    assert not clash.applied and clash.collisions == ["src/new.py"]
    assert fingerprint(repo) == before


def test_an_untracked_folder_of_many_files_is_left_aside_unless_the_result_writes_in_it(
        tmp_path: Path, no_git_config, monkeypatch: pytest.MonkeyPatch) -> None:
    """As with a big file: a virtual environment of the user's that the result never
    writes in is not copied into the repository's objects; a folder the result adds a
    file to is recorded, so the user's file there collides and is never overwritten."""
    monkeypatch.setattr("desktop.runtime.git_base.MANY_UNTRACKED", 3)
    repo, result = a_result(tmp_path)
    (repo / "venv").mkdir()
    for n in range(5):
        (repo / "venv" / f"lib{n}.py").write_text(f"installed {n}\n")
    blob = git(repo, "hash-object", "venv/lib0.py")  # its id, not written

    def in_objects() -> bool:
        return subprocess.run(["git", "cat-file", "-e", blob], cwd=repo).returncode == 0

    outcome = apply_result(result)
    assert outcome.applied and not any(f.startswith("venv/") for f in outcome.files)
    assert not in_objects()
    assert undo_apply(result).applied and not in_objects()
    assert (repo / "venv" / "lib4.py").read_text() == "installed 4\n"

    (repo / "src").mkdir()
    for n in range(4):
        (repo / "src" / f"mine{n}.py").write_text("the user's\n")
    (repo / "src" / "new.py").write_text("the user's own new.py\n")
    before = fingerprint(repo)
    clash = apply_result(result)
    assert not clash.applied and clash.collisions == ["src/new.py"]
    assert fingerprint(repo) == before


def test_a_file_of_the_user_s_git_ignores_where_the_result_adds_one_is_a_collision(
        tmp_path: Path, no_git_config) -> None:
    """Ignored, it is not in the state captured of the working tree: --check said the
    result applies cleanly, then git apply refused, as if the tree changed meanwhile."""
    repo = user_repo(tmp_path / "repo")
    run_dir = tmp_path / "runs" / RUN
    tree = open_tree(repo, run_dir, RUN, "impl", NODE)
    assert tree is not None
    (tree.path / "debug.log").write_text("the agent's log\n")  # *.log is ignored
    git(tree.path, "add", "-f", "debug.log")
    assert commit_all(tree, "the run's turn\n") is not None
    tip = head(tree.path)
    result = RunResult(RUN, run_dir, NODE, "impl", repo, tree.branch, tree.base, tip,
                       changed_files(repo, tree.base, tip))
    (repo / "debug.log").write_text("the user's own log\n")
    before = fingerprint(repo)
    for check in (True, False):
        outcome = apply_result(result, check=check)
        assert not outcome.applied and outcome.collisions == ["debug.log"]
        assert "1 file of yours that git ignores is where the result adds one" \
            in outcome.message
        assert fingerprint(repo) == before
    (repo / "debug.log").unlink()
    assert apply_result(result).applied
    assert (repo / "debug.log").read_text() == "the agent's log\n"
