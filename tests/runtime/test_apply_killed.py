"""An application onto the working tree killed (SIGKILL) at each point between keeping
its undo state and recording it done: the user's files are as before it, or the
application is recorded and undo puts them back; a later apply keeps a ref of its
own, never one an earlier application kept."""

from __future__ import annotations

import pickle
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from gitkit import fingerprint, git, no_git_config
from test_result_apply import a_result

from desktop.runtime.result_apply import apply_result
from desktop.runtime.result_undo import NothingToUndo, undo_apply
from desktop.runtime.run_result import RunResult
from desktop.store.applied import UNDER_WAY, read_applied

__all__ = ["no_git_config"]
ROOT = Path(__file__).resolve().parents[2]

# Runs apply_result in a process of its own that kills itself with SIGKILL right after
# the named step of result_apply returns ("partly": in the middle of writing the files).
KILLER = textwrap.dedent("""
    import os, pickle, signal, sys
    from desktop.runtime import result_apply
    from desktop.runtime.git_run import git

    result, step = pickle.loads(open(sys.argv[1], "rb").read())

    def die():
        os.kill(os.getpid(), signal.SIGKILL)

    def partly(repo, ours, merged):
        # git apply killed after writing the first file: the others are still as before
        first = result_apply.changed_files(repo, ours, merged)[0].path
        patch = git(repo, "diff", "--binary", "--full-index", "--no-renames", ours,
                    merged, "--", first).out
        assert git(repo, "apply", "-", stdin=patch).ok
        die()

    if step == "partly":
        result_apply.onto_working_tree = partly
    else:
        real = getattr(result_apply, step)

        def then_die(*args, **kwargs):
            real(*args, **kwargs)
            die()

        setattr(result_apply, step, then_die)
    result_apply.apply_result(result)
    sys.exit("the step was never reached")
""")
STEPS = ["_undo_point", "record_applied", "partly", "onto_working_tree", "finish_applied"]


def applied_refs(repo: Path) -> dict[str, str]:
    listed = git(repo, "for-each-ref", "--format=%(refname) %(objectname)",
                 "refs/canvas/").splitlines()
    return dict(line.split(" ", 1) for line in listed if "/applied/" in line)


def killed_at(step: str, result: RunResult, tmp_path: Path) -> None:
    given = tmp_path / "given.pickle"
    given.write_bytes(pickle.dumps((result, step)))
    done = subprocess.run([sys.executable, "-c", KILLER, str(given)], cwd=ROOT,
                          capture_output=True, text=True, check=False)
    assert done.returncode == -signal.SIGKILL, done.stderr


def mine(repo: Path) -> tuple[object, object]:
    """The user's files and what git says of them."""
    found = fingerprint(repo)
    return found["files"], found["status"]


@pytest.mark.parametrize("step", STEPS)
def test_an_apply_killed_at_any_step_is_undone_or_changed_nothing(
        step: str, tmp_path: Path, no_git_config) -> None:
    repo, result = a_result(tmp_path)
    before = mine(repo)
    killed_at(step, result, tmp_path)
    records = read_applied(result.run_dir)
    if mine(repo) != before:  # some file was written: the application is on record
        assert [r["files"] for r in records] == [result.paths()]
        assert records[0].get(UNDER_WAY, False) is (step != "finish_applied")
        assert undo_apply(result).applied
    else:
        try:
            undo_apply(result)  # a record of an apply that wrote nothing yet puts back nothing
        except NothingToUndo:
            assert records == []
    assert mine(repo) == before

    kept = applied_refs(repo)
    assert apply_result(result).applied  # whole this time
    now = applied_refs(repo)
    assert {ref: now[ref] for ref in kept} == kept  # no ref kept before was replaced
    assert len(now) == len(kept) + 1
    assert not read_applied(result.run_dir)[-1].get(UNDER_WAY)
    assert undo_apply(result).applied
    assert mine(repo) == before
