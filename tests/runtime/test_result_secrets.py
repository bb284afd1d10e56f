"""A secret value an agent wrote into a file of its worktree is found in the change, named
by file and secret name (never by value), and applying a result that carries it is
refused until the file is left out, the value taken out, or the user allows it."""

from __future__ import annotations

import string
from pathlib import Path

import orjson
import pytest
from gitkit import fingerprint, git, no_git_config, user_repo
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from desktop.runtime.result_apply import apply_result
from desktop.runtime.run_result import RunResult, changed_files
from desktop.runtime.secret_scan import SecretFound, added_secrets
from desktop.runtime.worktrees import commit_all, head, open_tree
from desktop.store.applied import read_applied

__all__ = ["no_git_config"]
RUN = "1a2b3c4d-0000-4000-8000-000000000002"
NODE = "00000000-0000-4000-8000-00000000000b"
KEY = "sk-test-4f9a0c2e8b7d6a5c"


def a_result(tmp_path: Path, env: str = f"OPENAI_API_KEY={KEY}\n") -> tuple[Path, RunResult]:
    """The user's repository and a run's result whose turn wrote ``.env`` (holding the
    key) and ``app.py``."""
    repo = user_repo(tmp_path / "repo")
    run_dir = tmp_path / "runs" / RUN
    tree = open_tree(repo, run_dir, RUN, "impl", NODE)
    assert tree is not None
    (tree.path / ".env").write_text(env)
    (tree.path / "app.py").write_text("import os\nkey = os.environ['OPENAI_API_KEY']\n")
    assert commit_all(tree, "the run's turn\n") is not None
    tip = head(tree.path)
    return repo, RunResult(RUN, run_dir, NODE, "impl", repo, tree.branch, tree.base, tip,
                           changed_files(repo, tree.base, tip))


@pytest.fixture
def key_in_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)


def test_a_result_holding_a_secret_is_refused_naming_the_file_and_secret(
        tmp_path: Path, no_git_config, key_in_env) -> None:
    repo, result = a_result(tmp_path)
    before = fingerprint(repo)
    for branch in (None, "x"):
        for check in (True, False):
            outcome = apply_result(result, branch=branch, check=check)
            assert not outcome.applied
            assert outcome.secrets == [SecretFound(".env", "OPENAI_API_KEY")]
            said = outcome.message
            assert ".env (OPENAI_API_KEY)" in said and "--allow-secrets" in said
            assert "Result view" in said and result.branch in said and KEY not in said
            assert KEY not in orjson.dumps(outcome.to_json()).decode()
    assert fingerprint(repo) == before and read_applied(result.run_dir) == []
    assert git(repo, "branch", "--list", "x") == ""


def test_rejecting_the_file_or_allowing_it_applies(tmp_path: Path, no_git_config,
                                                  key_in_env) -> None:
    repo, result = a_result(tmp_path)
    rest = apply_result(result, branch="without", files=["app.py"])
    assert rest.applied and rest.files == ["app.py"] and rest.secrets == []
    allowed = apply_result(result, branch="with", allow_secrets=True)
    assert allowed.applied and ".env" in allowed.files
    assert KEY in git(repo, "show", "with:.env")


def test_a_value_taken_out_on_the_branch_clears_it(tmp_path: Path, no_git_config,
                                                   key_in_env) -> None:
    repo, result = a_result(tmp_path)
    worktree = Path(git(repo, "worktree", "list", "--porcelain").split("\n\n")[1]
                    .splitlines()[0].removeprefix("worktree "))
    assert (worktree / ".env").read_text() == f"OPENAI_API_KEY={KEY}\n"
    (worktree / ".env").write_text("OPENAI_API_KEY=\n")
    git(worktree, "commit", "-qam", "no key")
    tip = head(worktree)
    fixed = RunResult(RUN, result.run_dir, NODE, "impl", repo, result.branch, result.base,
                      tip, changed_files(repo, result.base, tip))
    assert apply_result(fixed, branch="x").applied


def test_a_recorded_secret_this_process_cannot_check_counts_while_its_file_is_applied(
        tmp_path: Path, no_git_config) -> None:
    """The engine's environment had a key this one lacks: its turn's record stands."""
    _, result = a_result(tmp_path, env="PLAIN=1\n")
    diff = {"type": "artifact.created", "seq": 1, "artifact": {
        "kind": "diff", "name": "diff.patch",
        "secrets": [{"path": ".env", "name": "ENGINE_ONLY_TOKEN"}]}}
    (result.run_dir / "events.jsonl").write_bytes(orjson.dumps(diff) + b"\n")
    refused = apply_result(result, check=True)
    assert refused.secrets == [SecretFound(".env", "ENGINE_ONLY_TOKEN")]
    assert apply_result(result, check=True, files=["app.py"]).secrets == []


_TEXT = st.text(alphabet=string.ascii_letters + string.digits + " =:_-./\t", max_size=40)


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(secret=st.text(alphabet=string.ascii_letters + string.digits + "-_", min_size=8,
                      max_size=40),
       files=st.dictionaries(st.from_regex(r"[a-z]{1,6}(/[a-z]{1,6})?\.(txt|env|py)",
                                           fullmatch=True),
                             st.tuples(st.lists(_TEXT, max_size=4), st.booleans(),
                                       st.booleans()), min_size=1, max_size=5))
def test_found_exactly_where_an_added_line_holds_the_value(
        secret: str, files: dict[str, tuple[list[str], bool, bool]]) -> None:
    """Each file: lines, whether an added line holds the secret, whether a removed one does
    (a removal carries nothing)."""
    patch, expected = b"", set()
    for path, (lines, added, removed) in files.items():
        old = ["context", *([f"old {secret}"] if removed else [])]
        new = [*lines, *([f"KEY={secret}"] if added else [])]
        if any(secret in line for line in new):
            expected.add(SecretFound(path, "THE_KEY"))
        hunk = "".join(f"-{line}\n" for line in old) + "".join(f"+{line}\n" for line in new)
        patch += (f"diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n"
                  f"@@ -1,{len(old)} +1,{len(new)} @@\n{hunk}").encode()
    assert set(added_secrets(patch, {secret: "THE_KEY"})) == expected
    assert added_secrets(patch, {}) == []
