"""Deciding before closing: everything unsaved and every live run is settled first, with one
question, so that Cancel leaves every tab open (nothing is closed half way).

A window, a tab window or Quit gathers its editor windows and calls :func:`settle`.
It asks once (``ask``: the editor's ``ask.closing``, which tests answer), saves what
the user chose to save, and marks each editor as decided, with what its live run is
to do (``keep`` in the service, or ``stop``). The editors' own close then goes
through without asking again.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from desktop.ui.close_dialog import CloseAnswer, LiveRun

Ask = Callable[[list[str], list[LiveRun]], "CloseAnswer | None"]


def live_run(editor: Any) -> bool:
    """True when ``editor`` shows a run the service still drives (not ended)."""
    session = editor.run_panels.session
    return session is not None and bool(session.running)


def live_run_of(editor: Any) -> LiveRun:
    """The live run ``editor`` shows, as the closing questions name it (with the node a
    Step it waits for runs, as the Approvals inbox lists it)."""
    from desktop.views.run_list import step_awaited  # asked at closing only

    session = editor.run_panels.session
    step = None
    if session.state is not None:
        step = step_awaited(session.bridge.projection.model())
    return LiveRun(editor.editor.model.doc.name or "Untitled workflow", session.run_id,
                   len(editor.run_panels.approvals.pending),
                   step=(step["node"] or "the next node") if step else "")


def settle(editors: Iterable[Any], ask: Ask) -> bool:
    """Ask once about the unsaved changes and live runs of ``editors`` not decided yet,
    then save (or discard) and mark each decided; False when the user cancelled or a
    save did not happen, and then nothing is marked and nothing closes."""
    open_ones = [e for e in editors if not e._close_confirmed]
    unsaved = [e for e in open_ones if e.file.is_modified()]
    live = [e for e in open_ones if live_run(e)]
    if not unsaved and not live:
        return True
    answer = _one(unsaved, live) if len(unsaved) + len(live) == 1 else \
        ask([e.document_name() for e in unsaved], [live_run_of(e) for e in live])
    if answer is None:
        return False
    if answer.save and not all(e.files.save() for e in unsaved):
        return False  # a Save As the user cancelled: nothing closes
    for editor in open_ones:
        editor._close_confirmed = True
        editor.run_choice = "stop" if answer.stop else "keep"
    return True


def _one(unsaved: list[Any], live: list[Any]) -> CloseAnswer | None:
    """One thing to settle: the editor's own, familiar question about it."""
    if unsaved:
        reply = unsaved[0].ask.save_changes()
        return None if reply == "cancel" else CloseAnswer(save=reply == "save")
    reply = live[0].ask.live_run()
    return None if reply == "cancel" else CloseAnswer(stop=reply == "stop")
