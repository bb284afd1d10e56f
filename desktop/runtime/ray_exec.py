"""The Ray link: an actor hosting each agent run, placed by Ray on a worker node.

Imported only when a node's executor is ``kind: ray``; ``ray`` itself is imported
inside :func:`connect`. One engine process works with one cluster (Ray keeps one
connection per process). An agent run is hosted by an actor placed with the node's
``resources`` and ``runtimeEnv``; the actor runs
:class:`~desktop.runtime.worker_host.AgentHost`, which needs this project installed
on the worker (the same version, e.g. through ``runtimeEnv: {pip: [...]}``).
Actors are reused: one that closed its agent run cleanly waits in the engine's pool
(ray_pool.py) for the next, so most turns start no worker process. Each actor has a
name (``host-...``) and says which agent run it hosts, so a resumed engine can find and
end what its predecessor left (:func:`end_orphan`). An engine renews a lease on each
agent it runs every second; an engine killed outright stops, and its agents end within
``LEASE_SEC``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
import uuid
from typing import Any

from desktop.contract.executor import INSTALL_FIX, RayExecutor
from desktop.runtime.executor import ExecutorUnavailable, RemoteError
from desktop.runtime.ray_pool import HostPool, pool_key
from desktop.wording import plural

log = logging.getLogger(__name__)
NAMESPACE = "agent-canvas"
PREFLIGHT_SEC = 3.0
CONNECT_ATTEMPTS = 3
INIT_SEC = 150.0
"""For all the attempts: a ray:// server that never comes up costs about 40 s each."""
PLACE_SEC = 900.0
"""A feasible actor waits this long for room (a busy cluster, workers starting)."""
PREPARE_SEC = 600.0
LEASE_SEC = 5.0
"""An agent whose engine has not renewed its lease for this long is ended."""
REUSE_SEC = 30.0
"""An idle actor answers this fast, or it is taken for dead."""
ROOM_SEC = 2.0
"""A new actor not placed by then may be waiting for room that idle actors hold."""
_lock = threading.Lock()
_connected: str | None = None
_hosts: HostPool | None = None


def _ray() -> Any:
    try:
        import ray
    except ImportError:
        raise ExecutorUnavailable(f"executor kind 'ray' needs Ray, which is not installed "
                                  f"here; {INSTALL_FIX}") from None
    return ray


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
    """The actor: an AgentHost per agent run, in the worker's process (worker_host.py).

    It outlives the agent run it hosts: cleanly closed, it goes back to the engine's
    pool (ray_pool.py) for the next agent run with the same needs.
    """

    def __init__(self) -> None:
        import ray

        self.node_id = ray.get_runtime_context().get_node_id()
        self.host: Any = None
        self.agent_run_id = ""
        self.lease_until = 0.0
        self._watchdog: asyncio.Task[None] | None = None

    async def begin(self, agent_run_id: str) -> None:
        """Host ``agent_run_id`` from now on (a fresh AgentHost, nothing of the last)."""
        from desktop.runtime.worker_host import AgentHost

        if self.host is not None:
            raise RuntimeError(f"this actor still hosts {self.agent_run_id}")
        self.host = AgentHost(host_id=self.node_id)
        self.agent_run_id = agent_run_id
        await self.renew()
        if self._watchdog is None:
            self._watchdog = asyncio.create_task(self._watch())

    async def renew(self) -> None:
        """The engine is alive: keep its agent for another LEASE_SEC."""
        self.lease_until = time.monotonic() + LEASE_SEC

    async def _watch(self) -> None:
        # An engine killed outright cannot end its agent; the lease it stops renewing
        # does, so no agent works on (and spends) for an engine that is gone.
        while True:
            await asyncio.sleep(LEASE_SEC / 5)
            if self.host is not None and time.monotonic() > self.lease_until:
                log.warning("the engine of %s stopped renewing its lease: ending the agent",
                            self.agent_run_id)
                with contextlib.suppress(Exception):
                    await self.close()

    async def hosting(self) -> str:
        """The agent run hosted now ("" when idle)."""
        return self.agent_run_id

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
        """End the agent run's agent and remove its folders; the actor stays, idle."""
        host, self.host, self.agent_run_id = self.host, None, ""
        if host is not None:
            await host.close()


def _options(spec: RayExecutor) -> dict[str, Any]:
    """How an actor for ``spec`` is placed (its name aside: see :func:`_place`)."""
    res = spec.resources
    options: dict[str, Any] = {"num_cpus": res.num_cpus, "namespace": NAMESPACE,
                               "max_restarts": 0, "max_concurrency": 64}
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

    def __init__(self, actor: Any, ray: Any, key: str = ""):
        self.actor, self._ray, self.key = actor, ray, key
        self._lease = asyncio.create_task(self._renew(), name="ray-lease")

    async def _renew(self) -> None:
        while True:
            await asyncio.sleep(LEASE_SEC / 5)
            try:
                await asyncio.wait_for(self.actor.renew.remote(), LEASE_SEC)
            except TimeoutError:
                log.warning("renewing an agent's lease on the Ray cluster timed out")
            except Exception:
                return  # the actor is gone: the agent's calls say so

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
        """End the agent run on the actor; a clean actor goes back to the pool."""
        self._lease.cancel()
        await asyncio.wait({self._lease})  # without taking a cancellation of our own
        try:
            await asyncio.wait_for(self.actor.close.remote(), 20)
        except BaseException:
            with contextlib.suppress(Exception):
                self._ray.kill(self.actor)
            raise
        _pool().give(self.key, self.actor)


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
    verb = "has" if len(nodes) == 1 else "have"
    return (f"no node of the Ray cluster at {spec.address} has {wanted} (its "
            f"{plural(len(nodes), 'node')} {verb} at most {_largest(nodes, wanted)}); "
            "lower executor.resources or add a node that has them")


def _largest(nodes: list[dict[str, Any]], wanted: dict[str, float]) -> dict[str, float]:
    return {k: max((float((n.get("Resources") or {}).get(k, 0.0)) for n in nodes), default=0.0)
            for k in wanted}


def _pool() -> HostPool:
    global _hosts
    with _lock:
        if _hosts is None:
            _hosts = HostPool(kill=_ray().kill)
        return _hosts


async def _reuse(key: str, agent_run_id: str) -> Any | None:
    """An idle actor of the pool, now hosting ``agent_run_id``; None when none is left."""
    pool = _pool()
    while (actor := pool.take(key)) is not None:
        try:
            await asyncio.wait_for(actor.begin.remote(agent_run_id), REUSE_SEC)
            return actor
        except Exception as exc:  # it died while idle (its worker node went away)
            log.info("an idle Ray actor could not be reused: %s", _first_line(exc))
            with contextlib.suppress(Exception):
                _ray().kill(actor)
    return None


async def _ready(actor: Any) -> None:
    await actor.__ray_ready__.remote()


async def _place(spec: RayExecutor, options: dict[str, Any], agent_run_id: str) -> Any:
    """A new actor, placed and hosting ``agent_run_id``; RemoteError when Ray cannot."""
    ray = _ray()
    try:
        actor = ray.remote(_Host).options(name=f"host-{uuid.uuid4().hex}", **options).remote()
    except Exception as exc:
        raise RemoteError(f"Ray refused the agent's actor: {_first_line(exc)}") from None
    ready = asyncio.ensure_future(_ready(actor))
    try:
        done, _ = await asyncio.wait({ready}, timeout=ROOM_SEC)
        if not done and _pool().release():
            log.info("the cluster had no room for a new agent: idle actors ended")
        await asyncio.wait_for(ready, PLACE_SEC)
        await asyncio.wait_for(actor.begin.remote(agent_run_id), REUSE_SEC)
    except TimeoutError:
        with contextlib.suppress(Exception):
            ray.kill(actor)
        raise RemoteError(f"no Ray node could take the agent within {PLACE_SEC:g} s "
                          f"(it asks for {spec.resources.to_json_dict()}); lower "
                          "executor.resources or add nodes") from None
    except BaseException as exc:
        ready.cancel()
        with contextlib.suppress(Exception):
            ray.kill(actor)
        if isinstance(exc, Exception):
            raise RemoteError(describe_loss(exc)) from None
        raise
    return actor


async def open_link(spec: RayExecutor, agent_run_id: str) -> RayLink:
    """An actor hosting this agent run: an idle one of the pool, else a new one placed
    by Ray; RemoteError when Ray cannot."""
    await connect(spec)
    ray = _ray()
    options = _options(spec)
    key = pool_key(spec.address, options)
    actor = await _reuse(key, agent_run_id)
    if actor is None:
        problem = await asyncio.to_thread(_infeasible, ray, spec)
        if problem is not None:
            raise RemoteError(problem)
        actor = await _place(spec, options, agent_run_id)
    return RayLink(actor, ray, key)


def _named_hosts(ray: Any) -> list[Any]:
    names = ray.util.list_named_actors()
    return [ray.get_actor(n, namespace=NAMESPACE) for n in names
            if isinstance(n, str) and n.startswith("host-")]


async def find_host(agent_run_id: str) -> Any | None:
    """The actor hosting ``agent_run_id`` on the connected cluster, or None."""
    ray = _ray()
    for actor in await asyncio.to_thread(_named_hosts, ray):
        with contextlib.suppress(Exception):
            if await asyncio.wait_for(actor.hosting.remote(), REUSE_SEC) == agent_run_id:
                return actor
    return None


async def end_orphan(spec: RayExecutor, agent_run_id: str) -> bool:
    """End the agent a previous engine left running on the cluster; True if one was."""
    try:
        await connect(spec)
        actor = await find_host(agent_run_id)
    except Exception:
        return False
    if actor is None:
        return False
    with contextlib.suppress(Exception):
        await asyncio.wait_for(actor.close.remote(), 20)
    with contextlib.suppress(Exception):
        _ray().kill(actor)
    return True
