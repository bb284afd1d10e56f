"""Which newest commits of a run's branch are Agent Canvas's (runs prune deletes such a
branch) and which are the user's (it keeps it): what a commit message names decides, and a
fork's branch still at the commit the fork made it at holds nothing new."""

from __future__ import annotations

import uuid
from pathlib import Path

from gitkit import git
from hypothesis import given
from hypothesis import strategies as st

from desktop.runtime.canvas_commits import (
    FORK_MADE,
    Tip,
    at_fork_start,
    canvas_made,
    recorded_runs,
    tip,
)
from desktop.runtime.worktrees import turn_message

RUN = str(uuid.UUID(int=1))
SOURCE = str(uuid.UUID(int=2))
STRANGER = str(uuid.UUID(int=3))
text = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\n\r\0"),
               max_size=40)
# what Agent Canvas writes, among what a user may write
lines = st.one_of(text, st.sampled_from([
    f"Run: {RUN}", f"Run: {SOURCE}", f"Run: {STRANGER}", f"Run: {RUN} ", f"Run:{RUN}",
    "Node: lead (n1)", "Node: ", "Merge canvas/1a2b3c4d/a into canvas/1a2b3c4d/b"]))


@given(lines, st.lists(lines, max_size=6), st.sampled_from([RUN, SOURCE, STRANGER]))
def test_only_what_agent_canvas_writes_is_taken_for_a_run_s_commit(
        subject: str, body: list[str], named: str) -> None:
    """Whatever the user writes, unless its body names the run (or a recorded run and a
    node) in the lines Agent Canvas writes, or its subject merges node branches."""
    own = subject.startswith("Merge canvas/") or f"Run: {RUN}" in body or (
        f"Run: {SOURCE}" in body and any(line.startswith("Node: ") and line[6:7].strip()
                                         for line in body))
    found = Tip("abc1234", "0" * 40, subject, "\n".join(body))
    assert canvas_made(found, RUN, frozenset({SOURCE})) == own
    # a turn of a run not recorded for the repository is not the run's
    turn = turn_message(named, "lead", "n1", 1, "agent-run", 1)
    subject, _, rest = turn.partition("\n\n")
    found = Tip("abc1234", "0" * 40, subject, rest)
    assert canvas_made(found, RUN, frozenset({SOURCE})) == (named != STRANGER)


def test_a_fork_s_source_is_recorded_by_the_fork_s_base(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    git(tmp_path, "init", "-q", "-b", "main", str(repo))
    git(repo, "commit", "-q", "--allow-empty", "-m", "init")
    base = git(repo, "commit-tree", "HEAD^{tree}", "-m",
               f"Agent Canvas: base of run {RUN[:8]}\n\nRun: {RUN}\nForked-From: {SOURCE}\n")
    git(repo, "update-ref", f"refs/canvas/{RUN[:8]}/base", base)
    git(repo, "branch", f"canvas/{STRANGER[:8]}/lead")
    assert recorded_runs(repo / ".git") == {RUN, SOURCE}


def test_a_branch_still_where_the_fork_made_it_holds_nothing_new(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    git(tmp_path, "init", "-q", "-b", "main", str(repo))
    git(repo, "commit", "-q", "--allow-empty", "-m", "someone's")
    start = git(repo, "rev-parse", "HEAD")
    common, ref = repo / ".git", f"refs/heads/canvas/{RUN[:8]}/lead"
    git(repo, "update-ref", "-m", FORK_MADE, ref, start, "")
    assert at_fork_start(common, ref, start)

    git(repo, "switch", "-q", f"canvas/{RUN[:8]}/lead")
    git(repo, "commit", "-q", "--allow-empty", "-m", "mine")
    found = tip(common, ref)
    assert found is not None and found.subject == "mine"
    assert not at_fork_start(common, ref, found.commit)
    assert not canvas_made(found, RUN, frozenset({RUN}))

    git(repo, "branch", "made-by-hand", start)  # not by a fork
    assert not at_fork_start(common, "refs/heads/made-by-hand", start)
