"""One-line previews of events: a diff's commit and a node's worktree are named."""

from desktop.views.format import preview


def test_a_diff_names_its_commit_and_branch_when_it_has_one() -> None:
    art = {"kind": "diff", "name": "diff.patch"}
    assert preview({"type": "artifact.created", "artifact": art}) == "diff: diff.patch"
    art |= {"commit": "0123456789" * 4, "branch": "canvas/1a2b3c4d/impl"}
    assert preview({"type": "artifact.created", "artifact": art}) == \
        "diff: diff.patch · commit 01234567 on canvas/1a2b3c4d/impl"


def test_a_node_given_its_worktree_says_where() -> None:
    event = {"type": "node.patch", "patch": {"git": {
        "worktree": "worktrees/impl", "branch": "canvas/1a2b3c4d/impl"}}}
    assert preview(event) == "works in its own worktree worktrees/impl on canvas/1a2b3c4d/impl"
    assert preview({"type": "node.patch", "patch": {"status": "idle"}}) == "node.patch"
