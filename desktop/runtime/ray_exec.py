"""The Ray link: an AgentHost actor per agent run, placed by Ray on a worker node.

Imported only when a node's executor is ``kind: ray``; ``ray`` itself is imported
inside :func:`connect`. One engine process works with one cluster (Ray keeps one
connection per process). Each agent run gets its own actor, with the node's
``resources`` and ``runtimeEnv``; the actor runs
:class:`~desktop.runtime.worker_host.AgentHost`, which needs this project installed
on the worker (the same version, e.g. through ``runtimeEnv: {pip: [...]}``).
The actor is named after the agent run, so a resumed engine can find and end what
its predecessor left (:func:`end_orphan`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from typing import Any

from desktop.contract.executor import INSTALL_FIX, RayExecutor
from desktop.runtime.executor import ExecutorUnavailable, RemoteError

log = logging.getLogger(__name__)
NAMESPACE = "agent-canvas"
PREFLIGHT_SEC = 3.0
CONNECT_ATTEMPTS = 3
INIT_SEC = 150.0
"""For all the attempts: a ray:// server that never comes up costs about 40 s each."""
PLACE_SEC = 900.0
"""A feasible actor waits this long for room (a busy cluster, workers starting)."""
PREPARE_SEC = 600.0
_lock = threading.Lock()
_connected: str | None = None


def _ray() -> Any:
    try:
        import ray
    except ImportError:
        raise ExecutorUnavailable(f"executor kind 'ray' needs Ray, which is not installed "
                                  f"here; {INSTALL_FIX}") from None
    return ray


def actor_name(agent_run_id: str) -> str:
    return f"agent-run-{agent_run_id}"


async def _reachable(address: str) -> None:
    """A TCP connection to the address within seconds, so a wrong address fails fast
    instead of in Ray's own long retry loop."""
    if address == "auto":
        return
    hostport = address.removeprefix("ray://")
    host, _, port = hostport.rpartition(":")
    host = host.strip("[]")
    try:
        _, writer = await asyncio.wait_for(asyncio.open_connection(host, int(port)),
                                           PREFLIGHT_SEC)
    except (OSError, TimeoutError) as exc:
        why = "no answer" if isinstance(exc, TimeoutError) else (exc.strerror or str(exc))
        raise ExecutorUnavailable(
            f"the Ray cluster at {address} cannot be reached ({why}); start it or correct "
            "executor.address, then resume the run") from None
    writer.close()
    with contextlib.suppress(Exception):
        await writer.wait_closed()


def _init(address: str) -> None:
    global _connected
    ray = _ray()
    with _lock:
        if _connected == address and ray.is_initialized():
            return
        if _connected is not None and ray.is_initialized():
            raise ExecutorUnavailable(
                f"this engine already works with the Ray cluster at {_connected}; one engine "
                f"uses one cluster, so {address} is not possible here (run it from another "
                "service, or give every node the same address)")
        for attempt in range(1, CONNECT_ATTEMPTS + 1):
            try:
                ray.init(address=address, namespace=NAMESPACE, logging_level=logging.WARNING,
                         log_to_driver=False, ignore_reinit_error=True)
                break
            except ConnectionError as exc:
                # A ray:// cluster starts a server process for each connection; one that
                # does not come up in time fails only this attempt, and the next one
                # gets a fresh server.
                with contextlib.suppress(Exception):
                    ray.shutdown()
                if attempt == CONNECT_ATTEMPTS:
                    raise ExecutorUnavailable(
                        f"cannot connect to the Ray cluster at {address} ({attempt} "
                        f"attempts): {_handshake_failure(exc)}") from None
                log.warning("connecting to the Ray cluster at %s failed (%s); trying again",
                            address, _handshake_failure(exc))
            except Exception as exc:
                raise ExecutorUnavailable(f"cannot connect to the Ray cluster at {address}: "
                                          f"{_first_line(exc)}") from None
        _connected = address


async def connect(spec: RayExecutor) -> None:
    """Connect this engine to the spec's cluster (once); ExecutorUnavailable if it can't."""
    _ray()
    if _connected == spec.address:
        return
    await _reachable(spec.address)
    try:
        await asyncio.wait_for(asyncio.to_thread(_init, spec.address), INIT_SEC)
    except TimeoutError:
        raise ExecutorUnavailable(f"the Ray cluster at {spec.address} did not accept a "
                                  f"connection within {INIT_SEC:g} s") from None


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0][:300]}" if text else type(exc).__name__


def _handshake_failure(exc: BaseException) -> str:
    """A refused ray:// handshake: its first line and, when the server sent one, the last
    line of the server's own error ("Initialization failure from server:" says nothing)."""
    lines = [line.strip() for line in str(exc).strip().splitlines() if line.strip()]
    first = _first_line(exc)
    return f"{first} ... {lines[-1][:300]}" if len(lines) > 1 else first


def describe_loss(exc: BaseException) -> str:
    """Why a call on the worker failed, for the turn's error."""
    if isinstance(exc, RemoteError | ExecutorUnavailable):
        return str(exc)
    name = type(exc).__name__
    if "ActorDied" in name or "ActorError" in name or "ActorUnavailable" in name \
            or "WorkerCrashed" in name or "NodeDied" in name:
        return f"the Ray worker running the agent was lost ({_first_line(exc)})"
    return f"the Ray worker failed: {_first_line(exc)}"


class _Host:
    """The actor: an AgentHost in the worker's process (see worker_host.py)."""

    def __init__(self) -> None:
        import ray

        from desktop.runtime.worker_host import AgentHost

        self.host = AgentHost(host_id=ray.get_runtime_context().get_node_id())

    async def prepare(self, job: dict[str, Any]) -> dict[str, Any]:
        return await self.host.prepare(job)

    async def spawn(self, request: dict[str, Any]) -> dict[str, Any]:
        return await self.host.spawn(request)

    async def read(self, max_bytes: int) -> dict[str, Any]:
        return await self.host.read(max_bytes)

    async def write(self, data: bytes) -> bool:
        return await self.host.write(data)

    async def close_stdin(self) -> None:
        await self.host.close_stdin()

    async def terminate(self, grace: float | None) -> None:
        await self.host.terminate(grace)

    async def collect(self) -> dict[str, Any]:
        return await self.host.collect()

    async def close(self) -> None:
        await self.host.close()


def _options(spec: RayExecutor, agent_run_id: str) -> dict[str, Any]:
    res = spec.resources
    options: dict[str, Any] = {"num_cpus": res.num_cpus, "name": actor_name(agent_run_id),
                               "namespace": NAMESPACE, "max_restarts": 0,
                               "max_concurrency": 64}
    if res.memory_mb:
        options["memory"] = res.memory_mb * 1024 * 1024
    if res.num_gpus:
        options["num_gpus"] = res.num_gpus
    if res.custom:
        options["resources"] = res.custom
    if spec.runtime_env:
        options["runtime_env"] = spec.runtime_env
    return options


class RayLink:
    """Calls on one actor, awaited on the engine's loop."""

    def __init__(self, actor: Any, ray: Any):
        self.actor, self._ray = actor, ray

    async def prepare(self, job: dict[str, Any]) -> dict[str, Any]:
        return await asyncio.wait_for(self.actor.prepare.remote(job), PREPARE_SEC)

    async def spawn(self, request: dict[str, Any]) -> dict[str, Any]:
        return await self.actor.spawn.remote(request)

    async def read(self, max_bytes: int) -> dict[str, Any]:
        return await self.actor.read.remote(max_bytes)

    async def write(self, data: bytes) -> bool:
        return await self.actor.write.remote(data)

    async def close_stdin(self) -> None:
        await self.actor.close_stdin.remote()

    async def terminate(self, grace: float | None) -> None:
        await self.actor.terminate.remote(grace)

    async def collect(self) -> dict[str, Any]:
        return await self.actor.collect.remote()

    async def close(self) -> None:
        try:
            await asyncio.wait_for(self.actor.close.remote(), 20)
        finally:
            with contextlib.suppress(Exception):
                self._ray.kill(self.actor)


def _wanted(spec: RayExecutor) -> dict[str, float]:
    res = spec.resources
    wanted = {"CPU": res.num_cpus, **res.custom}
    if res.memory_mb:
        wanted["memory"] = res.memory_mb * 1024 * 1024
    if res.num_gpus:
        wanted["GPU"] = res.num_gpus
    return {k: float(v) for k, v in wanted.items() if v}


def _infeasible(ray: Any, spec: RayExecutor) -> str | None:
    """Why no node of the cluster could ever take this agent (None: one could)."""
    wanted = _wanted(spec)
    try:
        nodes = [n for n in ray.nodes() if n.get("Alive")]
    except Exception:  # cannot tell: let Ray decide
        return None
    for node in nodes:
        total = node.get("Resources") or {}
        if all(total.get(k, 0.0) >= v for k, v in wanted.items()):
            return None
    return (f"no node of the Ray cluster at {spec.address} has {wanted} (its "
            f"{len(nodes)} node(s) have at most {_largest(nodes, wanted)}); lower "
            "executor.resources or add a node that has them")


def _largest(nodes: list[dict[str, Any]], wanted: dict[str, float]) -> dict[str, float]:
    return {k: max((float((n.get("Resources") or {}).get(k, 0.0)) for n in nodes), default=0.0)
            for k in wanted}


async def open_link(spec: RayExecutor, agent_run_id: str) -> RayLink:
    """Place an AgentHost actor for this agent run; RemoteError when Ray cannot."""
    await connect(spec)
    ray = _ray()
    problem = await asyncio.to_thread(_infeasible, ray, spec)
    if problem is not None:
        raise RemoteError(problem)
    try:
        actor = ray.remote(_Host).options(**_options(spec, agent_run_id)).remote()
    except Exception as exc:
        raise RemoteError(f"Ray refused the agent's actor: {_first_line(exc)}") from None
    link = RayLink(actor, ray)
    try:
        await asyncio.wait_for(actor.__ray_ready__.remote(), PLACE_SEC)
    except TimeoutError:
        with contextlib.suppress(Exception):
            ray.kill(actor)
        raise RemoteError(f"no Ray node could take the agent within {PLACE_SEC:g} s "
                          f"(it asks for {spec.resources.to_json_dict()}); lower "
                          "executor.resources or add nodes") from None
    except Exception as exc:
        with contextlib.suppress(Exception):
            ray.kill(actor)
        raise RemoteError(describe_loss(exc)) from None
    return link


async def end_orphan(spec: RayExecutor, agent_run_id: str) -> bool:
    """End the agent a previous engine left running on the cluster; True if one was."""
    try:
        await connect(spec)
        ray = _ray()
        actor = ray.get_actor(actor_name(agent_run_id), namespace=NAMESPACE)
    except Exception:
        return False
    with contextlib.suppress(Exception):
        await asyncio.wait_for(actor.close.remote(), 20)
    with contextlib.suppress(Exception):
        ray.kill(actor)
    return True
