"""Every command that reads a file, fed every hostile file: a clear refusal, quickly.

The corpus is tests/data/hostile/ plus what is made here at test time (too big, or not
storable in git). Each command must end with exit code 1 or 2, a message on stderr,
no traceback, within a CPU-time bound and in under 200 MB. The bounds are behaviour
bounds (they catch "never finishes" and "eats all memory"), not speed targets.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent
HOSTILE = HERE.parent / "data" / "hostile"
CPU_SECONDS = 5.0
MAX_RSS_MB = 200.0

YAML_FILES = ["billion-laughs.flow.yaml", "recursive-alias.flow.yaml", "python-tag.flow.yaml",
              "deep-brackets.flow.yaml", "deep-maps.flow.yaml"]
OTHER_FILES = ["deep-brackets.jsonl", "deep-maps.jsonl", "binary.bin", "garbage.bin",
               "empty.txt"]


def made_files(tmp: Path) -> dict[str, Path]:
    """Hostile files that are made, not stored: 50 MB of comments, a FIFO."""
    big = tmp / "big.flow.yaml"
    with open(big, "w") as fh:
        fh.write("version: 1\nname: big\nnodes: [{id: a}]\n")
        line = "# " + "x" * 97 + "\n"
        fh.write(line * (50 * 1024 * 1024 // len(line)))
    fifo = tmp / "fifo.flow.yaml"
    os.mkfifo(fifo)
    return {"big.flow.yaml": big, "fifo.flow.yaml": fifo}


def hostile_files(tmp: Path) -> dict[str, Path]:
    files = {name: HOSTILE / name for name in YAML_FILES + OTHER_FILES}
    files.update(made_files(tmp))
    return files


def file_commands(path: Path, data: Path) -> list[list[str]]:
    """Each command that reads a workflow or record file given on the command line."""
    p = str(path)
    return [
        ["validate", p],
        ["export", "-f", "mermaid", p],
        ["layout", p],
        ["run", p, "--data-dir", str(data)],
        ["check", "run-info", p],
    ]


def run_all(cases: list[list[str]], tmp: Path) -> list[dict]:
    spec, out = tmp / "cases.json", tmp / "results.json"
    spec.write_text(json.dumps(cases))
    env = dict(os.environ, PYTHONPATH=str(HERE.parents[1]))
    subprocess.run([sys.executable, str(HERE / "hostile_driver.py"), str(spec), str(out)],
                   check=True, env=env, timeout=1800, stdin=subprocess.DEVNULL)
    return json.loads(out.read_text())


def check(result: dict) -> list[str]:
    """What is wrong with how one command ended (empty when it ended well)."""
    wrong = []
    shown = " ".join(result["argv"])
    if result["killed"]:
        wrong.append(f"{shown}: still running at the deadline")
    if result["exit"] not in (1, 2):
        wrong.append(f"{shown}: exit {result['exit']} (want 1 or 2)")
    if "Traceback" in result["stderr"]:
        wrong.append(f"{shown}: traceback\n{result['stderr'][-3000:]}")
    if not result["stderr"].strip():
        wrong.append(f"{shown}: no message on stderr")
    if result["cpu"] > CPU_SECONDS:
        wrong.append(f"{shown}: {result['cpu']:.1f} s of CPU")
    if result["maxrss_mb"] > MAX_RSS_MB:
        wrong.append(f"{shown}: {result['maxrss_mb']:.0f} MB")
    return wrong


def test_commands_reading_files_refuse_every_hostile_file(tmp_path: Path) -> None:
    data = tmp_path / "data"
    cases = [argv for path in hostile_files(tmp_path).values()
             for argv in file_commands(path, data)]
    results = run_all(cases, tmp_path)
    wrong = [w for r in results for w in check(r)]
    assert not wrong, "\n".join(wrong)
    by_name = {Path(r["argv"][1]).name: r for r in results if r["argv"][0] == "validate"}
    assert "5 MB" in by_name["big.flow.yaml"]["stderr"]
    assert "aliases expand" in by_name["billion-laughs.flow.yaml"]["stderr"]
    assert "deeper than" in by_name["deep-maps.flow.yaml"]["stderr"]


@pytest.mark.parametrize("name", ["billion-laughs.flow.yaml", "deep-brackets.flow.yaml"])
def test_a_hostile_file_named_on_the_line(name: str, tmp_path: Path) -> None:
    [result] = run_all([["validate", str(HOSTILE / name)]], tmp_path)
    assert result["stderr"].startswith(f"{HOSTILE / name}:")
