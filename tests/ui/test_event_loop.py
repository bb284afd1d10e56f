"""The shared loop: callbacks queued from other threads run once each, on the GUI thread."""

import asyncio
import os
import subprocess
import sys
import threading
from pathlib import Path

from desktop.ui.loop import new_event_loop


def test_threadsafe_callbacks_from_many_threads_run_on_the_gui_thread(qapp):
    loop = new_event_loop(qapp)
    asyncio.set_event_loop(loop)
    gui = threading.get_ident()
    seen: list[tuple[int, int, int]] = []
    threads_n, calls = 8, 500

    def record(worker: int, i: int) -> None:
        seen.append((worker, i, threading.get_ident()))

    def post(worker: int) -> None:
        for i in range(calls):
            loop.call_soon_threadsafe(record, worker, i)

    async def main() -> None:
        workers = [threading.Thread(target=post, args=(w,)) for w in range(threads_n)]
        for t in workers:
            t.start()
        await asyncio.gather(*(asyncio.to_thread(t.join) for t in workers))
        while len(seen) < threads_n * calls:
            await asyncio.sleep(0.01)

    try:
        loop.run_until_complete(asyncio.wait_for(main(), 30))
    finally:
        loop.close()
        asyncio.set_event_loop(None)
    assert sorted((w, i) for w, i, _ in seen) == [
        (w, i) for w in range(threads_n) for i in range(calls)]
    assert {ident for _, _, ident in seen} == {gui}
    for w in range(threads_n):  # each thread's callbacks keep their order
        assert [i for ww, i, _ in seen if ww == w] == list(range(calls))


def test_a_cancelled_handle_does_not_run(qapp):
    loop = new_event_loop(qapp)
    asyncio.set_event_loop(loop)
    ran: list[str] = []
    try:
        kept = loop.create_future()
        handle = loop.call_soon_threadsafe(ran.append, "cancelled")
        handle.cancel()
        loop.call_soon_threadsafe(lambda: (ran.append("kept"), kept.set_result(None)))
        # queued after the cancelled one, so it runs after that one would have
        loop.run_until_complete(asyncio.wait_for(kept, 30))
        assert ran == ["kept"]
    finally:
        loop.close()
        asyncio.set_event_loop(None)
    assert ran == ["kept"]  # nor when the loop closes


def _scenario(factory: str) -> subprocess.CompletedProcess[str]:
    script = Path(__file__).with_name("loop_gc_scenario.py")
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    return subprocess.run([sys.executable, str(script), factory], capture_output=True,
                          text=True, timeout=90, env=env)


def test_a_closed_loop_collected_on_a_worker_thread_leaves_no_live_qt_timer():
    # The mechanism behind the suite's old segfaults: plain qasync dies here.
    result = _scenario("ours")
    assert result.returncode == 0, result.stderr[-2000:]
    assert "survived" in result.stdout
    assert "Timers cannot be stopped from another thread" not in result.stderr


def test_the_scenario_does_crash_plain_qasync():
    # Shows the scenario above reproduces the crash it guards against.
    result = _scenario("qasync")
    assert result.returncode != 0 or "Timers cannot be stopped" in result.stderr


def test_the_collector_runs_on_the_gui_thread_and_skips_start_up_objects(qapp, qtbot):
    """Start-up objects are frozen after the first full pass (later passes do not walk
    them); garbage made later is still collected, on the GUI thread."""
    import gc
    import weakref

    from desktop.ui.app import collect_on_gui_thread

    class Cycle:
        pass

    try:
        timer = collect_on_gui_thread(qapp, interval_ms=5)
        assert not gc.isenabled()
        qtbot.waitUntil(lambda: gc.get_freeze_count() > 0, timeout=10_000)
        garbage = Cycle()
        garbage.me = garbage
        gone = weakref.ref(garbage)
        del garbage
        qtbot.waitUntil(lambda: gone() is None, timeout=10_000)
        timer.stop()
    finally:
        gc.unfreeze()
        gc.enable()
