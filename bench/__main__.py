"""``python -m bench``: run every ``bench/bench_*.py`` and write ``bench/RESULTS.md``.

Each module exposes ``run(quick: bool) -> list[dict]`` returning rows with the keys
``name, value, unit, reference, ratio, target, ok`` (see bench/README.md).
"""

import argparse
import importlib
import os
import pkgutil
import platform
import sys
import time
import traceback
from datetime import UTC, datetime
from pathlib import Path

from bench import summary
from bench.sections import note, sections

HERE = Path(__file__).resolve().parent
COLUMNS = ("name", "value", "unit", "reference", "ratio", "target", "ok")


def plain_cpu(name: str) -> str:
    """A CPU's name without its marks and brackets (``Intel Xeon Processor``), so that it
    reads in a stamp whose end is a closing bracket."""
    for mark in ("(R)", "(TM)", "(tm)", "(r)"):
        name = name.replace(mark, "")
    return " ".join(name.replace("(", "").replace(")", "").replace(";", ",").split())


def cpu_model() -> str:
    """The CPU's marketing name, as far as the platform tells."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    if sys.platform == "darwin":
        import subprocess

        try:
            return subprocess.run(["sysctl", "-n", "machdep.cpu.brand_string"],
                                  capture_output=True, text=True, check=True).stdout.strip()
        except (OSError, subprocess.CalledProcessError):
            pass
    return platform.processor() or platform.machine() or "unknown"


def machine() -> dict[str, str]:
    """Where the numbers were measured."""
    return {
        "platform": platform.platform(),
        "cpu": cpu_model(),
        "cores": str(os.cpu_count()),
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        # other work on the machine skews absolute figures; ratios hold up better
        "load average at start": " ".join(f"{x:.1f}" for x in os.getloadavg())
        if hasattr(os, "getloadavg") else "n/a",
    }


def discover(only: list[str] | None) -> list[str]:
    """Names of the bench modules (``bench_store`` ...), optionally filtered."""
    names = sorted(m.name for m in pkgutil.iter_modules([str(HERE)])
                   if m.name.startswith("bench_"))
    if only:
        names = [n for n in names if n in only or n.removeprefix("bench_") in only]
    return names


def fmt(value: object) -> str:
    """A cell: floats with 3 significant digits (or grouped thousands), None as a dash."""
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "**NO**"
    if isinstance(value, float):
        return f"{value:,.0f}" if abs(value) >= 1000 else f"{value:.3g}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value).replace("|", "\\|")


def table(rows: list[dict]) -> str:
    """Rows as a Markdown table."""
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    lines += ["| " + " | ".join(fmt(r.get(c)) for c in COLUMNS) + " |" for r in rows]
    return "\n".join(lines)


def run_module(name: str, quick: bool) -> tuple[list[dict], float]:
    """The rows of one module and its wall time; a crash becomes a failed row."""
    start = time.perf_counter()
    try:
        rows = importlib.import_module(f"bench.{name}").run(quick)
    except Exception:
        traceback.print_exc()
        rows = [{"name": "crashed (see stderr)", "ok": False}]
    return rows, time.perf_counter() - start


def report(results: dict[str, tuple[list[dict], float]], quick: bool,
           kept: dict[str, str] | None = None, info: dict[str, str] | None = None,
           notes: dict[str, str] | None = None) -> str:
    """The whole RESULTS.md text; ``kept`` sections (from an earlier run) stay as they were,
    and the benches just run keep their ``notes`` below their new tables."""
    info = info or machine()
    where = f" on {plain_cpu(info['cpu'])}" if info.get("cpu") else ""
    stamp = f"{info['date']}{where}, load average at start {info['load average at start']}"
    out = ["# Benchmark results", "",
           "Written by `make bench` (`python -m bench`); see bench/README.md.", "",
           *[f"- {k}: {v}" for k, v in info.items()],
           f"- mode: {'quick' if quick else 'full'}", ""]
    if kept:
        out += ["Sections measured at another time say when, and since 2026-11-28 on which "
                "CPU (`--only ... --update`): the machine above is the last run's, and the "
                "machine changes between sessions.", ""]
    targets = summary.fresh(results, stamp, fmt) + summary.kept(
        {k: v for k, v in (kept or {}).items() if k not in results})
    out += ["## Targets", "", summary.counts(targets) + ", missed first.", "",
            summary.table(targets), ""]
    done = {}
    for name, (rows, seconds) in results.items():
        timing = f"({seconds:.1f} s; measured {stamp})" if kept else f"({seconds:.1f} s)"
        kept_note = (notes or {}).get(name)
        done[name] = "\n".join([f"## {name}", "", table(rows), "", timing, "",
                                 *([kept_note, ""] if kept_note else [])])
    for name in sorted({*done, *(kept or {})}):
        out.append(done.get(name) or (kept or {})[name])
    return "\n".join(out)


def update(text: str, results: dict[str, tuple[list[dict], float]], quick: bool,
           info: dict[str, str]) -> str:
    """An existing RESULTS.md ``text`` with the sections of ``results`` rewritten: their
    tables replaced, the notes written below them kept, every other section left as it was."""
    old = sections(text)
    kept = {k: v for k, v in old.items() if k not in results}
    notes = {k: note(v) for k, v in old.items() if k in results}
    return report(results, quick, kept, info, notes)


def main(argv: list[str] | None = None) -> int:
    """Run the benches; exit 1 with --strict when a target is missed."""
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="smaller sizes, for a smoke run")
    parser.add_argument("--only", nargs="+", metavar="NAME", help="modules to run (store ...)")
    parser.add_argument("--output", type=Path, help="results file (default bench/RESULTS.md; "
                        "with --only, nothing is written unless this is given)")
    parser.add_argument("--update", action="store_true", help="with --only: replace just those "
                        "modules' sections of the results file and keep the others")
    parser.add_argument("--strict", action="store_true", help="exit 1 if any target is missed")
    args = parser.parse_args(argv)
    info = machine()  # before the benches load the machine themselves
    results = {}
    for name in discover(args.only):
        print(f"== {name}", flush=True)
        rows, seconds = run_module(name, args.quick)
        print(table(rows), flush=True)
        results[name] = (rows, seconds)
    default = HERE / "RESULTS.md"
    output = args.output or (None if args.only and not args.update else default)
    if output is not None:
        if args.only and args.update and output.exists():
            text = update(output.read_text(), results, args.quick, info)
        else:
            text = report(results, args.quick, None, info)
        output.write_text(text + "\n")
        print(f"wrote {output}")
    missed = [r for rows, _ in results.values() for r in rows if r.get("ok") is False]
    stamp = f"{info['date']}, load average at start {info['load average at start']}"
    print("\n".join(summary.lines(summary.fresh(results, stamp, fmt))), flush=True)
    if missed:
        print(f"{len(missed)} target(s) missed", file=sys.stderr)
    return 1 if args.strict and missed else 0


if __name__ == "__main__":
    sys.exit(main())
