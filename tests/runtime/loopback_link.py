"""An executor link that runs the worker's AgentHost in this process, with its own folder.

It stands in for Ray in `make test`: everything a remote agent run does except the
network (the workspace bundle, the path rewriting, the patch back, the bus relay, the
files written engine-side) runs for real, under a folder the engine never uses.
Install it with :func:`install` (monkeypatch); ``hosts`` lists every host made.
"""

from __future__ import annotations

import sys
import types
from pathlib import Path
from typing import Any

from desktop.contract.executor import RayExecutor
from desktop.runtime import executor as executors
from desktop.runtime.executor import ExecutorUnavailable
from desktop.runtime.worker_host import AgentHost


class Loopback:
    """The module the executor registry imports for kind ``ray``."""

    def __init__(self, base: Path, unreachable: set[str] | None = None):
        self.base = base
        self.unreachable = unreachable or set()
        self.hosts: list[AgentHost] = []
        self.ended: list[str] = []

    async def connect(self, spec: RayExecutor) -> None:
        if spec.address in self.unreachable:
            raise ExecutorUnavailable(f"the Ray cluster at {spec.address} cannot be reached")

    async def open_link(self, spec: RayExecutor, agent_run_id: str) -> AgentHost:
        await self.connect(spec)
        host = AgentHost(self.base, host_id="loopback-node")
        self.hosts.append(host)
        return host

    async def end_orphan(self, spec: RayExecutor, agent_run_id: str) -> bool:
        self.ended.append(agent_run_id)
        return False

    @staticmethod
    def describe_loss(exc: BaseException) -> str:
        return f"the worker was lost ({type(exc).__name__}: {exc})"


def install(monkeypatch: Any, base: Path, **kwargs: Any) -> Loopback:
    """Route ``kind: ray`` executors to an in-process host under ``base``."""
    loop = Loopback(base, **kwargs)
    module = types.ModuleType("loopback_executor")
    module.connect = loop.connect  # type: ignore[attr-defined]
    module.open_link = loop.open_link  # type: ignore[attr-defined]
    module.describe_loss = loop.describe_loss  # type: ignore[attr-defined]
    module.end_orphan = loop.end_orphan  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "loopback_executor", module)
    monkeypatch.setitem(executors.LINKS, "ray", "loopback_executor")
    return loop
