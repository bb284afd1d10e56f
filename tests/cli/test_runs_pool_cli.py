"""`agent-canvas runs pool`: each repository's pooled worktrees with their disk and when a
run last used them (a repository gone said so), and `--drop` removing them with git,
a worktree the user locked kept (exit 1); the user's own work untouched."""

from __future__ import annotations

import shutil
from pathlib import Path

import orjson
import pytest
from cli_kit import Cli, git, make_cli
from own_work import own_repo

from desktop.runtime import worktree_pool, worktree_spare


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        tmp_path: Path) -> Cli:
    return make_cli(capsys, monkeypatch, ["--data-dir", str(tmp_path / "data")])


def _listed(repo: Path) -> list[str]:
    return [line.removeprefix("worktree ") for line in
            git(repo, "worktree", "list", "--porcelain").splitlines()
            if line.startswith("worktree ")]


def _pooled(repo: Path, tmp_path: Path) -> Path:
    spare = worktree_spare.make(repo, tmp_path / "data" / worktree_pool.POOL)
    assert spare is not None
    return spare


def test_the_pool_is_listed_per_repository_and_dropped_but_what_the_user_locked(
        cli: Cli, tmp_path: Path) -> None:
    assert cli("runs", "pool").out == \
        f"no worktrees are pooled in {tmp_path / 'data' / worktree_pool.POOL}\n"
    kept, mine, gone = (own_repo(tmp_path / name) for name in ("kept", "mine", "gone"))
    status = git(kept, "status", "--porcelain")
    trees = {repo: _pooled(repo, tmp_path) for repo in (kept, mine, gone)}
    shutil.rmtree(gone)
    git(mine, "worktree", "lock", "--reason", "looking at it", str(trees[mine]))

    said = cli("runs", "pool")
    assert said.code == 0
    lines = said.out.splitlines()
    assert lines[0].startswith(f"{tmp_path / 'data' / worktree_pool.POOL}: 3 worktrees of "
                               "3 repositories, ")
    assert f"  {kept}: 1 worktree, " in said.out and "(last used within the hour)" in said.out
    assert f"  {gone}: 1 worktree, " in said.out
    assert "(repository gone: removed at the next tidy)" in said.out
    listed = orjson.loads(cli("runs", "pool", "--json").out)
    by_repo = {entry["repository"]: entry for entry in listed}
    assert by_repo[str(gone)]["gone"] and not by_repo[str(kept)]["gone"]
    assert by_repo[str(kept)]["worktrees"] == 1 and by_repo[str(kept)]["diskBytes"] > 0

    dropped = cli("runs", "pool", "--drop")
    assert dropped.code == 1  # the locked one stays
    assert dropped.out.splitlines()[0] == "dropped the pooled worktrees of 2 repositories"
    assert f"kept {trees[mine].parent}: a worktree there is locked" in dropped.out
    assert not trees[kept].exists() and not trees[gone].exists() and trees[mine].is_dir()
    assert _listed(kept) == [str(kept)] and str(trees[mine]) in _listed(mine)
    assert git(kept, "status", "--porcelain") == status
    git(mine, "worktree", "unlock", str(trees[mine]))
    assert cli("runs", "pool", "--drop").code == 0 and not trees[mine].exists()
    assert cli("runs", "pool", "--json").out == "[]\n"
