"""Test-wide set-up: headless Qt and a private data folder per test."""

import asyncio
import gc
import logging
import os

import keyring
import pytest
from hypothesis import settings
from keyring.backend import KeyringBackend

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# No per-example deadline: how long an example takes is a timing, and tests assert none
# (a loaded CI machine would fail them); speed is measured in bench/.
settings.register_profile("agent-canvas", deadline=None)
settings.load_profile("agent-canvas")
# Processes the tests start (the service, agents, the CLI) see an empty keyring, never the
# user's real one; this process gets a fresh in-memory one per test (below).
os.environ["PYTHON_KEYRING_BACKEND"] = "keyring.backends.null.Keyring"
# No spare worktree written in the background while a run works: whether one is done
# before the run ends is a race, and tests count the worktrees of the user's repository.
# tests/runtime/test_worktree_spare.py turns it on.
os.environ["AGENT_CANVAS_SPARE_WORKTREE"] = "0"


class MemoryKeyring(KeyringBackend):
    """A keyring in a dict: what the app stores in a test stays in the test's memory."""

    priority = 1

    def __init__(self) -> None:
        super().__init__()
        self.values: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.values.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.values[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        if self.values.pop((service, username), None) is None:
            raise keyring.errors.PasswordDeleteError(username)


@pytest.fixture(autouse=True)
def memory_keyring() -> MemoryKeyring:
    """A fresh, empty in-memory keyring for every test."""
    previous = keyring.get_keyring()
    ring = MemoryKeyring()
    keyring.set_keyring(ring)
    yield ring
    keyring.set_keyring(previous)


@pytest.fixture(autouse=True)
def _private_data_dir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch):
    """Point AGENT_CANVAS_DATA_DIR at a fresh folder so no test touches real runs."""
    folder = tmp_path_factory.mktemp("data")
    monkeypatch.setenv("AGENT_CANVAS_DATA_DIR", str(folder))
    return folder


@pytest.fixture(scope="session")
def qapp():
    """pytest-qt's QApplication is the app's own (``application()``), with its quit policy:
    closing the last window does not stop the loop under a running test."""
    from desktop.ui.app import application

    return application()


class _DroppedTasks(logging.Handler):
    """What asyncio logs when the collector finds a task still pending."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.getMessage().startswith("Task was destroyed but it is pending"):
            self.messages.append(record.getMessage())


@pytest.fixture(autouse=True)
def _collect_after_each_test():
    """Run the collector as each test ends, so an object it leaked (a subprocess transport,
    a socket, a file) is finalised, and its warning fails, in that test; a task it left
    pending fails it too. Objects an entry point froze are given back to the collector
    first, or a later test's leak would hide among them."""
    dropped = _DroppedTasks()
    logging.getLogger("asyncio").addHandler(dropped)
    left = None
    try:
        yield
        left = _loop_left_set()
        gc.unfreeze()  # an entry point run in this process froze the heap (runtime/heap.py)
        gc.collect()
    finally:
        logging.getLogger("asyncio").removeHandler(dropped)
    if left is not None:
        # made by asyncio's policy for code that wanted a loop while none ran (GUI code
        # driven without the qloop fixture): dropped later, it warns in another test
        left.close()
        asyncio.set_event_loop(None)
        pytest.fail("the test left an event loop open (use the qloop fixture to drive GUI "
                    "code that starts tasks)", pytrace=False)
    if dropped.messages:
        pytest.fail("a task was left pending for the collector:\n" + "\n".join(dropped.messages),
                    pytrace=False)


def _loop_left_set() -> asyncio.AbstractEventLoop | None:
    """The thread's current loop when one is set, open and idle (asyncio has no public way
    to ask without making one)."""
    loop = getattr(getattr(asyncio.get_event_loop_policy(), "_local", None), "_loop", None)
    if loop is not None and not loop.is_closed() and not loop.is_running():
        return loop
    return None


@pytest.fixture(autouse=True)
def _no_declared_client(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test starts as no client of the product's (the CLI's main() declares itself
    the terminal, for the rest of the process it runs in)."""
    from desktop.contract import client_origin as origin

    monkeypatch.setattr(origin, "_declared", [])
