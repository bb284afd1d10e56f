"""Posting to a run's message bus from an agent process (`agent-canvas bus post`).

Kept out of desktop.cli so the scripted agent can post without loading
every subcommand. It finds the bus through the environment the runner
injects (MESSAGE_BUS, JRUN_ID, RUN_FOLDER, AGENT_CANVAS_RUN_ID,
AGENT_CANVAS_NODE_ID; conductor-loop's JRUN_MESSAGE_BUS, JRUN_RUN_FOLDER, JRUN_RUNS_DIR
and JRUN_CONDUCTOR_URL serve as well) and appends a ``bus.message`` event to the run's
events.jsonl under the log's file lock. When CONDUCTOR_URL is set the message is
POSTed there first (``POST <url>/api/runs/<runId>/bus``); if that fails, the file
is used. ``--handoff NODE`` also records the handoff in RUN_FOLDER/handoff.json,
which the runner reads when the turn ends.

A post is refused, nothing written, when ``--handoff`` names no node of the run
(desktop/providers/bus_target.py), and when the run has ended (completed, failed or
stopped: desktop/store/run_end.py): no engine would read it, and its snapshot would
no longer match its log. Agents post while their run runs.
"""

import json
import os
import urllib.error
import urllib.request
from pathlib import Path
from typing import BinaryIO

from desktop.contract.protocol_env import protocol_value
from desktop.disk.safe_json import loads as safe_loads
from desktop.providers.redact import Redactor

POST_TYPES = ("PROGRESS", "FACT", "ERROR", "DECISION", "QUESTION")


class BusError(Exception):
    """The message could not be posted; the text says why and what to set."""


def _run_id(bus: Path) -> str | None:
    if os.environ.get("AGENT_CANVAS_RUN_ID"):
        return os.environ["AGENT_CANVAS_RUN_ID"]
    try:
        with open(bus, "rb") as fh:
            first = fh.readline()
        return safe_loads(first).get("runId") if first.strip() else None
    except (OSError, ValueError, AttributeError):
        return None


def _redactor() -> Redactor:
    """Secrets this agent holds, by the user's patterns too: the message goes straight
    into the log, past the engine's own redaction."""
    runs = protocol_value(os.environ, "RUNS_DIR")
    return Redactor.from_env(data_dir=Path(runs).parent if runs else None)


def _write_handoff(to: str, message: str) -> Path | None:
    folder = protocol_value(os.environ, "RUN_FOLDER")
    if not folder:
        return None
    path = Path(folder) / "handoff.json"
    data: dict = {}
    try:
        data = safe_loads(path.read_bytes())
        if not isinstance(data, dict):
            data = {}
    except (OSError, ValueError):
        data = {}
    data.update(to=to, message=message)
    data.setdefault("structured", {})
    data.setdefault("artifacts", [])
    tmp = path.with_name(".handoff.json.tmp")
    tmp.write_text(json.dumps(data, indent=2, ensure_ascii=False), encoding="utf-8")
    os.replace(tmp, path)
    return path


def _post_http(url: str, run_id: str, event: dict) -> bool:
    request = urllib.request.Request(
        f"{url.rstrip('/')}/api/runs/{run_id}/bus",
        data=json.dumps(event).encode("utf-8"),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    token = os.environ.get("AGENT_CANVAS_API_TOKEN")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return 200 <= response.status < 300
    except (urllib.error.URLError, OSError, ValueError):
        return False


def post_message(bus_type: str, message: str, handoff: str | None = None) -> int:
    """Post one message; returns its seq in the log (0 when delivered over HTTP)."""
    bus_type = bus_type.upper()
    if bus_type not in POST_TYPES:
        raise BusError(f"--type {bus_type!r} is not one of {', '.join(POST_TYPES)}")
    bus_env = protocol_value(os.environ, "MESSAGE_BUS")
    if not bus_env:
        raise BusError("MESSAGE_BUS (or JRUN_MESSAGE_BUS) is not set: run this from an "
                       "agent started by agent-canvas, or set MESSAGE_BUS to the run's "
                       "events.jsonl")
    bus = Path(bus_env)
    if not bus.is_file():
        raise BusError(f"MESSAGE_BUS={bus} does not exist; it must be a run's events.jsonl")
    message = _redactor().text(message)
    run_id = _run_id(bus)
    event: dict = {"type": "bus.message", "busType": bus_type, "message": message}
    if run_id:
        event["runId"] = run_id
    for name, key in (("JRUN_ID", "agentRunId"), ("AGENT_CANVAS_NODE_ID", "nodeId")):
        if os.environ.get(name):
            event[key] = os.environ[name]
    if handoff:
        from desktop.providers.bus_target import handoff_problem

        problem = handoff_problem(bus.parent, handoff, os.environ.get("AGENT_CANVAS_NODE_ID"))
        if problem:
            raise BusError(problem)
        event["handoffTo"] = handoff
    url = protocol_value(os.environ, "CONDUCTOR_URL")
    # 0: delivered over HTTP, which gives no seq
    seq = 0 if url and run_id and _post_http(url, run_id, event) else _append(bus, event)
    if handoff:  # once the post is in: a refused one leaves no directive behind
        _write_handoff(handoff, message)
    return seq


def _refuse_if_ended(fh: BinaryIO, end: int) -> None:
    """Under the log's lock: a run that has ended takes no more messages."""
    from desktop.store.run_end import ended_status

    status = ended_status(fh, end)
    if status:
        raise BusError(f"the run has {'been stopped' if status == 'stopped' else status}: "
                       "nothing was posted (agents post while their run runs; resume the "
                       "run first with `agent-canvas resume RUN` to post to it)")


def _append(bus: Path, event: dict) -> int:
    from desktop.store.eventlog import append_external

    try:
        return append_external(bus, event, accept=_refuse_if_ended)
    except OSError as exc:
        raise BusError(f"cannot append to {bus}: {exc.strerror or exc}") from exc
