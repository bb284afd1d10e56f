"""The folder of one agent run: runs/<runId>/agents/<agentRunId>/ and its files."""

import hashlib
import mmap
import os
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import orjson

from desktop.contract.run_info import new_agent_run_id
from desktop.disk.atomic import atomic_write_json, atomic_write_text
from desktop.disk.safe_json import loads as safe_loads
from desktop.runtime.prompt import PromptBlock, blocks_json, render
from desktop.store.safe_open import RunFileError, open_file, read_bytes

AGENTS = "agents"
PROMPT_MD = "prompt.md"
PROMPT_FULL = "prompt.full.txt"
PROMPT_BLOCKS = "prompt.blocks.json"
STDOUT = "agent-stdout.txt"
STDERR = "agent-stderr.txt"
OUTPUT = "output.md"
DIFF = "diff.patch"
RUN_INFO = "run-info.yaml"
HANDOFF = "handoff.json"
DONE = "DONE"


def create_agent_folder(run_dir: Path, pid: int | None = None) -> tuple[str, Path]:
    """A fresh, unique agent run id and its (new, empty) folder.

    Ids are ``YYYYMMDD-HHMMSSMMMM-PID``; two runs started in the same 1/10 ms
    get the next free tick, so the id stays unique within the run.
    """
    agents = run_dir / AGENTS
    agents.mkdir(parents=True, exist_ok=True)
    moment = datetime.now(UTC)
    pid = pid or os.getpid()
    for _ in range(100_000):
        agent_run_id = new_agent_run_id(pid, moment)
        folder = agents / agent_run_id
        try:
            folder.mkdir()
        except FileExistsError:
            moment += timedelta(microseconds=100)
            continue
        return agent_run_id, folder
    raise RuntimeError(f"no free agent run id in {agents}")


def write_prompt(folder: Path, blocks: list[PromptBlock]) -> str:
    """prompt.md (what the agent reads), prompt.full.txt and prompt.blocks.json."""
    text = render(blocks)
    atomic_write_text(folder / PROMPT_MD, text)
    atomic_write_text(folder / PROMPT_FULL, text)
    atomic_write_json(folder / PROMPT_BLOCKS, {"blocks": blocks_json(blocks)})
    return text


def ensure_output(folder: Path, final_text: str) -> str:
    """Guarantee output.md: the agent's own, else the final message, else its stdout."""
    target = folder / OUTPUT
    if target.is_symlink():  # never read (or keep) what a link made by the agent points at
        target.unlink()
    if target.is_file():
        return read_bytes(target).decode("utf-8", errors="replace")
    text = final_text
    if not text.strip():
        try:
            text = read_bytes(folder / STDOUT).decode("utf-8", errors="replace")
        except OSError:
            text = ""
    atomic_write_text(target, text)
    return text


_TRAILING = re.compile(r"[ \t]+$", re.M)


def normalize(text: str) -> str:
    """Text with line endings, trailing spaces and outer blank lines made uniform."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    # The regex walks every line; skip it when no line ends in a blank (the usual case).
    if " \n" in text or "\t\n" in text or text.endswith((" ", "\t")):
        text = _TRAILING.sub("", text)
    return text.strip("\n")


def text_hash(text: str) -> str:
    return hashlib.sha256(normalize(text).encode("utf-8")).hexdigest()


def read_handoff(
    folder: Path,
) -> tuple[dict[str, Any] | list[dict[str, Any]] | None, str | None]:
    """The handoff directive(s) the agent wrote (``(directive, None)``) or ``(None, problem)``.

    handoff.json holds one directive object, or a list of them to hand off to several nodes.
    """
    path = folder / HANDOFF
    if not path.is_file() and not path.is_symlink():
        return None, None
    try:
        data = safe_loads(read_bytes(path))
    except RunFileError as exc:
        return None, exc.strerror
    except (OSError, orjson.JSONDecodeError) as exc:
        return None, f"{path}: not valid JSON ({exc}); write {{\"to\": NODE, \"message\": ...}}"
    entries = data if isinstance(data, list) and data else [data]
    for entry in entries:
        if not isinstance(entry, dict) or not isinstance(entry.get("to"), str) or not entry["to"]:
            return None, (f"{path}: each directive needs a 'to' field naming the node to hand"
                          " off to; write one object or a list of them")
    directives = [handoff_directive(entry) for entry in entries]
    return (directives[0] if len(directives) == 1 else directives), None


def handoff_directive(data: dict[str, Any]) -> dict[str, Any]:
    """The directive in its documented shape: {to, message, structured, status, artifacts}."""
    structured = data.get("structured")
    artifacts = data.get("artifacts")
    return {
        "to": data.get("to"),
        "message": str(data.get("message") or ""),
        "structured": structured if isinstance(structured, dict) else {},
        "status": data.get("status"),
        "artifacts": artifacts if isinstance(artifacts, list) else [],
    }


def bus_handoff(bus: Path, offset: int, agent_run_id: str) -> dict[str, Any] | None:
    """The last ``bus.message`` with ``handoffTo`` posted by this agent run after ``offset``."""
    try:
        with open_file(bus, "rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as data:
            return _last_handoff(data, offset, agent_run_id.encode())
    except (OSError, ValueError):  # ValueError: an empty file cannot be mapped
        return None


SEARCH_WINDOW = 1 << 20


def rfind_windowed(data: bytes | mmap.mmap, needle: bytes, lo: int, hi: int,
                   window: int = SEARCH_WINDOW) -> int:
    """``data.rfind(needle, lo, hi)`` a window at a time from the end.

    One search call holds the interpreter lock for its whole range; the log after an
    agent's start can be many megabytes, so the search runs on a worker thread in
    slices that let the event loop in between.
    """
    end = hi
    while end - lo >= len(needle):
        start = max(lo, end - window)
        hit = data.rfind(needle, start, end)
        if hit >= 0 or start == lo:
            return hit
        end = start + len(needle) - 1  # a match across the slice boundary is in the next one
    return -1


def _last_handoff(data: mmap.mmap, offset: int, needle: bytes) -> dict[str, Any] | None:
    # The log grew by every event of every node while this agent ran; only the rare
    # lines naming a handoff are worth parsing, so find them with a byte search, from
    # the end since the last one counts.
    pos = len(data)
    while (hit := rfind_windowed(data, b"handoffTo", offset, pos)) >= 0:
        start = max(data.rfind(b"\n", offset, hit) + 1, offset)
        end = data.find(b"\n", hit)
        line = data[start:] if end < 0 else data[start:end]
        pos = start
        if needle not in line:
            continue
        try:
            event = safe_loads(line)
        except orjson.JSONDecodeError:
            continue
        if (isinstance(event, dict) and event.get("type") == "bus.message"
                and event.get("handoffTo") and event.get("agentRunId") == needle.decode()):
            return handoff_directive(
                {"to": event["handoffTo"], "message": event.get("message", "")})
    return None
