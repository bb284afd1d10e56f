"""A fork's copy of a run: a prefix of its event log under a new run id, and the folders
of the agent runs that prefix refers to.

The copied events are the source's events 1..``upto`` as they were read, with one
difference: every ``runId`` that named the source run names the fork, and the
``run.created`` event carries ``forkedFrom``. Lines are re-encoded compactly first, so
replacing the bytes ``"runId":"<source id>"`` only ever touches that key: inside a JSON
string a quote is escaped and cannot take part in the match.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path
from typing import Any

import orjson

from desktop.store.eventlog import encode_event
from desktop.store.jsonl import EVENTS_FILE, complete_end, file_size, iter_lines
from desktop.store.safe_open import open_file

AGENTS_DIR = "agents"
_AGENT_RUN_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")


class ForkCopyError(ValueError):
    """The source log cannot be copied (it has no run, or not that many events)."""


def _key(run_id: str) -> bytes:
    return b'"runId":"' + run_id.encode() + b'"'


def copy_log_prefix(src_dir: Path, dst_dir: Path, upto: int, new_run_id: str) -> int:
    """Write the source's events 1..``upto`` into ``dst_dir/events.jsonl`` under
    ``new_run_id``; returns how many were written. Unreadable lines are left out, as
    every reader of the log leaves them out."""
    src_dir, dst_dir = Path(src_dir), Path(dst_dir)
    source = src_dir / EVENTS_FILE
    written, last, old_key, new_key = 0, 0, b"", _key(new_run_id)
    dst_dir.mkdir(parents=True, exist_ok=True)
    with open_file(source) as fh, open(dst_dir / EVENTS_FILE, "xb") as out:
        end = complete_end(fh, file_size(fh))
        for _off, line in iter_lines(fh, 0, end):
            try:
                event: Any = orjson.loads(line)
                seq = event["seq"]
            except (orjson.JSONDecodeError, TypeError, KeyError, IndexError):
                continue
            if type(seq) is not int or seq <= last:
                continue
            if seq > upto:
                break
            last = seq
            if written == 0:
                source_id = _source_id(event, src_dir)
                old_key = _key(source_id)
                event = orjson.loads(encode_event(event).replace(old_key, new_key))
                event["forkedFrom"] = {"runId": source_id, "seq": upto}  # kept as it is
                out.write(encode_event(event))
            else:
                out.write(encode_event(event).replace(old_key, new_key))
            written += 1
        out.flush()
        os.fsync(out.fileno())
    if last < upto:
        raise ForkCopyError(f"{source} ends at seq {last}, before seq {upto}")
    return written


def _source_id(event: dict[str, Any], src_dir: Path) -> str:
    if event.get("type") != "run.created" or not isinstance(event.get("runId"), str):
        raise ForkCopyError(f"{src_dir / EVENTS_FILE}: the first event is not a run.created "
                            "with a runId; this log cannot be forked")
    return event["runId"]


def copy_agent_folders(src_dir: Path, dst_dir: Path, agent_run_ids: list[str]) -> int:
    """Copy ``agents/<id>`` of each agent run (links copied as links, never followed);
    returns how many folders were copied. Ids that are not plain names are skipped."""
    copied = 0
    for agent_run_id in dict.fromkeys(agent_run_ids):
        if not _AGENT_RUN_ID.fullmatch(agent_run_id):
            continue
        folder = Path(src_dir) / AGENTS_DIR / agent_run_id
        if folder.is_dir() and not folder.is_symlink():
            shutil.copytree(folder, Path(dst_dir) / AGENTS_DIR / agent_run_id, symlinks=True)
            copied += 1
    return copied
