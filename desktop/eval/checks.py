"""Running a case's checks.

Workspace checks (``command``, ``fileExists``) need the case's final workspace,
so the runner runs them right after the case and records each result in the
case file. Every other check is judged from the case artifact alone
(:func:`judge`), so an evaluation can be redone from a copied result folder.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import re
import signal
from pathlib import Path
from typing import Any

import orjson
from pydantic import TypeAdapter, ValidationError

from desktop.eval.assets import AssetStore
from desktop.eval.risk import args_text
from desktop.eval.suite import Check
from desktop.runtime.agent_env import build_env
from desktop.wording import plural

CHECK_ADAPTER: TypeAdapter[Any] = TypeAdapter(Check)
MAX_CHECK_OUTPUT = 1024 * 1024
TAIL_CHARS = 2000


def check_spec(check: Any) -> dict[str, Any]:
    """A check as it was written in the suite (stored in the case file)."""
    return check.model_dump(mode="json", by_alias=True, exclude_defaults=False,
                            exclude_none=True)


async def run_workspace_check(check: Any, index: int, workspace: Path, case_id: str,
                              assets: AssetStore) -> dict[str, Any]:
    """The recorded result of a ``command`` or ``fileExists`` check."""
    if check.type == "fileExists":
        target = (workspace / check.path).resolve()
        inside = target.is_relative_to(workspace.resolve())
        ok = inside and target.exists()
        return {"passed": ok, "detail": f"{check.path} {'exists' if ok else 'does not exist'}"}
    env = build_env("", [], {})  # the base environment only: no API keys reach a check
    proc = await asyncio.create_subprocess_shell(
        check.run, cwd=str(workspace), env=env, stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
        start_new_session=True)
    try:
        output, _ = await asyncio.wait_for(proc.communicate(), check.timeout_sec)
        timed_out = False
    except TimeoutError:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        output, _ = await proc.communicate()
        timed_out = True
    output = output[:MAX_CHECK_OUTPUT]
    result: dict[str, Any] = {"passed": proc.returncode == 0 and not timed_out,
                              "exit_code": proc.returncode}
    result["detail"] = (f"timed out after {check.timeout_sec:g} s" if timed_out
                        else f"exit code {proc.returncode}")
    if output:
        item = assets.write(case_id, f"check-{index}.txt", output, "other")
        result["output_href"] = item.href
        result["output_tail"] = output.decode("utf-8", errors="replace")[-TAIL_CHARS:]
    return result


def parse_check(spec: Any) -> Any | None:
    """A check from its stored spec (None when it is not one this version knows)."""
    try:
        key = orjson.dumps(spec, option=orjson.OPT_SORT_KEYS)
    except TypeError:
        return None
    return _parse_check(key)


@functools.lru_cache(maxsize=4096)
def _parse_check(key: bytes) -> Any | None:
    # Every case of a suite stores the same few specs: parse each once (checks are frozen).
    try:
        return CHECK_ADAPTER.validate_python(orjson.loads(key))
    except ValidationError:
        return None


def judge(check: Any, case: dict[str, Any], recorded: dict[str, Any] | None) -> dict[str, Any]:
    """``{passed, detail}`` of one check against a case artifact (a dict, read tolerantly)."""
    if case.get("status") != "ok":
        return {"passed": False, "detail": "not run: the case has no response"}
    kind = check.type
    if kind in ("command", "fileExists"):
        if not isinstance(recorded, dict) or not isinstance(recorded.get("passed"), bool):
            return {"passed": False, "detail": "no result recorded by the runner"}
        return {k: v for k, v in recorded.items()
                if k in ("passed", "detail", "exit_code", "output_href", "output_tail")}
    if kind in ("outputContains", "outputMatches"):
        text = output_text(case)
        if kind == "outputContains":
            hay, needle = (text.lower(), check.text.lower()) if check.ignore_case else \
                (text, check.text)
            ok = needle in hay
            return {"passed": ok, "detail": f"{check.text!r} {'found' if ok else 'not found'}"
                                            " in the final output"}
        ok = re.search(check.pattern, text, re.MULTILINE) is not None
        verb = "matches" if ok else "does not match"
        return {"passed": ok, "detail": f"/{check.pattern}/ {verb} the final output"}
    if kind in ("toolCalled", "toolNotCalled"):
        calls = matching_calls(case, check.tool, check.args_pattern)
        if kind == "toolCalled":
            ok = len(calls) >= check.min
            return {"passed": ok, "detail": f"{plural(len(calls), 'matching call')}, "
                                            f"at least {check.min} wanted"}
        return {"passed": not calls, "detail": f"{plural(len(calls), 'matching call')}"
                                               + (f": {calls[0]}" if calls else "")}
    if kind == "maxTurns":
        turns = count_turns(case)
        return {"passed": turns <= check.max,
                "detail": f"{plural(turns, 'turn')}, at most {check.max}"}
    if kind == "maxCostUsd":
        cost = total_cost(case)
        return {"passed": cost <= check.max,
                "detail": f"${cost:.4f} reported, at most ${check.max:g}"}
    return {"passed": False, "detail": f"unknown check type {kind!r}"}


def output_text(case: dict[str, Any]) -> str:
    final = case.get("final_output")
    content = final.get("content") if isinstance(final, dict) else None
    if isinstance(content, str):
        return content
    return args_text(content) if content is not None else ""


def _events(case: dict[str, Any]) -> list[dict[str, Any]]:
    events = case.get("events")
    return [e for e in events if isinstance(e, dict)] if isinstance(events, list) else []


def matching_calls(case: dict[str, Any], tool: str, pattern: str | None) -> list[str]:
    """Action ids (or call ids) of tool calls named ``tool`` whose arguments match."""
    found = []
    actions = case.get("proposed_actions")
    for action in actions if isinstance(actions, list) else []:
        if not isinstance(action, dict):
            continue
        if str(action.get("tool_name", "")).lower() != tool.lower():
            continue
        if pattern and not re.search(pattern, args_text(action.get("params"))):
            continue
        found.append(str(action.get("action_id")))
    return found


def count_turns(case: dict[str, Any]) -> int:
    turns = [e for e in _events(case) if e.get("type") == "turn"]
    if turns:
        return len(turns)
    metrics = case.get("metrics")
    value = metrics.get("turns") if isinstance(metrics, dict) else None
    return value if isinstance(value, int) else 0


def total_cost(case: dict[str, Any]) -> float:
    return sum(float(e["cost_usd"]) for e in _events(case)
               if e.get("type") == "usage" and isinstance(e.get("cost_usd"), int | float))
