"""A turn whose change wrote a secret value into a file shows in the Conversation as a
warning naming the node, the file and the secret (its name, never a value), with the
ways on; a diff without one adds nothing."""

from __future__ import annotations

from desktop.views.conversation import Conversation
from desktop.views.secret_words import run_warnings

A = "node-a"
COMMIT = "0123456789abcdef0123456789abcdef01234567"


def diff(seq: int, secrets: list[dict] | None) -> dict:
    artifact = {"id": f"art-{seq}", "nodeId": A, "kind": "diff", "name": "diff.patch",
                "path": "agents/x/diff.patch", "commit": COMMIT, "branch": "canvas/r/impl",
                **({"secrets": secrets} if secrets is not None else {})}
    return {"type": "artifact.created", "seq": seq, "nodeId": A, "artifact": artifact}


def test_a_turn_that_wrote_a_secret_is_a_warning_in_the_conversation() -> None:
    conv = Conversation()
    conv.extend([{"type": "run.created", "seq": 1, "nodes": {A: {"label": "Coder"}}},
                 diff(2, None),
                 diff(3, [{"path": ".env", "name": "STRIPE_API_KEY"},
                          {"path": "conf/app.yml", "name": "DB_TOKEN"}])])
    [entry] = conv.entries
    assert (entry.kind, entry.node, entry.title) == ("system", A,
                                                     "Coder wrote a secret into a file")
    assert ".env (STRIPE_API_KEY), conf/app.yml (DB_TOKEN)" in entry.text
    assert "commit 01234567 on canvas/r/impl" in entry.text
    assert "rejected in the Result view" in entry.text


def test_runs_show_lines_name_the_node_files_and_secrets() -> None:
    state = {"nodes": {A: {"label": "Coder"}}, "artifacts": {
        "a1": diff(2, None)["artifact"],
        "a2": diff(3, [{"path": ".env", "name": "STRIPE_API_KEY"}, {"bad": 1}])["artifact"]}}
    [line] = run_warnings(state)
    assert line.startswith("warning: Coder wrote the value of a secret it was given into "
                           ".env (STRIPE_API_KEY) (commit 01234567)")
    assert "--allow-secrets" in line
