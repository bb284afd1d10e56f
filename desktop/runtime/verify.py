"""A shell command run for a node: its verification after a turn, its new worktree's
setup (desktop/runtime/worktree_setup.py)."""

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from desktop.providers.process import AgentProcess
from desktop.providers.redact import Redactor
from desktop.runtime.agent_folder import text_hash

DEFAULT_TIMEOUT = 600.0
TAIL = 4000


def shell_argv(command: str) -> list[str]:
    if os.name == "nt":
        return [os.environ.get("COMSPEC", "cmd.exe"), "/d", "/c", command]
    return ["/bin/sh", "-c", command]


async def run_verification(
    command: str,
    *,
    cwd: Path,
    env: Mapping[str, str],
    log_path: Path,
    timeout: float | None,
    redactor: Redactor,
    what: str = "verification",
) -> dict[str, Any]:
    """Run ``command``; ``{command, exitCode, ok, outputTail, hash}``. ``what``: the
    command's name in the notes about it (cannot run, timed out).

    The hash is of the normalized output, so a stall detector can see a
    verification that keeps failing the same way.
    """
    import asyncio

    process = AgentProcess(shell_argv(command), cwd=cwd, env=env, stdout_path=log_path,
                           stderr_path=log_path, redactor=redactor, grace=1.0)
    lines: list[str] = []
    timed_out = False
    try:
        await process.start()
    except OSError as exc:
        text = f"cannot run {what}: {exc}"
        return {"command": command, "exitCode": 127, "ok": False, "outputTail": text,
                "hash": text_hash(text)}

    async def collect() -> None:
        async for _stream, line in process.output():
            lines.append(line)

    task = asyncio.create_task(collect())
    try:
        done, _ = await asyncio.wait({task}, timeout=timeout or DEFAULT_TIMEOUT)
    except asyncio.CancelledError:  # the run stopped: the command's whole group goes too
        await process.terminate()
        await process.wait()
        await task
        raise
    if not done:
        timed_out = True
        await process.terminate()
        await task
    code = await process.wait()
    output = "\n".join(lines)
    if timed_out:
        output += f"\n[{what} timed out after {timeout or DEFAULT_TIMEOUT:g} s]"
    return {"command": command, "exitCode": code, "ok": code == 0 and not timed_out,
            "outputTail": output[-TAIL:], "hash": text_hash(output)}
