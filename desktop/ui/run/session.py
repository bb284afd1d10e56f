"""One run as the GUI sees it: a run of the local service (live) or a run folder (read-only).

A live session is a client of the service: it holds an :class:`ApiClient` and the run
id, sends typed commands (desktop/contract/commands.py) over HTTP, and receives the
run's events over the WebSocket (a :class:`RunFollower` task on the GUI thread's asyncio
loop) into the :class:`RunBridge`. The GUI process runs no engine, no agent process and
no worker thread. Closing a session leaves the run running in the service.

The first events of a run the service holds come from the API, in pages of ``GET
.../events`` after seq 0, then the stream continues after the last seq of the pages,
so nothing is missed or shown twice, and the GUI needs no access to the service's
disk. The transcript keeps them in memory. A run no service holds opens read-only from
its folder, through the one reader of logs (desktop/views/reader.py).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Signal
from shiboken6 import isValid

from desktop.api.api_error import ApiError
from desktop.api.client_errors import ServiceUnavailable
from desktop.api.discovery import ServerInfo, ensure_service, find_service
from desktop.contract.commands import (
    Chat,
    EditInbox,
    PatchNode,
    Pause,
    Resolve,
    Resume,
    SetBudget,
    SetMode,
    Step,
    Stop,
)
from desktop.contract.enums import RUN_ENDED, RUN_LIVE
from desktop.ui.run.bridge import RunBridge
from desktop.ui.run.transcript_model import TranscriptModel
from desktop.views.events import FileEvents

if TYPE_CHECKING:
    from desktop.api.client import ApiClient
    from desktop.api.follow import RunFollower

log = logging.getLogger(__name__)

INTERRUPTED = "interrupted"
"""``lost`` of a run that looks live but no engine holds, cut short in a turn."""
LEFT_PAUSED = "paused"
"""``lost`` of a run left paused that no engine holds (desktop/views/paused.py): nothing
was cut short, and resuming it simply goes on, as ``agent-canvas resume`` does."""


def _whole(value: float | None) -> int | None:
    return None if value is None else round(value)


def _data_dir_of(run_dir: Path) -> Path:
    return Path(run_dir).parent.parent  # DATA/runs/<id>


class RunSession(QObject):
    """A run shown in the window; ``client`` is None when it is read-only."""

    finished = Signal(str)  # the run reached a final status
    failed = Signal(str)  # an error message for the user
    serviceLost = Signal(str)  # the service went away while the run was live (why)
    serviceBack = Signal()  # the service is back and drives the run again
    pastLoaded = Signal()  # the events before the session opened are in (API: the pages)
    gone = Signal()  # the service no longer has the run: it was deleted

    def __init__(self, run_dir: Path, parent: QObject | None = None, *,
                 service: ServerInfo | None = None, data_dir: Path | None = None,
                 follow: bool = False) -> None:
        super().__init__(parent)
        self.run_dir = Path(run_dir)
        self.run_id = self.run_dir.name
        self.data_dir = Path(data_dir) if data_dir else _data_dir_of(self.run_dir)
        self.client: ApiClient | None = service.client() if service else None
        self.in_service = False  # the service's engine drives the run
        self.remote: ServerInfo | None = None  # the other machine's service that holds it
        self.lost: str | None = None  # why the service is gone, while it is
        self.lost_message = ""  # what the window says about it
        self.bridge = RunBridge(self)
        self.has_past = self.client is None  # a folder's past is read right here
        self._past_in = asyncio.Event()
        self._past: list[dict] | None = []
        after, offset = 0, None
        if self.client is not None:  # the events come from the API, not the folder
            self.model = TranscriptModel(parent=self)
        else:
            store = FileEvents(self.run_dir / "events.jsonl")
            # the one read of the log: it indexes the transcript and feeds the projection
            self._past = store.read_all()
            self.model = TranscriptModel.over_file(store, self)
            self.bridge.projection.extend(self._past)
            after, offset = (self._past[-1]["seq"] if self._past else 0), store.log.scanned
        self.bridge.events.connect(self.model.ingest)
        self.bridge.stateChanged.connect(self._watch_status)
        self._final = self._status() if self._status() in RUN_ENDED else None
        self._follow_file = follow
        self._stream: asyncio.Task | None = None
        self._commands: set[asyncio.Task] = set()
        self._closed = False
        self.follower: RunFollower | None = None
        if self.client is not None:
            self._start_stream(after, catch_up=True)
        elif follow:
            self.bridge.follow_file(self.run_dir, after=after, offset=offset)
        elif self._status() in RUN_LIVE:  # no engine holds a run that looks live
            self._not_held()

    def _not_held(self) -> None:
        """Say why no engine runs this run that looks live: left paused (the terminal's
        input ran out while it waited), as the CLI says, else interrupted."""
        from desktop.views.paused import left_paused, pause_detail

        state = self.bridge.projection.model()
        if left_paused(state):
            self.lost = LEFT_PAUSED
            self.lost_message = (f"No engine holds it. {pause_detail(state, self.run_dir).text()}"
                                 " Resume starts the service and goes on from here.")
            return
        self.lost = INTERRUPTED
        self.lost_message = ("This run was interrupted: no engine runs it any more. It is "
                             "saved in its log; the service can resume it.")

    async def loaded(self) -> None:
        """Wait until the past is in (at once for a folder), or the stream has ended."""
        if self.has_past or self._stream is None:
            return
        waiting = asyncio.ensure_future(self._past_in.wait())
        try:
            await asyncio.wait({waiting, self._stream}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            waiting.cancel()
            await asyncio.gather(waiting, return_exceptions=True)

    async def artifact_text(self, artifact_id: str) -> str:
        """The text of one of the run's artifacts (a turn's diff), through the API."""
        if self.client is None:
            raise ServiceUnavailable(str(self.run_dir), "this run is read from its folder")
        found = await self.client.artifact(self.run_id, artifact_id)
        text = str(found.get("text") or "")
        if found.get("truncated"):
            text += f"\n... (cut: the file has {found.get('size')} bytes)\n"
        return text

    def take_past(self) -> list[dict]:
        """The events before the session opened (read from the folder, or the API's
        pages; the tail or the stream goes on after them), handed over once, so the panels
        start from them without reading the log again (wait for :attr:`pastLoaded`)."""
        past, self._past = self._past, None
        return past if past is not None else []

    # --- construction ---------------------------------------------------------------------

    @classmethod
    async def create(cls, doc: Any, data_dir: Path, *, mode: str | None = None,
                     global_mode: str | None = None, workflow_path: str | None = None,
                     parent: QObject | None = None, remote: ServerInfo | None = None
                     ) -> RunSession:
        """Start a run of workflow ``doc`` in the service (started first if needed), or in
        ``remote``, another machine's; the document travels in the request."""
        from desktop.graph.io import document_data

        info = remote or await ensure_service(Path(data_dir))
        client = info.client()
        try:
            state = await client.create_run(workflow=document_data(doc),
                                            workflow_path=workflow_path, mode=mode,
                                            global_mode=global_mode)
        finally:
            await client.close()
        session = cls(Path(data_dir) / "runs" / str(state["id"]), parent, service=info,
                      data_dir=Path(data_dir))
        session.remote = remote
        await session.loaded()  # shown with its state, like a run opened from its folder
        return session

    @classmethod
    async def fork(cls, run_dir: Path, at: int, *, nodes: list[dict] | None = None,
                   items: list[dict] | None = None, parent: QObject | None = None,
                   remote: ServerInfo | None = None) -> tuple[RunSession, dict]:
        """Fork the run in ``run_dir`` at event ``at`` in the service (``POST .../fork``),
        or in ``remote``, and follow the new run; the session and the service's answer
        (``point``, ``seq``)."""
        data_dir = _data_dir_of(Path(run_dir))
        info = remote or await ensure_service(data_dir)
        client = info.client()
        try:
            made = await client.fork(Path(run_dir).name, at, nodes=nodes, items=items)
        finally:
            await client.close()
        session = cls(data_dir / "runs" / str(made["run"]["id"]), parent, service=info,
                      data_dir=data_dir)
        session.remote = remote
        await session.loaded()
        return session, made

    @classmethod
    def open(cls, run_dir: Path, parent: QObject | None = None,
             data_dir: Path | None = None, *, remote: ServerInfo | None = None
             ) -> RunSession:
        """A run from its folder: attached to the service when the service drives it,
        else read-only (following the log while another process still writes it).
        ``remote``: the service of another machine, which holds the run; its folder
        is never read (``run_dir`` only names the run)."""
        from desktop.views.runs import engine_alive

        run_dir = Path(run_dir)
        folder = Path(data_dir) if data_dir else _data_dir_of(run_dir)
        if remote is not None:
            session = cls(run_dir, parent, service=remote, data_dir=folder)
            session.remote = remote
            return session
        alive = engine_alive(run_dir)
        info = find_service(folder) if alive else None
        return cls(run_dir, parent, service=info, data_dir=folder, follow=alive)

    # --- state -------------------------------------------------------------------------------

    @property
    def live(self) -> bool:
        """True while the session can steer the run through the service."""
        return self.client is not None

    @property
    def left_paused(self) -> bool:
        """True while the run is paused with no engine holding it, nothing cut short:
        Resume starts the service and goes on."""
        return self.lost == LEFT_PAUSED

    @property
    def state(self) -> dict | None:
        """The run state folded from the events delivered so far (camelCase dict)."""
        return self.bridge.state

    @property
    def running(self) -> bool:
        """True while the service's engine drives the run."""
        return self.in_service and self.lost is None and self._status() not in RUN_ENDED

    def _status(self) -> str:
        return str((self.bridge.state or {}).get("status", ""))

    def _watch_status(self, state: dict) -> None:
        status = str(state.get("status", ""))
        if status in RUN_ENDED and self._final != status:
            self._final = status
            self.finished.emit(status)
        elif status not in RUN_ENDED:
            self._final = None

    # --- the event stream ----------------------------------------------------------------------

    def _start_stream(self, after: int, catch_up: bool = False) -> None:
        assert self.client is not None
        from desktop.api.follow import RunFollower  # with the HTTP client: on first follow

        self.follower = RunFollower(self.client, self.run_id, after, self.bridge.push)
        self._stream = asyncio.ensure_future(self._follow(self.follower, catch_up))
        self._stream.add_done_callback(self._stream_ended)

    async def _follow(self, follower: RunFollower, catch_up: bool) -> None:
        if catch_up:  # the past in pages; the stream goes on after their last seq
            self._take_in(await follower.catch_up())
        runs = await follower.client.list_runs()
        self.in_service = any(r.get("id") == self.run_id and r.get("live") for r in runs)
        if not self.in_service and self._follow_file:
            # another process (e.g. `agent-canvas run`) writes this run: read its log
            await self._drop_client()
            self.bridge.follow_file(self.run_dir, after=follower.last_seq)
            self._announce_state()
            return
        self._announce_state()  # running/live changed
        await follower.run()

    def _take_in(self, past: list[dict]) -> None:
        """The past from the API: folded and in the transcript, then handed to the panels
        (:meth:`take_past`) as a folder's past is."""
        self.bridge.projection.extend(past)
        self.model.ingest(past)
        self._past = past
        self._final = self._status() if self._status() in RUN_ENDED else None
        self.has_past = True
        self._past_in.set()
        self.pastLoaded.emit()

    def _announce_state(self) -> None:
        if self.bridge.state is not None:
            self.bridge.stateChanged.emit(self.bridge.state)

    def _stream_ended(self, task: asyncio.Task) -> None:
        if task.cancelled() or not isValid(self):
            return
        exc = task.exception()
        if isinstance(exc, ServiceUnavailable):
            self._lose(exc.reason)
        elif isinstance(exc, ApiError) and exc.code == "run_not_found":
            self.gone.emit()  # its stream closed with 4004: deleted, by whoever
        elif isinstance(exc, ApiError):
            self.failed.emit(f"Event stream: {exc}")
        elif exc is not None:
            log.error("event stream failed", exc_info=exc)
            self.failed.emit(f"Event stream: {exc}")

    def _lose(self, reason: str) -> None:
        """The service is gone: say so (the run is safe in its log) and wait for a restart."""
        if self.lost is not None or not isValid(self):
            return
        self.in_service = False
        self.lost = reason
        if self._stream is not None and not self._stream.done():
            self._stream.cancel()
        self.lost_message = (f"The Agent Canvas service stopped ({reason}). The run is saved "
                             "in its log; restart the service to continue it.")
        self.serviceLost.emit(self.lost_message)
        self._announce_state()

    def restart_service(self) -> asyncio.Task:
        """Start (or find) the service again and let it resume the run from its log."""
        return asyncio.ensure_future(self._restart())

    async def _restart(self) -> bool:
        try:  # another machine's service is reconnected to, never started from here
            info = self.remote or await ensure_service(self.data_dir)
        except Exception as exc:  # the message (naming the log file) is for the user
            if not self._closed:
                self.failed.emit(str(exc))
            return False
        if self._closed:  # the window went away while the service came up
            return False
        await self._drop_client()
        self.client = info.client()
        after = self.follower.last_seq if self.follower else self.bridge_last_seq()
        try:
            if self._status() not in RUN_ENDED:
                await self.client.send(self.run_id, Resume())
        except ApiError as exc:
            self.failed.emit(f"Resume: {exc}")
        self.lost = None
        self._start_stream(after)
        self.serviceBack.emit()
        return True

    def bridge_last_seq(self) -> int:
        """The seq of the last event folded into the state."""
        return int((self.bridge.state or {}).get("lastSeq") or 0)

    async def _drop_client(self) -> None:
        client, self.client = self.client, None
        if client is not None:
            await client.close()

    # --- commands ------------------------------------------------------------------------------

    def _send(self, what: str, call: Callable[[ApiClient], Awaitable[Any]]) -> asyncio.Task | None:
        """Send one command; errors reach the user through ``failed``."""
        if self.client is None:
            self.failed.emit("This run is open read-only.")
            return None
        if self.lost is not None:
            self.failed.emit(f"{what}: the service is not running; restart it first.")
            return None
        task = asyncio.ensure_future(self._command(what, call, self.client))
        self._commands.add(task)
        task.add_done_callback(self._commands.discard)
        return task

    async def _command(self, what: str, call: Callable[[ApiClient], Awaitable[Any]],
                       client: ApiClient) -> Any:
        try:
            return await call(client)
        except ServiceUnavailable as exc:
            self._lose(exc.reason)
        except ApiError as exc:
            if isValid(self):
                self.failed.emit(f"{what}: {exc}")
        return None

    def step(self, node: str | None = None) -> asyncio.Task | None:
        """INTERACTIVE: the next turn, or ``node``'s."""
        return self._send("Step", lambda c: c.send(self.run_id, Step(node)))

    def pause(self) -> asyncio.Task | None:
        """No new turns start."""
        return self._send("Pause", lambda c: c.send(self.run_id, Pause()))

    def resume(self) -> asyncio.Task | None:
        """Continue a paused or stalled run (restarting the service if it is gone)."""
        if self.lost is not None:
            return self.restart_service()
        return self._send("Resume", self._resume)

    async def _resume(self, client: ApiClient) -> Any:
        state = await client.send(self.run_id, Resume())
        self.in_service = True
        return state

    def stop(self) -> asyncio.Task | None:
        """Cancel running turns and stop the run."""
        return self._send("Stop", lambda c: c.send(self.run_id, Stop()))

    def set_mode(self, mode: str | None = None, global_mode: str | None = None
                 ) -> asyncio.Task | None:
        """Switch AUTO/INTERACTIVE and PLANNING/IMPLEMENTATION."""
        return self._send("Mode", lambda c: c.send(self.run_id, SetMode(mode, global_mode)))

    def set_budget(self, node: str | None, limits: dict[str, float]) -> asyncio.Task | None:
        """Replace the limits given (maxTokens, maxCostUsd, maxWallSec) of the run's budget,
        or ``node``'s; the task's result is None when the service refused."""
        command = SetBudget(node, max_tokens=_whole(limits.get("maxTokens")),
                            max_cost_usd=limits.get("maxCostUsd"),
                            max_wall_sec=limits.get("maxWallSec"))
        return self._send("Budget", lambda c: c.send(self.run_id, command))

    def chat(self, node: str, text: str) -> asyncio.Task | None:
        """Send ``text`` to ``node`` as a user message."""
        return self._send("Chat", lambda c: c.send(self.run_id, Chat(node, text)))

    def update_node_config(self, node: str, patch: dict) -> asyncio.Task | None:
        """Change a node's config (e.g. its instructions) before resuming (over HTTP the
        UpdateNodeConfig of an in-process engine is a PatchNode with ``config``)."""
        return self._send("Node config",
                          lambda c: c.send(self.run_id, PatchNode(node, config=patch)))

    def edit_inbox(self, node: str, item_id: str, text: str) -> asyncio.Task | None:
        """Change a queued inbox item of ``node`` before its turn."""
        return self._send("Edit message",
                          lambda c: c.send(self.run_id, EditInbox(node, item_id, text)))

    def resolve(self, approval_id: str, status: str, modified_args: dict | None = None,
                reason: str | None = None, merge: dict | None = None,
                choice: int | None = None) -> asyncio.Task | None:
        """Decide a pending approval (``merge``: a merge approval's choice; ``choice``: the
        attempt that goes on); the task's result is True when the service took it."""
        async def call(client: ApiClient) -> bool:
            await client.send(None, Resolve(approval_id, status, modified_args, reason,
                                            merge=merge, choice=choice))
            return True

        return self._send("Approval", call)

    # --- closing -------------------------------------------------------------------------------

    def loop(self) -> asyncio.AbstractEventLoop | None:
        """The loop its tasks run on, if it started any: closing must run there."""
        tasks = [t for t in (self._stream, *self._commands) if t is not None]
        return tasks[0].get_loop() if tasks else None

    async def close(self) -> None:
        """Detach from the run; the service keeps running it."""
        self._closed = True
        self.bridge.detach()
        if self._stream is not None and not self._stream.done():
            self._stream.cancel()
            await asyncio.gather(self._stream, return_exceptions=True)
        if self._commands:  # commands already sent still get their answer
            await asyncio.wait(set(self._commands), timeout=10)
        await self._drop_client()
        if isValid(self.model):
            self.model.close()
