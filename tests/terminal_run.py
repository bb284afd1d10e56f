"""A real `agent-canvas run` in a terminal holding its run: a gated node waits for an
approval on the command's stdin, which the test keeps open until it lets the run go."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import yaml

from desktop.store.runs import engine_alive


def gated_flow(folder: Path, workspace: Path | None = None) -> Path:
    """One node whose shell call waits for an approval (in worktrees of ``workspace``)."""
    config: dict[str, object] = {"script": [{"shell": "echo one"}, {"say": "done"},
                                            {"done": True}]}
    if workspace is not None:
        config["workspace"] = str(workspace)
    path = folder / "held.flow.yaml"
    path.write_text(yaml.safe_dump({
        "name": "held", "task": "t",
        "nodes": [{"id": "worker", "label": "Worker", "entry": True,
                   "permissions": {"cliPermissionsMode": "gated"}}],
        "nodeConfigs": {"worker": config}}))
    return path


class TerminalRun:
    """``agent-canvas run FLOW --data-dir DATA`` in another process, waiting on its stdin
    with the run's approval pending (its engine holds the run) until :meth:`let_go`."""

    def __init__(self, flow: Path, data: Path) -> None:
        runs = data / "runs"
        before = set(os.listdir(runs)) if runs.is_dir() else set()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "desktop", "run", str(flow), "--data-dir", str(data)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})
        assert self.proc.stdout is not None
        self.said: list[str] = []
        while not any("APPROVAL" in line for line in self.said):
            line = self.proc.stdout.readline()
            assert line, f"the run ended before it asked: {''.join(self.said)}"
            self.said.append(line)
        [name] = set(os.listdir(runs)) - before
        self.run_id = name
        self.folder = runs / name
        assert engine_alive(self.folder)

    def let_go(self) -> int:
        """Close its stdin: the run pauses and the engine lets it go; its exit code."""
        if self.proc.poll() is None:
            assert self.proc.stdin is not None and self.proc.stdout is not None
            self.proc.stdin.close()
            self.said += self.proc.stdout.readlines()
        code = self.proc.wait()
        assert not engine_alive(self.folder)
        return code

    def close(self) -> None:
        """Let the run go (if it was not) and reap the process."""
        if self.proc.poll() is None:
            self.let_go()
        for stream in (self.proc.stdin, self.proc.stdout):
            if stream is not None and not stream.closed:
                stream.close()
