"""Render the README's pictures of the app: ``make screenshots`` (or ``python
scripts/screenshots.py OUT``).

Drives a real window under X11 against a real local service, with the scripted agent, so
each picture shows what a user sees: the editor, compare mode, a live run, an approval, a
stall, a run paused over budget, a replay, a run's result and the notification settings.
Without a DISPLAY it starts its own Xvfb (and ends it). The window is 1600x1000 in the
light theme, and the runs use a fresh data folder, so two renders show the same scenes
(only clock times and run ids differ).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SIZE = (1600, 1000)
STEP_TIMEOUT = 90.0

LOOP = """\
version: 1
name: Fix until green
task: Make the failing test in test_slug.py pass.
nodes:
  - {id: coder, label: Coder, provider: scripted, entry: true, position: {x: 0, y: 0}}
  - {id: checker, label: Checker, roleTemplate: tester, provider: scripted,
     position: {x: 300, y: 0}}
nodeConfigs:
  coder:
    stallThreshold: 2
    script: [{say: "Changed slugify() to strip spaces; the test should pass now."}]
  checker:
    stallThreshold: 5
    script: [{say: "Still failing: slugify('a b') returns 'a-b-'."}]
edges:
  - {from: coder, to: checker, type: handoff, label: check}
  - {from: checker, to: coder, type: handoff, label: still red}
"""


def start_xvfb() -> subprocess.Popen | None:
    """An Xvfb of our own when there is no display; None when one is there already."""
    if os.environ.get("DISPLAY"):
        return None
    if shutil.which("Xvfb") is None:
        sys.exit("screenshots: no DISPLAY and no Xvfb; install it (apt-get install xvfb)")
    for number in range(90, 140):
        if Path(f"/tmp/.X11-unix/X{number}").exists() or Path(f"/tmp/.X{number}-lock").exists():
            continue
        proc = subprocess.Popen(["Xvfb", f":{number}", "-screen", "0",
                                 f"{SIZE[0] + 200}x{SIZE[1] + 200}x24", "-nolisten", "tcp"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if Path(f"/tmp/.X11-unix/X{number}").exists():
                os.environ["DISPLAY"] = f":{number}"
                return proc
            if proc.poll() is not None:
                break
            time.sleep(0.05)
        proc.kill()
    sys.exit("screenshots: could not start Xvfb")


async def wait_for(what: str, pred: Callable[[], bool], timeout: float = STEP_TIMEOUT) -> None:
    end = time.monotonic() + timeout
    while not pred():
        if time.monotonic() > end:
            raise SystemExit(f"screenshots: timed out waiting for {what}")
        await asyncio.sleep(0.05)


async def settle(seconds: float = 0.6) -> None:
    """Let coalesced redraws (conversation, canvas) land before a picture is taken."""
    await asyncio.sleep(seconds)


def user_repository(work: Path) -> Path:
    """A git repository as a user has it: a commit, a change not committed, a note."""
    repo = work / "project"
    repo.mkdir()

    def git(*args: str) -> None:
        subprocess.run(["git", "-c", "user.name=The User", "-c", "user.email=user@example.com",
                        *args], cwd=repo, check=True, capture_output=True)

    git("init", "-q", "-b", "main")
    (repo / ".gitignore").write_text("__pycache__/\n")
    (repo / "README.md").write_text("# project\n")
    git("add", ".")
    git("commit", "-q", "-m", "init")
    (repo / "README.md").write_text("# project\n\nSmall utilities.\n")
    (repo / "NOTES.txt").write_text("my notes\n")
    return repo

BUDGETED = """\
version: 1
name: Within budget
task: Add a --dry-run flag to the sync command.
budget: {maxCostUsd: 0.90}
nodes:
  - {id: planner, label: Planner, roleTemplate: planner, provider: scripted, entry: true,
     position: {x: 0, y: 0}}
  - {id: implementer, label: Implementer, roleTemplate: implementer, provider: scripted,
     position: {x: 300, y: 0}}
  - {id: reviewer, label: Reviewer, roleTemplate: reviewer, provider: scripted,
     position: {x: 600, y: 0}}
nodeConfigs:
  planner:
    budget: {maxTokens: 20000}
    script:
      - usage: {inputTokens: 9800, outputTokens: 2500, costUsd: 0.04}
      - handoff: {to: implementer, message: "Add the flag; print what would change."}
  implementer:
    budget: {maxCostUsd: 0.60}
    script:
      - say: "Reading sync.py and its tests."
      - usage: {inputTokens: 152000, outputTokens: 31000, costUsd: 0.72}
      - hang: true
edges:
  - {from: planner, to: implementer, type: handoff, label: plan}
  - {from: implementer, to: reviewer, type: handoff, label: review}
"""


def on_repository(example: Path, repo: Path):
    """The example workflow with every node working in ``repo`` (each in its worktree)."""
    import yaml

    from desktop.graph.io import loads_workflow

    doc = yaml.safe_load(example.read_text())
    configs = doc.setdefault("nodeConfigs", {})
    for node in doc["nodes"]:
        configs.setdefault(node["id"], {})["workspace"] = str(repo)
    return loads_workflow(yaml.safe_dump(doc, sort_keys=False))


def shoot(window, out: Path, name: str, dialog=None) -> Path:
    from PySide6.QtCore import QRect
    from PySide6.QtGui import QColor, QPainter

    window.statusBar().clearMessage()  # no temporary paths in the pictures
    picture = window.grab()
    if dialog is not None:  # the window with the dialog drawn where it sits over it
        painter = QPainter(picture)
        offset = dialog.geometry().topLeft() - window.geometry().topLeft()
        painter.drawPixmap(offset, dialog.grab())
        painter.setPen(QColor("#9aa3b2"))  # no window manager draws its frame under Xvfb
        painter.drawRect(QRect(offset, dialog.size()).adjusted(0, 0, -1, -1))
        painter.end()
    path = out / f"{name}.png"
    if not picture.save(str(path), "PNG"):
        raise SystemExit(f"screenshots: could not write {path}")
    print(f"wrote {path}")
    return path


def _status(panels) -> str:
    return ((panels.session.state if panels.session else None) or {}).get("status", "")


async def _done(task) -> None:
    if task is not None:
        await task


def _turns_done(panels) -> int:
    return sum(1 for e in _events(panels)
               if e.get("type") == "turn.status" and e.get("status") == "completed")


def _events(panels) -> list[dict]:
    from desktop.views.reader import LogTail

    return LogTail(panels.session.run_dir).read_new()


async def scenes(window, out: Path, work: Path) -> None:
    from PySide6.QtCore import QPoint, QPointF

    from desktop.graph.io import loads_workflow
    from desktop.graph.resources import examples_dir

    panels = window.run_panels
    example = work / "plan-implement-review.flow.yaml"
    example.write_bytes((examples_dir() / example.name).read_bytes())

    # 1. the editor: a workflow with a group and a sticky note
    window.files.open_path(example)
    editor = window.editor
    editor.add_group(around=["implementer", "reviewer"], label="Review loop")
    editor.add_note((-60, 260), "The reviewer sends the change back once, then "
                    "reports to the planner.\n\nSwitch a node to claude, codex or gemini "
                    "in the inspector to run a real agent.")
    window.view.fit()
    window.scene.select(["implementer"])
    await settle()
    shoot(window, out, "editor")
    window.scene.select([])
    await compare_scene(window, out, work)

    # 2. a finished run first (the replay below), then a live one stepped by hand
    await panels.run()
    await wait_for("the example run to complete", lambda: _status(panels) == "completed")
    finished = panels.session.run_dir

    await panels.run(interactive=True)
    await wait_for("the stepped run to start", lambda: bool(panels.session.state))
    for _ in range(3):  # three turns: planner, implementer, reviewer
        done = _turns_done(panels)
        # a step is refused while no turn is pending: after a turn ends, its handoff
        # reaches the next inbox a moment later (longer on a busy machine)
        await wait_for("a turn to step", lambda: panels.order.next_node(
            panels.session.state) is not None)
        await _done(panels.step())
        await wait_for("a stepped turn to finish", lambda d=done: _turns_done(panels) > d)
    window.scene.select(["implementer"])
    panels.docks["conversation"].raise_()
    window.view.fit()
    await settle(1.0)
    shoot(window, out, "live-run")
    await _done(panels.stop())
    await wait_for("the stepped run to stop", lambda: _status(panels) == "stopped")

    # 3. an approval: a shell command waits for a person
    gated = work / "approve-a-command.flow.yaml"
    gated.write_bytes((examples_dir() / "service" / gated.name).read_bytes())
    window.files.open_path(gated)
    builder = window.scene.nodes[window.editor.model.doc.nodes[0].id]
    window.view.centerOn(builder.sceneBoundingRect().center() + QPointF(330, 60))
    await panels.run()
    await wait_for("an approval request", lambda: bool(panels.approvals.pending))
    await settle()
    dialog = panels.approvals.open_request(next(iter(panels.approvals.pending)))
    view = window.view
    corner = view.mapTo(window, view.rect().topRight())
    dialog.move(window.geometry().topLeft() + corner + QPoint(-dialog.width() - 24, 24))
    await settle()
    shoot(window, out, "approval", dialog)
    dialog.deny()
    await _done(panels.stop())
    await wait_for("the gated run to stop", lambda: _status(panels) in ("stopped", "completed"))

    # 4. a stall: the same output twice, and the run pauses with the evidence
    window.file.new(loads_workflow(LOOP))
    window.view.fit()
    await panels.run()
    await wait_for("the stall banner", lambda: not panels.stall.isHidden())
    await settle()
    shoot(window, out, "stall")
    await _done(panels.stop())
    await wait_for("the stalled run to stop", lambda: _status(panels) == "stopped")

    # 4b. over budget: the implementer spent past its own limit, the run is paused
    window.file.new(loads_workflow(BUDGETED))
    window.view.fit()
    await panels.run()
    await wait_for("the budget banner", lambda: not panels.budget.isHidden())
    await settle()
    shoot(window, out, "budget")
    await _done(panels.stop())
    await wait_for("the run over budget to stop", lambda: _status(panels) == "stopped")

    # 5. a replay of the finished run, halfway through
    window.files.open_path(example)
    panels.replay(finished)
    total = len(_events(panels))
    panels.timeline.seek(total // 2)
    panels.docks["conversation"].raise_()
    window.view.fit()
    await settle(1.0)
    shoot(window, out, "replay")
    panels.stop_replay()

    # 6. a run's result: two implementers in the user's repository, one file rejected,
    # the rest applied to the working tree (the user's own changes kept)
    repo = user_repository(work)
    window.file.new(on_repository(examples_dir() / "orchestrator-two-implementers.flow.yaml",
                                  repo))
    await panels.run()
    await wait_for("the two implementers' run", lambda: _status(panels) == "completed")
    result = panels.result
    panels.docks["result"].raise_()
    await wait_for("the result", lambda: result.result is not None and not panels.results.tasks)
    result.set_accepted("test_num_utils.py", False)
    await _done(panels.results.apply(result.accepted()))
    await wait_for("the result to be reloaded", lambda: not panels.results.tasks)
    result.select("text_utils.py")
    await wait_for("a file's diff", lambda: "text_utils.py" in result.patches)
    window.view.fit()
    await settle(1.0)
    shoot(window, out, "result-view")

    # 7. notifications: the settings, run ends turned off (requests and pauses still nudge)
    await notifications_scene(window, out)

    # 8. a subflow node opened while its run is inside it
    await subflow_scene(window, out, work)

    # 9. best-of-N: two attempts ended, the choice with their diffs side by side
    await best_of_scene(window, out, work)


async def best_of_scene(window, out: Path, work: Path) -> None:
    """The best-of-N example waiting for the user's choice: the choice dialog with each
    attempt's output and diff side by side."""
    from PySide6.QtCore import QPoint

    from desktop.graph.resources import examples_dir

    panels = window.run_panels
    example = work / "best-of-n.flow.yaml"
    example.write_bytes((examples_dir() / example.name).read_bytes())
    window.files.open_path(example)
    window.view.fit()
    await panels.run()
    await wait_for("the choice between the attempts", lambda: bool(panels.approvals.pending))
    await settle()
    dialog = panels.approvals.open_request(next(iter(panels.approvals.pending)))
    dialog.resize(1100, 640)
    dialog.move(window.geometry().topLeft() + QPoint(60, 80))
    await settle()
    shoot(window, out, "best-of-n", dialog)
    dialog.reject()
    await _done(panels.stop())
    await wait_for("the best-of-N run to stop", lambda: _status(panels) in ("stopped",
                                                                            "completed"))


async def subflow_scene(window, out: Path, work: Path) -> None:
    """The review subflow opened in a stepped run: its inner graph, live, and the
    breadcrumb back to the workflow that uses it."""
    from desktop.graph.resources import examples_dir

    panels = window.run_panels
    for name in ("subflow-review.flow.yaml", "review.flow.yaml"):
        (work / name).write_bytes((examples_dir() / name).read_bytes())
    window.files.open_path(work / "subflow-review.flow.yaml")
    window.view.fit()
    await panels.run(interactive=True)
    await wait_for("the subflow run to start", lambda: bool(panels.session.state))
    for turns in (1, 1, 2):  # the writer; the review node's step (no turn); the reviewer
        await wait_for("a step to be pending", lambda: panels.order.next_node(
            panels.session.state) is not None)
        await _done(panels.step())
        await wait_for("the step to be taken", lambda t=turns: _turns_done(panels) >= t and
                       panels.order.next_node(panels.session.state) is not None)
    window.open_subflow("review")
    window.subflows.level.view.fit()
    panels.docks["conversation"].raise_()
    await settle(1.0)
    shoot(window, out, "subflow")
    window.subflows.back_to(0)
    await _done(panels.stop())
    await wait_for("the subflow run to stop", lambda: _status(panels) == "stopped")


async def notifications_scene(window, out: Path) -> None:
    """The settings dialog over the window, with one kind of notification turned off."""
    from PySide6.QtCore import QPoint

    from desktop.ui.settings_dialog import SettingsDialog

    dialog = SettingsDialog(window)
    dialog.nudge_switches["ends"].setChecked(False)
    dialog.move(window.geometry().topLeft() + QPoint(420, 140))
    dialog.show()
    await settle()
    shoot(window, out, "notifications", dialog)
    dialog.nudge_switches["ends"].setChecked(True)
    dialog.close()


def older_version(example: Path, work: Path) -> Path:
    """The example as it was before: a tester where the reviewer is, another model."""
    import yaml

    doc = yaml.safe_load(example.read_text())
    doc["nodes"] = [n for n in doc["nodes"] if n["id"] != "reviewer"]
    doc["nodes"].append({"id": "tester", "label": "Tester", "roleTemplate": "tester",
                         "position": {"x": 520, "y": 190}})
    doc["edges"] = [e for e in doc["edges"] if "reviewer" not in (e["from"], e["to"])]
    doc["edges"].append({"from": "implementer", "to": "tester", "label": "test"})
    doc["nodeConfigs"].pop("reviewer")
    doc["nodeConfigs"]["implementer"]["model"] = "gpt-5-mini"
    path = work / "before.flow.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    return path


async def compare_scene(window, out: Path, work: Path) -> None:
    """Compare mode: the open workflow against its older version, a changed node selected."""
    window.compare.with_path(older_version(window.file.path, work))
    window.scene.select(["implementer"])
    await settle()
    shoot(window, out, "compare")
    window.compare.stop()
    window.scene.select([])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", nargs="?", default=str(ROOT / "docs" / "screenshots"))
    parser.add_argument("--offscreen", action="store_true",
                        help="draw without any display (Qt's offscreen platform; the tests)")
    args = parser.parse_args()
    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    xvfb = None if args.offscreen else start_xvfb()
    work = Path(tempfile.mkdtemp(prefix="agent-canvas-shots-"))
    os.environ["AGENT_CANVAS_DATA_DIR"] = str(work / "data")
    os.environ["QT_QPA_PLATFORM"] = "offscreen" if args.offscreen else "xcb"
    os.environ.setdefault("PYTHON_KEYRING_BACKEND", "keyring.backends.null.Keyring")
    try:
        from desktop.api.discovery import stop_spawned
        from desktop.ui.app import application
        from desktop.ui.loop import new_event_loop
        from desktop.ui.settings import ui_settings

        app = application()
        ui_settings().setValue("theme", "light")
        loop = new_event_loop(app)
        asyncio.set_event_loop(loop)
        from desktop.ui.window import EditorWindow

        window = EditorWindow()
        window.resize(*SIZE)
        window.move(0, 0)
        window.show()
        try:
            with loop:
                loop.run_until_complete(scenes(window, out, work))
        finally:
            stop_spawned()
            window.file.close()
    finally:
        if xvfb is not None:
            xvfb.terminate()
            xvfb.wait(10)
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
