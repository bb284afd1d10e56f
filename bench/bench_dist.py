"""The bundled app (``make dist``) against the venv (``make run``): start times and size.

Whole-process wall times, the median of several runs, each command alternating with
its reference so drift on a shared machine hits both: ``--version``, ``validate`` of
an example, and the GUI's cold start to its first window under Xvfb (spawn until the
window is mapped, polled with ``xwininfo``); then the CPU time of ``--version`` and
``validate``, which a busy machine skews less than their wall time. The targets are the
venv's own (bench_startup, bench_gui_start): ``--version`` under 0.15 s, ``validate``
under 0.3 s, the first window within 1.5x a bare PySide6 window with one QGraphicsView
(its program run by the venv's Python). Needs ``make dist`` first (the bundle in
build/bundle) and, for the window rows, Xvfb and xwininfo.
"""

from __future__ import annotations

import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from bench import xvfb
from bench.bench_gui_start import BARE
from desktop import __version__

ROOT = Path(__file__).resolve().parents[1]
BUNDLE = ROOT / "build" / "bundle" / "agent-canvas"
VENV_APP = ROOT / ".venv" / "bin" / "agent-canvas"
EXAMPLE = "plan-implement-review.flow.yaml"


def _env(home: Path, **extra: str) -> dict[str, str]:
    return {"PATH": "/usr/bin:/bin", "HOME": str(home), "LANG": "C.UTF-8",
            "AGENT_CANVAS_DATA_DIR": str(home / "data"), **extra}


def _wall(argv: Sequence[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   check=True, timeout=120)
    return time.perf_counter() - start


def _cpu(argv: Sequence[str], env: dict[str, str]) -> float:
    """User and system CPU seconds of one run: on a loaded machine the wall time mostly
    says how long the process waited for a core, this what it did."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   check=True, timeout=120)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _rounds(runs: int, measure, *argvs: Sequence[str]) -> list[float]:
    """The median of each of ``argvs``, measured in turn (A B C A B C ...) after one
    warm-up each."""
    for argv in argvs:
        measure(argv)
    times: list[list[float]] = [[] for _ in argvs]
    for _ in range(runs):
        for kept, argv in zip(times, argvs, strict=True):
            kept.append(measure(argv))
    return [statistics.median(kept) for kept in times]


def _row(name: str, ours: float, theirs: float, target: str | None = None,
         ok: bool | None = None) -> dict:
    return {"name": name, "value": round(ours, 3), "unit": "s", "reference": round(theirs, 3),
            "ratio": round(ours / theirs, 2) if theirs else None, "target": target, "ok": ok}


def _size_mb(path: Path) -> float:
    if path.is_file():
        return path.stat().st_size / 2**20
    files = [p for p in path.rglob("*") if p.is_file() and not p.is_symlink()]
    return sum(p.stat().st_size for p in files) / 2**20


def run(quick: bool) -> list[dict]:
    app = BUNDLE / "agent-canvas"
    if not app.is_file() or not VENV_APP.is_file():
        return [{"name": "bundle not built: run `make dist` first", "value": None, "unit": "",
                 "reference": None, "ratio": None, "target": None, "ok": None}]
    runs = 2 if quick else 7
    example = BUNDLE / "_internal" / "resources" / "examples" / EXAMPLE
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        home = Path(scratch)
        env = _env(home)

        def wall(argv):
            return _wall(argv, env)

        def cpu(argv):
            return _cpu(argv, env)

        version = [str(app), "--version"], [str(VENV_APP), "--version"]
        validate = ([str(app), "validate", str(example)],
                    [str(VENV_APP), "validate", str(example)])
        ours, theirs = _rounds(runs, wall, *version)
        rows.append(_row("`agent-canvas --version` (bundle vs venv)", ours, theirs,
                         "< 0.15 s", ours < 0.15))
        ours, theirs = _rounds(runs, wall, *validate)
        rows.append(_row("`agent-canvas validate` an example (bundle vs venv)", ours, theirs,
                         "< 0.3 s", ours < 0.3))
        ours, theirs = _rounds(runs, cpu, *version)
        rows.append(_row("`agent-canvas --version`, CPU (bundle vs venv)", ours, theirs))
        ours, theirs = _rounds(runs, cpu, *validate)
        rows.append(_row("`agent-canvas validate` an example, CPU (bundle vs venv)", ours,
                         theirs))
        if xvfb.available():
            with xvfb.xvfb() as display:
                def window(argv):
                    return xvfb.first_window(argv, _env(home, AGENT_CANVAS_DATA_DIR=scratch),
                                             display, EXAMPLE)

                ours, theirs, floor = _rounds(
                    max(1, runs // 2), window, [str(app), str(example)],
                    [str(VENV_APP), str(example)], [sys.executable, "-c", BARE, EXAMPLE])
            rows.append(_row("cold start to the first window (bundle vs venv)", ours, theirs))
            rows.append(_row("cold start to the first window (bundle) vs a bare QGraphicsView",
                             ours, floor, "<= 1.5x the bare window", ours <= 1.5 * floor))
    sizes = [("bundle, unpacked", BUNDLE),
             ("tarball", ROOT / "dist" / f"agent-canvas-{__version__}-linux-x86_64.tar.gz"),
             (".deb", ROOT / "dist" / f"agent-canvas_{__version__}_amd64.deb")]
    for name, path in sizes:
        if path.exists():
            rows.append({"name": f"size: {name}", "value": round(_size_mb(path), 1),
                         "unit": "MB", "reference": None, "ratio": None, "target": None,
                         "ok": None})
    return rows
