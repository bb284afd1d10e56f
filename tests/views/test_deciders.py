"""A decision's ``by`` reads in the product's words, the same in the Conversation, the
transcript (``runs events``) and the console of ``agent-canvas run``."""

from __future__ import annotations

import io
from types import SimpleNamespace

from hypothesis import given
from hypothesis import strategies as st

from desktop.cli.run_view import PlainView
from desktop.views.conversation import Conversation
from desktop.views.deciders import OTHERS, PEOPLE, chosen_text, decider, decision_text
from desktop.views.format import preview
from desktop.views.notices import notices_of

LEAD = "n-lead"
MERGE = {"source": "canvas/1a2b/right", "target": "canvas/1a2b/lead", "sender": "right",
         "files": [{"path": "a.txt", "hunks": [{"line": 1, "ours": "a\n", "theirs": "b\n"}]}]}
ASKED = {"type": "approval.requested", "seq": 2, "nodeId": LEAD, "approvalId": "m1",
         "kind": "merge", "merge": MERGE}


def refused(by: str, reason: str | None = "not yet") -> dict:
    return {"type": "approval.resolved", "seq": 3, "nodeId": LEAD, "approvalId": "m1",
            "resolution": {"status": "denied", "reason": reason, "by": by}}


def engineless() -> SimpleNamespace:
    """What PlainView reads of an engine: the nodes' labels and a recorder to listen to
    (the test publishes the notices itself)."""
    return SimpleNamespace(state=SimpleNamespace(nodes={}),
                           recorder=SimpleNamespace(listen=lambda _callback: None))


def console_line(event: dict) -> str:
    out = io.StringIO()
    view = PlainView(engineless(), out)  # type: ignore[arg-type]
    view.notices.publish([event])
    return out.getvalue().strip()


def test_a_merge_a_person_refused_in_the_app_reads_the_same_everywhere() -> None:
    conv = Conversation()
    conv.extend([{"type": "run.created", "seq": 1, "nodes": {LEAD: {"label": "Lead"}}},
                 ASKED, refused("gui")])
    said = "refused by a person in the app (not yet)"
    assert conv.entries[-1].text == f"{said}: the merge was undone"
    assert preview(refused("gui")) == said
    assert console_line(refused("gui")) == f"approval m1 {said}"


def test_a_request_the_engine_let_go_is_withdrawn_not_refused() -> None:
    assert decision_text(refused("engine")["resolution"]) == "withdrawn (not yet)"
    assert console_line(refused("engine")) == "approval m1 withdrawn (not yet)"


@given(by=st.sampled_from(sorted(PEOPLE)), reason=st.none() | st.text(min_size=1, max_size=20),
       status=st.sampled_from(["approved", "denied", "modified"]))
def test_a_persons_decision_names_a_person_never_the_clients_log_name(
        by: str, reason: str | None, status: str) -> None:
    text = decision_text({"status": status, "by": by, "reason": reason})
    word = "refused" if status == "denied" else status
    assert text.startswith(f"{word} by a person")
    assert f"by {by}" not in text
    assert chosen_text(2, by).startswith("attempt 2 chosen by a person")


def test_every_known_name_has_words_and_a_judge_node_is_named_as_the_judge() -> None:
    for by in (*PEOPLE, *OTHERS):
        assert decider(by) != by
    assert chosen_text(1, "referee") == "attempt 1 chosen by the judge referee"
    assert chosen_text(1, None) == "attempt 1 chosen by a person"
    assert notices_of([refused("gui")])[0].by == "gui"
