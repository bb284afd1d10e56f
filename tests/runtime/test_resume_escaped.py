"""Resuming after the engine was killed ends what the interrupted agent moved out of its
process group (``setsid``): the watchdog ends only the group."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import orjson
import pytest
from engine_helpers import workflow

from desktop.graph.io import dumps_workflow
from desktop.providers.marked import find_marked
from desktop.providers.process import group_members
from desktop.runtime.recovery import resume_engine
from desktop.store.run_info import read_run_info

pytestmark = pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads /proc")
ROOT = Path(__file__).resolve().parents[2]


async def test_resume_ends_a_setsid_child_of_the_interrupted_turn(tmp_path: Path) -> None:
    doc = workflow({"a": {"script": [{"shell": "setsid sleep 444 > /dev/null 2>&1 &"},
                                     {"say": "sleeping"}, {"sleep": 60}]}})
    flow = tmp_path / "escape.flow.yaml"
    flow.write_text(dumps_workflow(doc))
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("AGENT_CANVAS_DATA_DIR", None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "desktop", "run", str(flow), "--data-dir",
         str(tmp_path / "data"), "--json"], stdout=subprocess.PIPE,
        stdin=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=ROOT)
    agent_run = ""
    try:
        assert proc.stdout is not None
        run_id = ""
        for line in proc.stdout:
            event = orjson.loads(line)
            run_id = run_id or event["runId"]
            if event.get("type") == "message.assistant.final":
                break
        run_dir = tmp_path / "data" / "runs" / run_id
        info = read_run_info(next(run_dir.glob("agents/*/run-info.yaml")))
        agent_run = info.run_id
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)

        def only_the_escapee_left() -> bool:  # the watchdog has ended the group
            return not group_members(info.pgid) and len(find_marked(agent_run)) == 1

        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and not only_the_escapee_left():
            await asyncio.sleep(0.05)
        assert only_the_escapee_left(), "the setsid child did not outlive the engine"
        engine = resume_engine(run_dir)
        engine.close()
        assert find_marked(agent_run) == []
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()
        for pid in find_marked(agent_run) if agent_run else []:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
