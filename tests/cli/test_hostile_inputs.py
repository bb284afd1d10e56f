"""Every command that reads a file, fed every hostile file: a clear refusal, quickly.

The corpus is tests/data/hostile/ plus what is made here at test time (too big, or not
storable in git). Each command must end with exit code 1 or 2, a message on stderr,
no traceback, within a CPU-time bound and in under 200 MB. The bounds are behaviour
bounds (they catch "never finishes" and "eats all memory"), not speed targets.
"""

from __future__ import annotations

import json
import os
import shutil
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


def check(result: dict, exits: tuple[int, ...] = (1, 2)) -> list[str]:
    """What is wrong with how one command ended (empty when it ended well)."""
    wrong = []
    shown = " ".join(result["argv"])
    if result["killed"]:
        wrong.append(f"{shown}: still running at the deadline")
    if result["exit"] not in exits:
        wrong.append(f"{shown}: exit {result['exit']} (want {' or '.join(map(str, exits))})")
    if "Traceback" in result["stderr"]:
        wrong.append(f"{shown}: traceback\n{result['stderr'][-3000:]}")
    if result["exit"] != 0 and not (result["stderr"] + result["stdout"]).strip():
        wrong.append(f"{shown}: no message")
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


def test_commands_reading_agent_streams_refuse_every_hostile_file(tmp_path: Path) -> None:
    data = tmp_path / "data"
    # Streams have no size limit (agents print hundreds of MB), and a FIFO is how
    # `normalize <(agent ...)` reads: waiting for its writer is right there.
    skip = ("big.flow.yaml", "fifo.flow.yaml")
    cases = [argv for path in hostile_files(tmp_path).values() if path.name not in skip
             for argv in (["normalize", "--provider", "claude", str(path)],
                          ["import", "--provider", "codex", str(path), "--data-dir", str(data)])]
    wrong = [w for r in run_all(cases, tmp_path) for w in check(r)]
    assert not wrong, "\n".join(wrong)
    assert not (data / "runs").is_dir() or not any((data / "runs").iterdir())


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A completed run of the single-agent example, to be spoiled in copies."""
    data = tmp_path_factory.mktemp("template")
    example = HERE.parents[1] / "resources" / "examples" / "single-agent.flow.yaml"
    subprocess.run([sys.executable, "-m", "desktop", "run", str(example), "--data-dir",
                    str(data)], check=True, capture_output=True, timeout=120,
                   cwd=HERE.parents[1], env=dict(os.environ, PYTHONPATH=str(HERE.parents[1])))
    return next((data / "runs").iterdir())


def spoiled_runs(template: Path, tmp: Path, name: str) -> dict[str, Path]:
    """Copies of the run whose file ``name`` is each hostile file, a link out, or a FIFO."""
    sources = {n: HOSTILE / n for n in [*OTHER_FILES, "billion-laughs.flow.yaml"]}
    out: dict[str, Path] = {}
    for label in [*sources, "symlink", "fifo"]:
        data = tmp / f"{name}-{label}"
        run_dir = data / "runs" / template.name
        shutil.copytree(template, run_dir)
        target = run_dir / name
        target.unlink()
        if label == "symlink":
            outside = tmp / f"outside-{name}-{label}"
            shutil.copyfile(template / name, outside)
            target.symlink_to(outside)
        elif label == "fifo":
            os.mkfifo(target)
        else:
            shutil.copyfile(sources[label], target)
        out[label] = data
    return out


@pytest.mark.parametrize("name", ["events.jsonl", "state.json"])
def test_commands_reading_run_folders_refuse_spoiled_files(
        finished_run: Path, tmp_path: Path, name: str) -> None:
    runs = spoiled_runs(finished_run, tmp_path, name)
    cases = [[*command, finished_run.name, "--data-dir", str(data)]
             for data in runs.values()
             for command in (["runs", "show"], ["replay"], ["resume"])]
    results = run_all(cases, tmp_path)
    wrong = []
    for result in results:
        label = Path(result["argv"][-1]).name.split("-", 1)[1]
        # The log is the truth: over a sound log, a broken state.json is only a note
        # (`runs show` answers from the log; `resume` finds the run completed).
        exits = (0, 1, 2) if name == "state.json" and label not in ("symlink", "fifo") \
            else (1, 2)
        wrong += check(result, exits)
    assert not wrong, "\n".join(wrong)
