"""One run as the GUI sees it: an in-process engine (live) or a run folder (read-only).

Live sessions drive :class:`~desktop.runtime.engine.Engine` on the shared asyncio
loop (qasync); commands go straight to the engine, and every view learns what
happened from the run's events through the :class:`RunBridge`.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Signal
from shiboken6 import isValid

from desktop.ui.run.bridge import RunBridge
from desktop.ui.run.transcript_model import TranscriptModel
from desktop.views.reader import LogTail

log = logging.getLogger(__name__)


class RunSession(QObject):
    """A run shown in the window; ``engine`` is None when it is read-only."""

    finished = Signal(str)  # final status
    failed = Signal(str)  # an error message for the user

    def __init__(self, run_dir: Path, engine: Any = None, parent: QObject | None = None,
                 *, follow: bool = False) -> None:
        super().__init__(parent)
        self.run_dir = Path(run_dir)
        self.engine = engine
        self.bridge = RunBridge(self)
        self.model = TranscriptModel.open_file(self.run_dir / "events.jsonl", self)
        tail = LogTail(self.run_dir)
        self.bridge.projection.extend(tail.iter_new())
        self.bridge.events.connect(self.model.ingest)
        self._task: asyncio.Future | None = None
        if engine is not None:
            self.bridge.attach_log(engine.log)
            # events flushed between our read and the subscription would be lost: re-read
            self.bridge.push(tail.read_new())
        elif follow:
            self.bridge.follow_file(self.run_dir, after=tail.after)

    # --- construction ---------------------------------------------------------------------

    @classmethod
    def create(cls, doc: Any, data_dir: Path, *, mode: str | None = None,
               global_mode: str | None = None, workflow_path: str | None = None,
               options: Any = None, parent: QObject | None = None) -> RunSession:
        """A new run of workflow ``doc`` (not started yet)."""
        from desktop.runtime.recovery import create_run

        engine = create_run(doc, Path(data_dir), mode=mode, global_mode=global_mode,
                            workflow_path=workflow_path, options=options)
        return cls(engine.run_dir, engine, parent)

    @classmethod
    def open(cls, run_dir: Path, parent: QObject | None = None) -> RunSession:
        """A past run, read-only (it follows the log if another process still writes it)."""
        from desktop.store.runs import engine_alive

        return cls(run_dir, None, parent, follow=engine_alive(Path(run_dir)))

    @classmethod
    def take_over(cls, run_dir: Path, parent: QObject | None = None, **kwargs: Any) -> RunSession:
        """Take over an interrupted or paused run with an in-process engine."""
        from desktop.runtime.engine import Engine

        return cls(run_dir, Engine.resume(Path(run_dir), **kwargs), parent)

    # --- state -------------------------------------------------------------------------------

    @property
    def live(self) -> bool:
        """True while an engine of this process drives the run."""
        return self.engine is not None

    @property
    def state(self) -> dict | None:
        """The run state folded from the events delivered so far (camelCase dict)."""
        return self.bridge.state

    @property
    def running(self) -> bool:
        """True while the engine's run loop is going."""
        return self._task is not None and not self._task.done()

    # --- commands ------------------------------------------------------------------------------

    def start(self) -> asyncio.Future:
        """Run the engine's loop on the shared asyncio loop."""
        if self.engine is None:
            raise RuntimeError("this run is open read-only; use Run again")
        if self.running:
            return self._task
        self._task = asyncio.ensure_future(self.engine.run())
        self._task.add_done_callback(self._done)
        return self._task

    def _done(self, task: asyncio.Future) -> None:
        if not isValid(self):  # the window went away while the run ended
            return
        self.bridge.drain()
        if task.cancelled():
            self.finished.emit("cancelled")
            return
        exc = task.exception()
        if exc is not None:
            log.error("run loop failed", exc_info=exc)
            self.failed.emit(str(exc))
            self.finished.emit("failed")
            return
        self.finished.emit(str(task.result()))

    def _call(self, name: str, *args: Any, **kwargs: Any) -> Any:
        if self.engine is None:
            self.failed.emit("this run is open read-only")
            return None
        try:
            result = getattr(self.engine, name)(*args, **kwargs)
        except Exception as exc:  # engine refusals carry a message for the user
            self.failed.emit(str(exc))
            return None
        if asyncio.iscoroutine(result):
            return asyncio.ensure_future(result)
        return result

    def step(self, node: str | None = None) -> Any:
        """INTERACTIVE: the next turn, or ``node``'s."""
        result = self._call("step", node)
        if not self.running and self.engine is not None:
            self.start()
        return result

    def pause(self) -> None:
        """No new turns start."""
        self._call("pause")

    def resume(self) -> None:
        """Continue a paused or stalled run."""
        self._call("resume_run")
        if not self.running and self.engine is not None:
            self.start()

    def stop(self) -> Any:
        """Cancel running turns and stop the run."""
        return self._call("stop")

    def set_mode(self, mode: str | None = None, global_mode: str | None = None) -> None:
        """Switch AUTO/INTERACTIVE and PLANNING/IMPLEMENTATION."""
        self._call("set_mode", mode, global_mode)

    def chat(self, node: str, text: str) -> None:
        """Send ``text`` to ``node`` as a user message."""
        self._call("chat", node, text)

    def update_node_config(self, node: str, patch: dict) -> None:
        """Change a node's config (e.g. its instructions) before resuming."""
        self._call("update_node_config", node, patch)

    def resolve(self, approval_id: str, status: str, modified_args: dict | None = None,
                reason: str | None = None) -> bool:
        """Decide a pending approval through the engine's broker; True when accepted."""
        if self.engine is None:
            self.failed.emit("this run is open read-only")
            return False
        try:
            self.engine.broker.resolve(approval_id, status, modified_args=modified_args,
                                       reason=reason, by="gui")
        except Exception as exc:  # unknown or already resolved
            self.failed.emit(str(exc))
            return False
        self.engine.recorder.flush()
        return True

    async def close(self) -> None:
        """Detach from the run (turns are cancelled; the run can be resumed later)."""
        self.bridge.detach()
        if self.engine is not None:
            if self.running:  # end the loop first: it flushes the log on the way out
                self._task.cancel()
                await asyncio.gather(self._task, return_exceptions=True)
                await self.engine.detach()
            else:
                self.engine.close()
        self.model.close()
