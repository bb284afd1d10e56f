"""What the portability scrub rewrites: whole path components in the evaluation's own
files and the kept runs' prompts; never a kept run's workspace or records."""

import asyncio
import subprocess
from pathlib import Path

import orjson
from hypothesis import given
from hypothesis import strategies as st

from desktop.eval.portable import MARK, Scrubber
from desktop.providers.redact import Redactor
from desktop.store.run_info import read_run_info, validate_at_completion
from tests.eval.evalkit import case_file, flow, run, suite

ROOT = "/nonexistent-eval-root/out"
NAME = st.characters(categories=("L", "N"), include_characters="._-~+@%")
AFTER = st.sampled_from(["", "/", "\\", '"', "'", "`", " ", "\t", "\n"])


def scrubber() -> Scrubber:
    return Scrubber(Path(ROOT), Redactor())


@given(after=AFTER, rest=st.text(NAME, max_size=8))
def test_a_whole_path_component_is_replaced(after: str, rest: str) -> None:
    tail = after + rest if after else ""
    assert scrubber().text(f"see {ROOT}{tail}") == f"see {MARK}{tail}"
    assert scrubber().data(f"'{ROOT}{tail}".encode()) == f"'{MARK}{tail}".encode()


@given(more=st.text(NAME, min_size=1, max_size=8), rest=st.text(max_size=8))
def test_a_longer_name_is_left_alone(more: str, rest: str) -> None:
    for text in (f"{ROOT}{more}{rest}", f"/srv{ROOT}/x", f"{more}{ROOT}/x"):
        assert scrubber().text(text) == text
        assert scrubber().data(text.encode()) == text.encode()


def test_a_shared_system_python_is_not_marked(monkeypatch) -> None:
    import sys

    monkeypatch.setattr(sys, "base_prefix", "/usr")
    monkeypatch.setattr(sys, "prefix", "/usr")
    line = "#!/usr/bin/env python3\n/usr/lib/python3/x.py"
    assert scrubber().text(line) == line


def test_kept_runs_keep_their_workspace_and_records(tmp_path: Path) -> None:
    home = str(Path.home())
    code = f'DATA = "{home}/project/data.csv"\nFS = "{home}fs/x"\n'
    (tmp_path / "cases" / "w").mkdir(parents=True)
    (tmp_path / "cases" / "w" / "conf.py").write_text(code)
    s = suite(tmp_path / "s.suite.yaml", [{"id": "w", "task": "t", "workspace": "cases/w"}])
    said = f"read {home}/project/data.csv"
    script = [{"say": said}, {"done": True}]
    a, b = flow(tmp_path / "a.flow.yaml", script), flow(tmp_path / "b.flow.yaml", script)
    out = tmp_path / "out"
    asyncio.run(run(s, a, b, out))
    runs = sorted((out / "runs").iterdir())
    assert len(runs) == 2
    for run_dir in runs:
        workspace = run_dir / "workspace"
        assert (workspace / "conf.py").read_text() == code
        status = subprocess.run(["git", "status", "--porcelain"], cwd=workspace,
                                capture_output=True, text=True, check=True)
        assert status.stdout == ""
        assert said in (run_dir / "events.jsonl").read_text()
        infos = list(run_dir.glob("agents/*/run-info.yaml"))
        assert infos
        for path in infos:
            info = read_run_info(path)
            assert validate_at_completion(info) == [], path
            assert Path(info.cwd).is_absolute() and Path(info.prompt_path).is_file()
        for prompt in run_dir.glob("agents/*/prompt.md"):
            assert str(out.resolve()) not in prompt.read_text()
    case = case_file(out, "new", "w")
    assert "read ~/project/data.csv" in orjson.dumps(case).decode()
