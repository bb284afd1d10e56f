"""Connecting the engine to a Ray cluster: a failed ray:// handshake is tried again.

Ray's client server starts one server process per connection, and one that does not
come up in time aborts only that connection. A stand-in ``ray`` module plays the
cluster, so these run without Ray installed.
"""

from __future__ import annotations

import sys
import types

import pytest

from desktop.contract.executor import RayExecutor
from desktop.runtime import ray_exec
from desktop.runtime.executor import ExecutorUnavailable


class FakeRay(types.ModuleType):
    """``ray`` whose first ``failures`` calls of init raise ``error``."""

    def __init__(self, failures: int, error: Exception):
        super().__init__("ray")
        self.failures, self.error = failures, error
        self.inits = self.shutdowns = 0
        self.connected = False

    def init(self, **kwargs: object) -> None:
        self.inits += 1
        if self.inits <= self.failures:
            raise self.error
        self.connected = True

    def shutdown(self) -> None:
        self.shutdowns += 1
        self.connected = False

    def is_initialized(self) -> bool:
        return self.connected


@pytest.fixture
def fake_ray(monkeypatch: pytest.MonkeyPatch):
    def install(failures: int, error: Exception) -> FakeRay:
        fake = FakeRay(failures, error)
        monkeypatch.setitem(sys.modules, "ray", fake)
        monkeypatch.setattr(ray_exec, "_connected", None)
        monkeypatch.setattr(ray_exec, "_reachable", _always_reachable)
        return fake
    return install


async def _always_reachable(address: str) -> None:
    return None


ABORTED = ConnectionAbortedError("Initialization failure from server:\nTraceback ...\n"
                                 "RuntimeError: Proxy failed to Connect to backend!")


@pytest.mark.parametrize("failures", [1, ray_exec.CONNECT_ATTEMPTS - 1])
async def test_an_aborted_handshake_is_tried_again_until_it_connects(fake_ray,
                                                                      failures: int) -> None:
    fake = fake_ray(failures, ABORTED)
    await ray_exec.connect(RayExecutor(address="ray://head:10001"))
    assert fake.inits == failures + 1
    assert fake.shutdowns == failures  # each failed attempt is let go before the next
    assert ray_exec._connected == "ray://head:10001"


async def test_a_cluster_that_never_takes_the_connection_is_unavailable_naming_the_tries(
        fake_ray) -> None:
    fake = fake_ray(99, ABORTED)
    with pytest.raises(ExecutorUnavailable,
                       match=rf"ray://head:10001 \({ray_exec.CONNECT_ATTEMPTS} attempts\)"
                             r".*Initialization failure.*Proxy failed to Connect"):
        await ray_exec.connect(RayExecutor(address="ray://head:10001"))
    assert fake.inits == ray_exec.CONNECT_ATTEMPTS
    assert ray_exec._connected is None


async def test_a_refusal_that_is_not_a_connection_failure_is_not_tried_again(
        fake_ray) -> None:
    fake = fake_ray(99, RuntimeError("Version mismatch: the client has Python 3.11"))
    with pytest.raises(ExecutorUnavailable, match="Version mismatch"):
        await ray_exec.connect(RayExecutor(address="ray://head:10001"))
    assert fake.inits == 1
