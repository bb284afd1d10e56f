"""A run's base commit: the user's HEAD plus their uncommitted work, their repo untouched."""

from __future__ import annotations

import os
import subprocess
import tempfile
from pathlib import Path

import pytest
from gitkit import fingerprint, git, no_git_config, tree_files, user_repo
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from desktop.runtime.git_base import base_ref, capture, ensure_base
from desktop.runtime.git_run import GitError

__all__ = ["no_git_config"]
RUN = "1a2b3c4d-0000-4000-8000-000000000001"
TWIN = "1a2b3c4d-0000-4000-8000-000000000002"  # the same first 8 characters


def working_files(repo: Path) -> dict[str, bytes]:
    return {p.relative_to(repo).as_posix(): p.read_bytes() for p in repo.rglob("*")
            if p.is_file() and ".git" not in p.relative_to(repo).parts}


def test_the_base_holds_committed_staged_unstaged_and_untracked_work(
        tmp_path: Path, no_git_config) -> None:
    repo = user_repo(tmp_path / "repo")
    before = fingerprint(repo)
    base, _left_out = ensure_base(repo, RUN)
    assert fingerprint(repo) == before
    files = tree_files(repo, base)
    expected = working_files(repo)
    del expected["debug.log"]  # ignored: left out
    assert files == expected
    assert files["both.txt"] == b"v3 in the working tree\n"  # what is on disk, not staged
    assert git(repo, "rev-parse", f"{base}^") == git(repo, "rev-parse", "HEAD")
    assert git(repo, "rev-parse", base_ref(RUN)) == base
    assert git(repo, "log", "-1", "--format=%an <%ae>", base) == \
        "Agent Canvas <agent-canvas@localhost>"


def test_a_repository_with_no_commit_gets_a_base_without_parent(
        tmp_path: Path, no_git_config) -> None:
    repo = user_repo(tmp_path / "repo", commit=False)
    before = fingerprint(repo)
    base, _left_out = ensure_base(repo, RUN)
    assert fingerprint(repo) == before
    assert git(repo, "rev-list", "--parents", "-n", "1", base) == base  # no parent
    assert set(tree_files(repo, base)) == {".gitignore", "committed.txt", "both.txt",
                                           "staged.txt", "untracked.txt"}


def test_an_empty_repository_gets_an_empty_base(tmp_path: Path, no_git_config) -> None:
    repo = tmp_path / "empty"
    repo.mkdir()
    git(repo, "init", "-q")
    base, _left_out = ensure_base(repo, RUN)
    assert tree_files(repo, base) == {}


def test_the_base_is_made_once_per_run_and_a_twin_run_is_refused(
        tmp_path: Path, no_git_config) -> None:
    repo = user_repo(tmp_path / "repo")
    base, _left_out = ensure_base(repo, RUN)
    (repo / "later.txt").write_text("written after the run started\n")
    assert ensure_base(repo, RUN)[0] == base  # a resumed run, or its next node: the same base
    with pytest.raises(GitError, match="belongs to another run"):
        ensure_base(repo, TWIN)


def test_a_run_folder_inside_the_repository_is_left_out(tmp_path: Path, no_git_config) -> None:
    repo = user_repo(tmp_path / "repo")
    run_dir = repo / "data" / "runs" / RUN
    run_dir.mkdir(parents=True)
    (run_dir / "events.jsonl").write_text("{}\n")
    base = capture(repo, "base", exclude=[run_dir])
    assert "untracked.txt" in tree_files(repo, base)
    assert not [name for name in tree_files(repo, base) if name.startswith("data/")]


def _data_folder(data: Path) -> Path:
    """A data folder as the service and runs leave it: the token file, another run's
    log, a pooled worktree's file; the run folder that captures a base."""
    (data / "runs" / TWIN).mkdir(parents=True)
    (data / "runs" / TWIN / "events.jsonl").write_text("{}\n")
    (data / "worktree-pool" / "spare").mkdir(parents=True)
    (data / "worktree-pool" / "spare" / "f.txt").write_text("pooled\n")
    (data / "server.json").write_text('{"token": "secret"}\n')
    (data / "runs" / RUN).mkdir()
    return data / "runs" / RUN


@pytest.mark.parametrize("where", [".local/share/agent-canvas", "."])
def test_a_data_folder_inside_the_repository_is_left_out_of_the_base(
        tmp_path: Path, no_git_config, where: str) -> None:
    """A home folder under git holds the default data folder: its other runs and the
    service's token file must reach no worktree."""
    repo = user_repo(tmp_path / "repo")
    run_dir = _data_folder(repo / where)
    base, _ = ensure_base(repo, RUN, exclude=[run_dir])
    files = tree_files(repo, base)
    assert "untracked.txt" in files and "both.txt" in files
    assert not [name for name in files if "runs/" in name or "server.json" in name
                or "worktree-pool" in name]


def test_a_data_folder_the_user_ignores_inside_the_repository_is_no_obstacle(
        tmp_path: Path, no_git_config) -> None:
    repo = user_repo(tmp_path / "repo")
    (repo / ".gitignore").write_text(".data/\n")
    run_dir = _data_folder(repo / ".data")
    base, _ = ensure_base(repo, RUN, exclude=[run_dir])
    files = tree_files(repo, base)
    assert ".gitignore" in files and "untracked.txt" in files
    assert not [name for name in files if name.startswith(".data/")]


def test_a_folder_git_cannot_add_is_named_with_git_s_words_and_the_fix(
        tmp_path: Path, no_git_config) -> None:
    repo = user_repo(tmp_path / "repo")
    git(tmp_path, "init", "-q", str(repo / "nest" / "inner"))
    (repo / "nest" / "inner" / "f.txt").write_text("x\n")
    with pytest.raises(GitError) as raised:
        ensure_base(repo, RUN)
    said = str(raised.value)
    assert "'nest/inner/' does not have a commit checked out" in said
    assert ".gitignore" in said and f"git -C {repo} add --dry-run -A" in said


NAMES = st.sampled_from(["a.txt", "b.txt", "sub/c.txt", "sub/deep/d.bin", "e.log"])
STATES = st.sampled_from(["committed", "modified", "staged", "staged-then-modified",
                          "untracked", "deleted"])


@settings(max_examples=12, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(plan=st.dictionaries(NAMES, st.tuples(STATES, st.binary(max_size=40)), min_size=1))
def test_any_mix_of_changes_is_captured_exactly_and_nothing_of_theirs_moves(
        plan: dict[str, tuple[str, bytes]], no_git_config) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp) / "repo"
        repo.mkdir()
        git(repo, "init", "-q")
        (repo / ".gitignore").write_text("*.log\n")
        git(repo, "add", ".gitignore")
        for name, (state, _) in plan.items():
            if state != "untracked":
                path = repo / name
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(b"first\n")
                git(repo, "add", "-f", name)
        git(repo, "commit", "-q", "--allow-empty", "-m", "start")
        for name, (state, data) in plan.items():
            path = repo / name
            path.parent.mkdir(parents=True, exist_ok=True)
            if state == "deleted":
                path.unlink()
            elif state != "committed":
                path.write_bytes(data)
            if state.startswith("staged"):
                git(repo, "add", "-f", name)
            if state == "staged-then-modified":
                path.write_bytes(data + b"!")
        before = fingerprint(repo)
        base, _left_out = ensure_base(repo, RUN)
        assert fingerprint(repo) == before
        expected = working_files(repo)
        tracked = set(git(repo, "ls-files", "-z").split("\0"))
        for name in list(expected):  # ignored and untracked: left out; tracked: kept
            if name.endswith(".log") and name not in tracked:
                del expected[name]
        assert tree_files(repo, base) == expected


def test_a_change_in_the_clock_tick_of_their_index_is_captured(tmp_path: Path,
                                                                no_git_config) -> None:
    """A file changed (same size) in the tick their index was written looks unchanged
    by its stat; git rechecks such a "racy" entry because it is as new as the index, so
    the base must be made from a copy of the index that keeps the index's time."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    git(repo, "config", "core.trustctime", "false")  # ctime cannot be set; mtime can
    (repo / "a.txt").write_bytes(b"first\n")
    git(repo, "add", "a.txt")
    git(repo, "commit", "-q", "-m", "start")
    index = repo / ".git" / "index"
    tick = (repo / "a.txt").stat().st_mtime_ns
    os.utime(index, ns=(tick, tick))  # the index written in the file's tick
    (repo / "a.txt").write_bytes(b"later\n")  # same size ...
    os.utime(repo / "a.txt", ns=(tick, tick))  # ... and the same time: only content differs
    base, _left_out = ensure_base(repo, RUN)
    assert tree_files(repo, base)["a.txt"] == b"later\n"
    assert (repo / "a.txt").read_bytes() == b"later\n"


def test_big_untracked_files_stay_out_of_the_base_and_its_message_names_them(
        tmp_path: Path, no_git_config, monkeypatch: pytest.MonkeyPatch) -> None:
    """A dataset nobody ignored would be copied into the repository's objects and every
    worktree; one the user staged is theirs to carry."""
    monkeypatch.setattr("desktop.runtime.git_base.BIG_UNTRACKED", 1000)
    repo = user_repo(tmp_path / "repo")
    (repo / "data").mkdir()
    (repo / "data" / "set 1.bin").write_bytes(b"x" * 1001)
    (repo / "staged.bin").write_bytes(b"y" * 2000)
    git(repo, "add", "staged.bin")
    (repo / "small.txt").write_text("z" * 1000)
    before = fingerprint(repo)
    base, left_out = ensure_base(repo, RUN)
    assert fingerprint(repo) == before
    assert left_out == ["data/set 1.bin"]
    files = tree_files(repo, base)
    assert "data/set 1.bin" not in files and {"staged.bin", "small.txt"} <= set(files)
    blob = git(repo, "hash-object", "data/set 1.bin")  # its id, not written
    assert subprocess.run(["git", "cat-file", "-e", blob], cwd=repo).returncode != 0
    assert ensure_base(repo, RUN) == (base, ["data/set 1.bin"])  # read back from the message


def test_untracked_folders_of_many_files_stay_out_of_the_base_and_tracked_work_stays_in(
        tmp_path: Path, no_git_config, monkeypatch: pytest.MonkeyPatch) -> None:
    """A virtual environment nobody ignored is thousands of files copied into the
    repository's objects and every worktree; a folder holding a tracked file keeps it
    (and its change), only an untracked folder inside it goes."""
    monkeypatch.setattr("desktop.runtime.git_base.MANY_UNTRACKED", 5)
    repo = user_repo(tmp_path / "repo")
    (repo / "src").mkdir()
    (repo / "src" / "app.py").write_text("v1\n")
    git(repo, "add", "src/app.py")
    git(repo, "commit", "-qm", "app")
    (repo / "src" / "app.py").write_text("v2, the user's change\n")
    for folder, count in (("venv/lib/site", 4), ("venv/bin", 3), ("src/gen", 6),
                          ("src", 3), ("few", 5)):
        (repo / folder).mkdir(parents=True, exist_ok=True)
        for n in range(count):
            (repo / folder / f"f{n}.txt").write_text(f"{folder} {n}\n")
    before = fingerprint(repo)
    base, left_out = ensure_base(repo, RUN)
    assert fingerprint(repo) == before
    assert left_out == ["src/gen/", "venv/"]
    files = tree_files(repo, base)
    assert not any(p.startswith(("venv/", "src/gen/")) for p in files)
    assert files["src/app.py"] == b"v2, the user's change\n"
    assert {f"src/f{n}.txt" for n in range(3)} | {f"few/f{n}.txt" for n in range(5)} \
        <= set(files)
    assert ensure_base(repo, RUN) == (base, ["src/gen/", "venv/"])  # from the message
