"""The canvas shows which node waits for an approval, and stops showing it once decided."""

from __future__ import annotations

from run_flows import gated

from desktop.ui.run.canvas_overlay import AWAITING, STATUS_COLORS

GATED = gated("echo one", position=True, extra_nodes="""
  - id: other
    label: Other
    provider: scripted
    position: {x: 300, y: 0}""", extra_configs="""
  other:
    script: [{say: hi}]""")


def test_a_node_waiting_for_approval_is_marked_on_the_canvas(
        qloop, editor_window, until, tmp_path, service):
    path = tmp_path / "gated.flow.yaml"
    path.write_text(GATED)
    assert editor_window.files.open_path(path)
    panels = editor_window.run_panels
    panels.data_dir = service.data_dir
    overlay = panels.overlay

    def badge(key: str):
        nodes = (panels.session.state or {}).get("nodes") or {}
        node_id = next((i for i, n in nodes.items() if n.get("key") == key), None)
        return overlay.badges.get(node_id)

    async def until_approval():
        await panels.run()
        await until(lambda: len(panels.approvals.pending) == 1)

    qloop.run_until_complete(until_approval())
    worker = badge("worker")
    assert worker is not None and worker.status == AWAITING
    assert worker.parentItem() is editor_window.scene.nodes["worker"]
    assert "awaiting approval" in worker.caption()
    assert worker.color.name() == STATUS_COLORS[AWAITING]
    assert STATUS_COLORS[AWAITING] not in {c for s, c in STATUS_COLORS.items() if s != AWAITING}
    assert badge("other").status != AWAITING  # only the node that asked

    async def approve():
        dialog = panels.approvals.open_next()
        assert dialog is not None
        dialog.approve()
        await until(lambda: not panels.approvals.pending)
        await until(lambda: badge("worker").status != AWAITING)
        await until(lambda: (panels.session.state or {}).get("status") == "completed")

    qloop.run_until_complete(approve())
    assert badge("worker").status == "done"
    assert "awaiting" not in badge("worker").caption()
    qloop.run_until_complete(panels.session.close())
    panels.session = None
