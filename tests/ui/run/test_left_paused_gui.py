"""A run the terminal left paused (``agent-canvas run`` whose input ran out while an
approval waited), opened in the window from its folder: the window says it is paused,
what it waits for and offers Resume, as ``agent-canvas runs show`` does, not that it was
interrupted; Resume goes on in the service, which asks the withdrawn question again."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from run_flows import gated

from desktop.graph.io import loads_workflow

GATED = gated("echo one")


def _left_paused(data: Path) -> Path:
    """A run of GATED left paused at its approval by the terminal: its folder."""
    flow = data / "gated.flow.yaml"
    flow.write_text(GATED, encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "desktop", "run", str(flow), "--data-dir",
                           str(data)], capture_output=True, text=True, timeout=300,
                          stdin=subprocess.DEVNULL, check=False)
    assert done.returncode == 3 and "is paused" in done.stderr, done.stderr
    [folder] = (data / "runs").iterdir()
    return folder


def test_a_run_left_paused_opens_paused_with_what_it_waits_for_and_resumes(
        qloop, window_for, until, own_service) -> None:
    run_dir = _left_paused(own_service.data_dir)
    _window, panels = window_for(loads_workflow(GATED), own_service.data_dir)
    panels.history.refresh()
    row = next(r for r in panels.history.rows if r.path == run_dir)
    assert (row.status, row.live) == ("paused", False)
    session = panels.open_run(run_dir)
    assert not session.live and not panels.service.isHidden()
    said = panels.service.title.text()
    assert said.startswith("<b>Paused.</b>") and "interrupted" not in said
    # why it paused and what it waits for: the words of `agent-canvas runs show`
    assert "no commands are left on stdin" in said
    assert "Worker's approval" in said and "echo one" in said
    assert panels.service.restart.text() == "&Resume"
    assert panels.controls.resume_action.isEnabled()  # the toolbar's Resume, too

    panels.service.restart.click()
    qloop.run_until_complete(until(lambda: panels.service.isHidden() and session.running
                                   and len(panels.approvals.pending) == 1))
    assert session.live  # the service holds it now, and asks the question again

    async def approve() -> None:
        [approval_id] = list(panels.approvals.pending)
        await session.resolve(approval_id, "approved")
        await until(lambda: (session.state or {}).get("status") == "completed")

    qloop.run_until_complete(approve())
