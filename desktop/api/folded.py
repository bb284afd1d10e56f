"""The states of runs no engine of this service holds, folded from their folders on a
worker thread, so a log of a million events never holds the service's event loop.

A fold is kept, a few runs at a time, with the fingerprint of the files it was made from
(:func:`desktop.views.run_list.fingerprint`: the log's size and mtime, the snapshot's and
``applied.json``'s mtimes); asking again for an unchanged run costs a few stats. Whether
an engine holds a live-looking run is looked at on every call, as it changes without a
write (an engine that died).
"""

from __future__ import annotations

import asyncio
import threading
from collections import OrderedDict
from pathlib import Path

from desktop.contract.state import RunState
from desktop.views.run_list import Fingerprint, fingerprint
from desktop.views.runs import fold_run, marked_interrupted

KEPT = 8
"""How many folded runs are kept (the ones asked for last)."""


class FoldedRuns:
    """Folds of run folders, made off the loop and kept while their files are unchanged."""

    def __init__(self, kept: int = KEPT) -> None:
        self.kept = kept
        self._folds: OrderedDict[Path, tuple[Fingerprint, RunState]] = OrderedDict()
        self._lock = threading.Lock()
        self.folds = 0
        """How many times a run was folded from its files (for tests and benches)."""

    async def state(self, folder: Path) -> RunState:
        """The run in ``folder`` (raises RunError when it holds no readable run)."""
        return await asyncio.to_thread(self._state, Path(folder))

    def forget(self, folder: Path) -> None:
        """Drop the fold of ``folder`` (its run was deleted)."""
        with self._lock:
            self._folds.pop(Path(folder), None)

    def _state(self, folder: Path) -> RunState:
        mark = fingerprint(folder)
        with self._lock:
            kept = self._folds.get(folder)
            if kept is not None and kept[0] == mark:
                self._folds.move_to_end(folder)
                return marked_interrupted(kept[1], folder)
        state = fold_run(folder)
        with self._lock:
            self.folds += 1
            self._folds[folder] = (mark, state)
            self._folds.move_to_end(folder)
            while len(self._folds) > self.kept:
                self._folds.popitem(last=False)
        return marked_interrupted(state, folder)
