"""The runs a service hosts: one Engine per live run, each driven by its own task.

A run is *live* here while an engine of this service holds it. Creating a run
hosts it at once; a run no engine holds (interrupted by a crash, paused by a
terminal that detached) is taken over with ``resume_engine`` (desktop/runtime/recovery.py)
when a client asks to run it. On shutdown every live run is detached: its turns are cancelled and
their agent processes ended, and the run stays resumable from its log.
Runs keep going when every client is gone.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from desktop.api.api_error import ApiError
from desktop.api.body_json import workflow_document
from desktop.api.errors import from_command
from desktop.api.feeds import Feeds
from desktop.api.folded import FoldedRuns
from desktop.api.not_live import unknown_target
from desktop.api.paths import AllowedRoots, recorded_path
from desktop.api.pool_warm import PoolWarmer
from desktop.api.run_index import Encoded, RunIndex
from desktop.api.stream import CLOSE_UNKNOWN_RUN
from desktop.contract.api import CreateRun, PatchRun
from desktop.contract.enums import RUN_ENDED
from desktop.contract.state import RunState
from desktop.disk.paths import runs_dir
from desktop.runtime.control import Command, CommandError, Outcome, Resolve, execute
from desktop.runtime.engine import Engine, EngineError, EngineOptions
from desktop.runtime.recovery import resume_engine
from desktop.runtime.run_delete import (
    RunDeleted,
    WorkNotSaved,
    WorktreesLocked,
    delete_run_folder,
    refuse_if_locked,
)
from desktop.runtime.unsaved_work import refuse_if_unsaved
from desktop.store.runs import EngineBusy, RunError, engine_alive
from desktop.views.reader import EventReader, Page
from desktop.wording import plural

log = logging.getLogger(__name__)
RESOLVED_MEMORY = 10_000


@dataclass
class Hosted:
    """A live run: its engine, the task running it, and how to stop listening to it."""

    engine: Engine
    task: asyncio.Task[Any] | None = None
    unlisten: Callable[[], None] = lambda: None
    detaching: bool = False
    done: asyncio.Event = field(default_factory=asyncio.Event)


class RunService:
    """Creates, takes over, steers, lists and detaches runs under one data folder."""

    def __init__(self, data_dir: Path, roots: AllowedRoots,
                 options: Callable[[], EngineOptions] = EngineOptions) -> None:
        self.data_dir = Path(data_dir)
        self.roots = roots
        self.options = options
        self.feeds = Feeds()
        self.hosted: dict[str, Hosted] = {}
        self._resolved: OrderedDict[str, str] = OrderedDict()
        self._readers: dict[str, tuple[EventReader, asyncio.Lock]] = {}
        self._run_locks: dict[str, asyncio.Lock] = {}
        self.closing = False
        self.index = RunIndex(runs_dir(self.data_dir))
        self.folded = FoldedRuns()
        self.pool = PoolWarmer(self.data_dir)

    # --- finding runs --------------------------------------------------------------------

    def run_dir(self, run_id: str) -> Path:
        """The folder of run ``run_id``; 404 unless it is a run id with a folder."""
        try:
            canonical = str(uuid.UUID(run_id))
        except (ValueError, AttributeError, TypeError):
            canonical = None
        folder = runs_dir(self.data_dir) / run_id
        if canonical != run_id or not folder.is_dir():
            raise ApiError(404, "run_not_found", f"no run {run_id!r} in {self.data_dir}",
                           "runId")
        return folder

    def engine(self, run_id: str) -> Engine:
        """The engine of a live run; 409 when the run is not live here."""
        self.run_dir(run_id)
        hosted = self.hosted.get(run_id)
        if hosted is None or hosted.detaching:
            raise ApiError(409, "run_not_live",
                           f"run {run_id} is not running in this service; "
                           "PATCH it with {\"status\": \"running\"} to resume it first")
        return hosted.engine

    async def state(self, run_id: str) -> dict[str, Any]:
        """The run's state in wire form (the live fold, or the folder's, folded on a worker
        thread: a long log never holds the loop)."""
        folder = self.run_dir(run_id)
        hosted = self.hosted.get(run_id)
        if hosted is not None and hosted.engine.recorder.state_dict is not None:
            return hosted.engine.state.to_json_dict()
        try:
            state = await self.folded.state(folder)
        except RunError as exc:
            raise ApiError(422, "run_unreadable", str(exc)) from None
        return state.to_json_dict()

    async def run_list(self) -> Encoded:
        """``{"runs": [...]}``: every run, newest first, with its status, names, times and
        token use, encoded once per change and shared by every caller, with its ETag."""
        return await self.index.encoded({run_id: h.engine.state
                                         for run_id, h in self.hosted.items()})

    async def events(self, run_id: str, limit: int, before: int | None,
                     after: int | None) -> Page:
        """One page of the run's events, from the log's offset index."""
        folder = self.run_dir(run_id)
        reader, lock = self._readers.get(run_id) or (EventReader(folder), asyncio.Lock())
        self._readers[run_id] = (reader, lock)
        async with lock:  # the reader's index is not shared between threads
            return await asyncio.to_thread(reader.page, limit, before, after)

    # --- creating and taking over --------------------------------------------------------

    async def create(self, request: CreateRun) -> dict[str, Any]:
        """A new run of the requested workflow, started at once."""
        from desktop.graph.errors import WorkflowLoadError
        from desktop.graph.validate import check_file, validate
        from desktop.runtime.recovery import create_run
        from desktop.runtime.run_setup import SetupError

        self._refuse_when_closing()
        workflow_path: str | None = None
        if request.workflow is None:
            assert request.workflow_path is not None
            path = self.roots.workflow_file(request.workflow_path)
            doc, problems = await asyncio.to_thread(check_file, str(path))
            workflow_path = str(path)
        else:
            if request.workflow_path is not None:
                workflow_path = recorded_path(request.workflow_path)
            doc = workflow_document(request.workflow)
            problems = validate(doc, "workflow")
        errors = [str(p) for p in problems if p.is_error]
        if doc is None or errors:
            raise ApiError(422, "invalid_workflow",
                           f"the workflow is invalid ({plural(len(errors), 'problem')}); "
                           f"first: {errors[0] if errors else 'unreadable'}",
                           "workflow" if request.workflow is not None else "workflowPath",
                           problems=errors)
        try:
            engine = create_run(doc, self.data_dir, mode=request.mode,
                                global_mode=request.global_mode, workflow_path=workflow_path,
                                options=self.options())
        except (SetupError, ValueError, WorkflowLoadError) as exc:
            raise ApiError(422, "invalid_workflow", str(exc), "workflow") from None
        self.host(engine)
        return engine.state.to_json_dict()

    async def take_over(self, run_id: str, mode: str | None = None,
                        global_mode: str | None = None) -> Engine:
        """Resume a run no engine holds (after a crash, a detach, a pause) and run it."""
        folder = self.run_dir(run_id)
        self._refuse_when_closing()
        try:
            engine = resume_engine(folder, options=self.options(), mode=mode,
                                   global_mode=global_mode)
        except EngineBusy:
            raise ApiError(409, "run_busy", f"run {run_id} is held by another engine (a "
                           "terminal `agent-canvas run`, or another service)") from None
        except (EngineError, RunError) as exc:
            raise ApiError(409, "run_not_resumable", str(exc)) from None
        self.host(engine)
        # Approvals decided before the resume (in an earlier service) still answer 409.
        for approval_id in await asyncio.to_thread(_resolved_in_log, folder):
            self._remember_resolved(approval_id, run_id)
        return engine

    def host(self, engine: Engine) -> None:
        """Run ``engine`` here: drive it, publish its events, take its commands."""
        run_id = engine.run_id
        hosted = Hosted(engine)
        feeds = self.feeds

        def listen(events: list[dict[str, Any]]) -> None:
            for event in events:
                if event.get("type") == "approval.resolved":
                    self._remember_resolved(str(event.get("approvalId")), run_id)
            feeds.publish(run_id, events)

        hosted.unlisten = engine.recorder.listen(listen)
        self.hosted[run_id] = hosted
        hosted.task = asyncio.create_task(self._drive(run_id, hosted), name=f"run-{run_id}")

    async def _drive(self, run_id: str, hosted: Hosted) -> None:
        engine = hosted.engine
        try:
            await engine.run()
        except Exception:
            log.exception("run %s failed in the engine", run_id)
        finally:
            if not hosted.detaching:
                hosted.unlisten()
                with contextlib.suppress(Exception):
                    engine.close()
                if self.hosted.get(run_id) is hosted:
                    del self.hosted[run_id]
            hosted.done.set()

    def _refuse_when_closing(self) -> None:
        if self.closing:
            raise ApiError(503, "shutting_down", "the service is shutting down")

    # --- steering ------------------------------------------------------------------------

    def lock(self, run_id: str) -> asyncio.Lock:
        """Serialises PATCH/DELETE of one run (take-over and stop are not instant), and
        applying, reading and forking its result with them; 404 unless the run exists,
        so ids a client makes up leave no lock behind (a deleted run's goes with it)."""
        self.run_dir(run_id)
        return self._run_locks.setdefault(run_id, asyncio.Lock())

    async def execute(self, run_id: str, command: Command) -> Outcome:
        """Run a typed command on a live run; CommandErrors become API errors. On a run
        that is not live, 404 when the command's path names what the run never had (see
        desktop/api/not_live.py), else 409 run_not_live."""
        try:
            engine = self.engine(run_id)
        except ApiError as exc:
            if exc.code == "run_not_live":
                await self._known_target(run_id, command)
            raise
        try:
            return await execute(engine, command)
        except CommandError as exc:
            raise from_command(exc) from None

    async def _known_target(self, run_id: str, command: Command) -> None:
        """Raise the 404 for a node, edge or inbox item that ``command``'s path names and
        the (not live) run never had."""
        folder = self.run_dir(run_id)
        try:
            state = await self.folded.state(folder)
        except RunError:
            return  # unreadable: run_not_live, as before (resuming it says what is wrong)
        miss = await asyncio.to_thread(unknown_target, folder, state, command)
        if miss is not None:
            raise from_command(miss)

    async def patch(self, run_id: str, request: PatchRun) -> dict[str, Any]:
        """Pause, resume (taking the run over if needed), stop, or switch modes."""
        from desktop.runtime.control import Pause, Resume, SetMode, Stop

        async with self.lock(run_id):
            self.run_dir(run_id)
            hosted = self.hosted.get(run_id)
            if hosted is None:
                await self._finished_or_not(run_id, request)
                engine = await self.take_over(run_id, request.mode, request.global_mode)
                if request.status == "stopped":
                    await self.execute(run_id, Stop())
                return engine.state.to_json_dict()
            if request.mode or request.global_mode:
                await self.execute(run_id, SetMode(request.mode, request.global_mode))
            if request.status == "paused":
                await self.execute(run_id, Pause())
            elif request.status == "running":
                await self.execute(run_id, Resume())
            elif request.status == "stopped":
                await self.execute(run_id, Stop())
            return await self.state(run_id)

    async def _finished_or_not(self, run_id: str, request: PatchRun) -> None:
        """A run no engine holds can be resumed (unless completed) or stopped (unless ended)."""
        if request.status == "running":
            return  # resume_engine refuses a completed run itself
        state = RunState.model_validate(await self.state(run_id))
        if request.status == "stopped" and state.status in RUN_ENDED:
            raise ApiError(409, "run_finished", f"run {run_id} is already {state.status}")
        if request.status != "stopped":
            raise ApiError(409, "run_not_live",
                           f"run {run_id} is not running in this service; PATCH it with "
                           "{\"status\": \"running\"} to resume it (mode changes may go along)")

    async def delete(self, run_id: str, force: bool) -> RunDeleted:
        """Remove the run's folder, worktrees and branches (desktop/runtime/run_delete.py);
        a live run only with ``force`` (it is stopped first). What went. A run with a
        worktree the user locked is refused (409 worktree_locked) with nothing changed."""
        from desktop.runtime.control import Stop

        # at once, before waiting on the run's lock or folding its log: the engine may let
        # go meanwhile, and a run deleted as its terminal reports it done loses its result
        self._refuse_held_elsewhere(run_id)
        async with self.lock(run_id):
            folder = self.run_dir(run_id)
            hosted = self.hosted.get(run_id)
            if hosted is None:
                self._refuse_held_elsewhere(run_id)  # taken by a terminal while this waited
            elif not force:
                raise ApiError(409, "run_live", f"run {run_id} is live; stop it first or "
                               "DELETE with ?force=true")
            # refused before a live run is stopped or its streams closed: nothing changes
            before = await self._state_or_none(run_id)
            await self._refuse_locked(folder, run_id, before)
            if hosted is not None:  # the user's edits in idle nodes' worktrees, before the stop
                await self._refuse_unsaved(folder, run_id, before)
                with contextlib.suppress(ApiError):
                    await self.execute(run_id, Stop("deleted by the user"))
                hosted.engine.halt()
                await hosted.done.wait()
            state = await self._state_or_none(run_id)
            self.feeds.close_run(run_id, CLOSE_UNKNOWN_RUN, "the run was deleted")
            self._readers.pop(run_id, None)
            try:
                deleted = await asyncio.to_thread(delete_run_folder, folder, run_id, state)
            except EngineBusy:  # taken over by another process since the look above
                raise _held_elsewhere(run_id) from None
            except WorktreesLocked as exc:  # locked since the look above
                raise _locked(exc) from None
            except WorkNotSaved as exc:
                raise _unsaved(exc) from None
            for note in deleted.cleanup.kept:
                log.warning("deleting run %s: %s", run_id, note)
            self.folded.forget(folder)
            # who waits on it now finds the run gone (404); no one takes it anew
            self._run_locks.pop(run_id, None)
            return deleted

    def _refuse_held_elsewhere(self, run_id: str) -> None:
        """409 run_busy when an engine outside this service holds the run (a terminal's
        ``agent-canvas run`` or ``resume``, another service): it is stopped there."""
        if run_id not in self.hosted and engine_alive(self.run_dir(run_id)):
            raise _held_elsewhere(run_id)

    async def _refuse_locked(self, folder: Path, run_id: str,
                             state: dict[str, Any] | None) -> None:
        """409 worktree_locked when the user locked a worktree of the run."""
        try:
            await asyncio.to_thread(refuse_if_locked, folder, run_id, state)
        except WorktreesLocked as exc:
            raise _locked(exc) from None

    async def _refuse_unsaved(self, folder: Path, run_id: str,
                              state: dict[str, Any] | None) -> None:
        """409 worktree_changed when the user changed a worktree of the live run whose
        node was idle (desktop/runtime/unsaved_work.py)."""
        try:
            await asyncio.to_thread(refuse_if_unsaved, folder, run_id, state, live=True)
        except WorkNotSaved as exc:
            raise _unsaved(exc) from None

    async def _state_or_none(self, run_id: str) -> dict[str, Any] | None:
        """The run's state, or None when its folder cannot be read (it is deleted anyway)."""
        try:
            return await self.state(run_id)
        except ApiError:
            return None

    # --- approvals -----------------------------------------------------------------------

    def approvals(self) -> list[dict[str, Any]]:
        """Every pending approval of every live run, oldest first."""
        out = []
        for run_id, hosted in self.hosted.items():
            for pending in hosted.engine.broker.pending():
                out.append({**pending.to_dict(), "runId": run_id})
        out.sort(key=lambda a: a.get("requestedAt") or "")
        return out

    def approval_run(self, approval_id: str) -> str:
        """The live run waiting on ``approval_id``; 409 if already resolved, else 404."""
        for run_id, hosted in self.hosted.items():
            if any(p.approval_id == approval_id for p in hosted.engine.broker.pending()):
                return run_id
        for hosted in self.hosted.values():  # its run says why (its turn was cancelled…)
            why = hosted.engine.broker.ended(approval_id)
            if why is not None:
                raise ApiError(409, "approval_resolved",
                               f"approval {approval_id} is no longer pending: {why}",
                               "approvalId")
        if approval_id in self._resolved:
            raise ApiError(409, "approval_resolved",
                           f"approval {approval_id} is already resolved", "approvalId")
        # an id is 36 characters; a longer one is cut rather than echoed whole
        shown = approval_id if len(approval_id) <= 64 else approval_id[:64] + "…"
        raise ApiError(404, "approval_not_found", f"no pending approval {shown!r}",
                       "approvalId")

    async def resolve(self, command: Resolve) -> tuple[str, Outcome]:
        """Decide a pending approval of a live run (``command.approval``: its full id): its
        run id and the outcome."""
        approval_id = command.approval
        run_id = self.approval_run(approval_id)
        outcome = await self.execute(run_id, command)
        self._remember_resolved(approval_id, run_id)  # before its event is even durable
        return run_id, outcome

    def _remember_resolved(self, approval_id: str, run_id: str) -> None:
        self._resolved[approval_id] = run_id
        while len(self._resolved) > RESOLVED_MEMORY:
            self._resolved.popitem(last=False)

    # --- shutdown ------------------------------------------------------------------------

    async def shutdown(self) -> None:
        """Detach every live run (resumable; agent processes ended), then close streams."""
        self.closing = True
        await self.pool.close()
        hosted = list(self.hosted.items())
        for _run_id, h in hosted:
            h.detaching = True
            h.engine.halt()
        for run_id, h in hosted:
            if h.task is not None:
                await asyncio.gather(h.task, return_exceptions=True)
            h.unlisten()
            try:
                await h.engine.detach()
            except Exception:
                log.exception("detaching run %s failed", run_id)
            self.hosted.pop(run_id, None)
        await self.index.close()

    @property
    def live_count(self) -> int:
        return sum(1 for h in self.hosted.values() if not h.detaching)


def _resolved_in_log(folder: Path) -> list[str]:
    """The ids of the approvals ``folder``'s log records as resolved, oldest first."""
    return [str(event.get("approvalId")) for event in EventReader(folder).iter_events()
            if event.get("type") == "approval.resolved"]


def _held_elsewhere(run_id: str) -> ApiError:
    """The refusal of a run an engine outside the service holds, saying where to stop it."""
    return ApiError(409, "run_busy", f"run {run_id} is held by an engine outside this "
                    "service (an `agent-canvas run` or `resume` in a terminal, or another "
                    "service); stop it there (Ctrl-C in its terminal), then delete it")


def _unsaved(exc: WorkNotSaved) -> ApiError:
    """The refusal of a run whose worktrees hold the user's work; ``problems``: their paths."""
    return ApiError(409, "worktree_changed", str(exc),
                    problems=[str(u.path) for u in exc.unsaved])


def _locked(exc: WorktreesLocked) -> ApiError:
    """The refusal of a run with worktrees the user locked; ``problems``: their paths."""
    return ApiError(409, "worktree_locked", str(exc),
                    problems=[str(t.path) for t in exc.locked])
