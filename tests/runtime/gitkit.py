"""A user's git repository for the worktree tests, and a fingerprint proving it untouched.

The fingerprint is everything of theirs a run must leave as it was: ``git status
--porcelain`` (ignored files too), the index file's bytes, HEAD (the branch and its
commit), every ref outside the run's own ``canvas`` namespaces, the stash, and the
bytes of every file of the working tree.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
from pathlib import Path

import pytest
from engine_helpers import events_of, of_type

USER = ("-c", "user.name=The User", "-c", "user.email=user@example.com")


def git(repo: Path, *args: str) -> str:
    """Run git as the user would (their identity given on the command line), taking no
    optional lock: ``git status`` here must not refresh the index it fingerprints."""
    env = dict(os.environ, GIT_OPTIONAL_LOCKS="0")
    done = subprocess.run(["git", *USER, *args], cwd=repo, env=env, capture_output=True,
                          check=True)
    return done.stdout.decode("utf-8", "replace").strip()


@pytest.fixture
def no_git_config(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch):
    """No global or system git config (no identity): the engine's commits must not need
    one. The tests' own commits give the user's identity on the command line."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for name in ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME",
                 "GIT_COMMITTER_EMAIL", "EMAIL"):
        monkeypatch.delenv(name, raising=False)


def user_repo(path: Path, *, commit: bool = True) -> Path:
    """A repository with a commit (unless ``commit`` is false) and, on top of it, a staged
    file, an unstaged change, a staged-then-changed file, an untracked file and an
    ignored one: every kind of uncommitted work a run must carry and never touch."""
    path.mkdir(parents=True)
    git(path, "init", "-q", "-b", "main")
    (path / ".gitignore").write_text("*.log\n__pycache__/\n")
    (path / "committed.txt").write_text("as committed\n")
    (path / "both.txt").write_text("v1\n")
    if commit:
        git(path, "add", ".gitignore", "committed.txt", "both.txt")
        git(path, "commit", "-q", "-m", "the user's commit")
        (path / "committed.txt").write_text("as committed\nplus an unstaged line\n")
    (path / "staged.txt").write_text("staged, never committed\n")
    git(path, "add", "staged.txt")
    (path / "both.txt").write_text("v2 staged\n")
    git(path, "add", "both.txt")
    (path / "both.txt").write_text("v3 in the working tree\n")
    (path / "untracked.txt").write_text("untracked\n")
    (path / "debug.log").write_text("ignored\n")
    return path


def fingerprint(repo: Path) -> dict[str, object]:
    """What of the user's repository a run must never change (see the module)."""
    index = Path(git(repo, "rev-parse", "--path-format=absolute", "--git-path", "index"))
    refs = [line for line in git(repo, "for-each-ref", "--format=%(refname) %(objectname)")
            .splitlines() if not line.startswith(("refs/canvas/", "refs/heads/canvas/"))]
    head = subprocess.run(["git", "rev-parse", "-q", "--verify", "HEAD"], cwd=repo,
                          capture_output=True, text=True, check=False).stdout.strip()
    files = {p.relative_to(repo).as_posix(): p.read_bytes() for p in sorted(repo.rglob("*"))
             if p.is_file() and ".git" not in p.relative_to(repo).parts}
    index_bytes = index.read_bytes() if index.exists() else None
    return {
        "index": index_bytes,
        "status": git(repo, "status", "--porcelain=v1", "--ignored", "--untracked-files=all"),
        "head": (git(repo, "symbolic-ref", "-q", "HEAD"), head), "refs": refs,
        "stash": git(repo, "stash", "list"), "files": files,
    }


def tree_files(repo: Path, rev: str) -> dict[str, bytes]:
    """The files of commit ``rev`` and their bytes."""
    names = git(repo, "ls-tree", "-r", "-z", "--name-only", rev).split("\0")
    return {name: subprocess.run(["git", "show", f"{rev}:{name}"], cwd=repo,
                                 capture_output=True, check=True).stdout
            for name in names if name}


def patch_files(patch: str) -> set[str]:
    """The files a diff.patch changes."""
    return {line.split(" b/", 1)[1] for line in patch.splitlines()
            if line.startswith("diff --git ")}


def diffs_by_node(engine) -> dict[str, list[dict]]:
    """Each node's diff artifacts (node key -> artifacts), in log order."""
    keys = {node_id: node.key for node_id, node in engine.state.nodes.items()}
    found: dict[str, list[dict]] = {}
    for event in of_type(events_of(engine.run_dir), "artifact.created"):
        art = event["artifact"]
        if art["kind"] == "diff":
            found.setdefault(keys[event["nodeId"]], []).append(art)
    return found


def node_git(engine, key: str):
    """The ``git`` record of node ``key`` (its worktree and branch), or None."""
    return next(n.git for n in engine.state.nodes.values() if n.key == key)


def stopped_at_a_conflict(repo: Path, how: str = "merge") -> None:
    """``repo`` (a :func:`user_repo`) stopped in the middle of ``how`` (``merge`` or
    ``rebase``) with ``both.txt`` in conflict; the user's uncommitted work put away
    first, as git asks."""
    git(repo, "stash", "push", "-q", "--include-untracked")
    git(repo, "checkout", "-q", "-b", "side")
    (repo / "both.txt").write_text("side\n")
    git(repo, "commit", "-q", "-am", "side")
    git(repo, "checkout", "-q", "main")
    (repo / "both.txt").write_text("main\n")
    git(repo, "commit", "-q", "-am", "main")
    with contextlib.suppress(subprocess.CalledProcessError):  # git exits 1: the conflict
        git(repo, how, "side")
    assert "UU both.txt" in git(repo, "status", "--porcelain")


def library_commit(lib: Path, text: str) -> str:
    """A commit of a submodule's own repository whose ``lib.txt`` says ``text``."""
    (lib / "lib.txt").write_text(text)
    git(lib, "add", ".")
    git(lib, "commit", "-q", "-m", text)
    return git(lib, "rev-parse", "HEAD")


def with_submodule(tmp_path: Path, at: str = "vendor/lib") -> tuple[Path, Path]:
    """The user's repository (``user_repo``) with a submodule checked out at ``at``, and
    the submodule's own repository (one commit, ``lib.txt`` "the library")."""
    lib = tmp_path / "lib"
    lib.mkdir()
    git(lib, "init", "-q", "-b", "main")
    library_commit(lib, "the library\n")
    repo = user_repo(tmp_path / "project")
    git(repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(lib), at)
    git(repo, "commit", "-q", "-m", "the submodule")
    return repo, lib
