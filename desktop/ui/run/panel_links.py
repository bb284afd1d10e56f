"""How the run panels keep the window in step with the open run: the mode combos and the
inspector show the modes in force (the running run's, else the workflow's), the chat
panel says when it cannot send, the node views (chat, transcript, conversation, diffs,
record) follow the canvas selection unless pinned, and a node's place in the run shown
(its folder and branch) is there for its menu on the canvas (desktop/ui/canvas_menu.py).

A mixin of :class:`desktop.ui.run.attach.RunPanels`.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from desktop.contract.enums import RUN_ENDED
from desktop.ui.run.window_parts import WindowParts

if TYPE_CHECKING:
    from desktop.views.node_place import NodePlace


class ModesAndChat:
    """Mode and chat wiring of RunPanels (uses its window's parts, controls, chat and
    session)."""

    parts: WindowParts
    controls: Any
    chat: Any
    transcript: Any
    conversation: Any
    diffs: Any
    record: Any
    session: Any

    def _sync_document_modes(self, *_args: object) -> None:
        doc, _path = self._document()
        if doc is not None:
            self.controls.set_document_modes(str(doc.mode), str(doc.global_mode))

    def _set_document_modes(self, mode: str, global_mode: str) -> None:
        if self.parts.editor is not None:
            self.parts.editor.set_meta(mode=mode, global_mode=global_mode)  # undoable, saved

    def _show_run_modes(self, state: dict | None) -> None:
        """The inspector shows the modes in force: the running run's, else the workflow's."""
        inspector = self.parts.inspector
        if inspector is None:
            return
        modes = None
        if self.controls.active and state is not None:
            modes = {"mode": str(state.get("mode", "AUTO")),
                     "globalMode": str(state.get("globalMode", "IMPLEMENTATION"))}
        inspector.show_run_modes(modes)

    def _why_no_chat(self, state: dict | None) -> str:
        session = self.session
        status = str((state or {}).get("status") or "")
        if session is None:
            return "No run is open."
        if status in RUN_ENDED:
            # what the app offers to go on: Fork from here… sits on the replay scrubber
            return (f"This run has {status}: it takes no more messages. To go on from it, "
                    "replay it from Run history and use Fork from here…")
        if not session.live:
            return "This run is open read-only: no engine of this app runs it."
        if session.lost is not None:
            return "The service stopped: restart it to send messages."
        return "The run is not running in the service yet."

    def _chat(self, node_id: str, text: str) -> None:
        task = self._each("chat", node_id, text)
        if isinstance(task, asyncio.Future):
            # the line clears once the service took the message; on an error it stays
            task.add_done_callback(lambda t: self.chat.sent(text) if not t.cancelled()
                                   and t.exception() is None and t.result() else None)

    def _canvas_selection(self) -> None:
        if self.parts.scene is None:
            return
        keys = self.parts.scene.selected_node_ids()
        if len(keys) == 1:
            self.chat.select_key(keys[0])  # kept for this run and the next one
        if self.session is None:
            return
        nodes = (self.session.state or {}).get("nodes") or {}
        by_key = {n.get("key"): nid for nid, n in nodes.items()}
        node_id = by_key.get(keys[0]) if len(keys) == 1 else None
        for view in (self.transcript, self.conversation, self.diffs, self.record):  # unpinned
            view.follow_selection(node_id)

    def node_place(self, key: str) -> NodePlace | None:
        """Where node ``key`` works in the run shown (None: no run shown, or no such node
        in it): what its menu on the canvas offers (desktop/ui/canvas_menu.py)."""
        from desktop.views.node_place import node_place

        session = self.session
        if session is None:
            return None
        return node_place(session.state, session.run_dir, key,
                          remote=session.remote is not None)
