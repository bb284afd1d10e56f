"""The pool of idle Ray actors: reused by key, bounded, forgotten when idle too long,
and all given up when a new actor needs their room (no Ray needed)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from desktop.runtime.ray_pool import IDLE_SEC, MAX_IDLE, HostPool, pool_key


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def make() -> tuple[HostPool, list[object], Clock]:
    ended: list[object] = []
    clock = Clock()
    return HostPool(kill=ended.append, clock=clock), ended, clock


def test_an_actor_is_reused_only_for_the_same_needs() -> None:
    a = pool_key("ray://h:10001", {"num_cpus": 1, "name": "host-1"})
    same = pool_key("ray://h:10001", {"name": "host-2", "num_cpus": 1})
    other = pool_key("ray://h:10001", {"num_cpus": 2, "name": "host-1"})
    assert a == same and a != other
    pool, ended, _ = make()
    pool.give(a, "x")
    assert pool.take(other) is None
    assert pool.take(same) == "x" and pool.take(a) is None and not ended


@given(st.lists(st.tuples(st.sampled_from(["give", "take", "wait", "release"]),
                          st.sampled_from(["k1", "k2"])), max_size=40))
def test_no_actor_is_lost_or_handed_out_twice(steps) -> None:
    pool, ended, clock = make()
    out: list[int] = []
    made = 0
    for op, key in steps:
        if op == "give":
            pool.give(key, (key, made))
            made += 1
        elif op == "take":
            got = pool.take(key)
            if got is not None:
                assert got[0] == key
                out.append(got[1])
        elif op == "wait":
            clock.now += IDLE_SEC / 2 + 1
        else:
            pool.release()
        assert pool.size() <= 2 * MAX_IDLE
    # every actor ever given is exactly one of: handed out, ended, or still idle
    idle = [a[1] for idle in pool._idle.values() for _, a in idle]
    assert sorted(out + [a[1] for a in ended] + idle) == list(range(made))


def test_the_oldest_idle_actors_are_ended() -> None:
    pool, ended, clock = make()
    for i in range(MAX_IDLE + 1):
        pool.give("k", i)
    assert ended == [MAX_IDLE]  # the pool was full
    clock.now = IDLE_SEC + 1
    pool.give("k2", "fresh")
    assert sorted(ended[1:]) == list(range(MAX_IDLE)) and pool.size() == 1
    assert pool.release() == 1 and ended[-1] == "fresh" and pool.size() == 0
