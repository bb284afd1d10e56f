"""INTERACTIVE: a queued handoff is read and edited in the chat panel before its turn."""

from __future__ import annotations

import asyncio

from desktop.graph.io import loads_workflow

TWO = """
version: 1
name: Two
task: split the work
nodes:
  - {id: lead, label: Lead, provider: scripted, entry: true}
  - {id: worker, label: Worker, provider: scripted}
nodeConfigs:
  lead: {script: [{handoff: {to: worker, message: "original ask"}}]}
  worker: {script: [{say: "on it"}]}
edges:
  - {from: lead, to: worker}
"""


def test_queued_handoff_edited_in_the_chat_panel_reaches_the_next_turn(qloop, window_for,
                                                                        until):
    _window, panels = window_for(loads_workflow(TWO))

    def state() -> dict:
        return panels.session.state or {}

    def worker_id() -> str:
        return next(i for i, n in state()["nodes"].items() if n.get("key") == "worker")

    async def go():
        await panels.run(interactive=True)
        await until(lambda: state().get("status") == "running")
        panels.controls.step_action.trigger()
        await until(lambda: bool(state().get("inboxes", {}).get(worker_id()))
                    and not state().get("runningTurns"))
        chat = panels.chat
        chat.select_node(worker_id())
        await until(lambda: chat.queue.count() == 1)
        chat.queue.setCurrentRow(0)
        assert chat.editor.toPlainText() == "original ask"
        assert chat.save.isEnabled()  # INTERACTIVE: the message may be changed
        chat.editor.setPlainText("edited ask")
        chat.save.click()
        await until(lambda: state()["inboxes"][worker_id()][0]["text"] == "edited ask")
        await until(lambda: "edited ask" in chat.queue.item(0).text())
        panels.controls.step_action.trigger()
        await until(lambda: state().get("turns", {}).get(worker_id()) == 1)
        await asyncio.sleep(0)

    qloop.run_until_complete(go())
    prompts = [p.read_text() for p in panels.session.run_dir.glob("agents/*/prompt.full.txt")]
    worker_prompt = next(p for p in prompts if "edited ask" in p)
    assert "original ask" not in worker_prompt
