"""`agent-canvas eval ...` on bad input: clear errors, exit 2, nothing run or lost."""

from pathlib import Path

import pytest

from desktop.cli import main
from tests.eval.evalkit import EXAMPLE, flow, suite

SAY = [{"say": "done"}, {"done": True}]


def run_cli(*args: str) -> int:
    return main(["eval", *map(str, args)])


@pytest.fixture
def flows(tmp_path: Path) -> tuple[Path, Path]:
    return flow(tmp_path / "a.flow.yaml", SAY), flow(tmp_path / "b.flow.yaml", SAY)


def eval_run(suite_path: Path, flows: tuple[Path, Path], out: Path, *extra: str) -> int:
    return run_cli("run", suite_path, "--baseline", flows[0], "--new", flows[1], "--out", out,
                   *extra)


def test_missing_suite(tmp_path: Path, flows, capsys) -> None:
    assert eval_run(tmp_path / "none.suite.yaml", flows, tmp_path / "out") == 2
    err = capsys.readouterr().err
    assert f"{tmp_path / 'none.suite.yaml'}: file not found" in err
    assert "nothing was run" in err and not (tmp_path / "out").exists()


def test_malformed_yaml_and_unknown_check_type(tmp_path: Path, flows, capsys) -> None:
    bad = tmp_path / "bad.suite.yaml"
    bad.write_text("name: x\ncases:\n  - id: a\n    task: [unclosed\n")
    assert eval_run(bad, flows, tmp_path / "out") == 2
    assert f"{bad}:" in capsys.readouterr().err
    unknown = suite(tmp_path / "u.suite.yaml", [{"id": "a", "task": "t",
                                                 "checks": [{"type": "passesVibes"}]}])
    assert eval_run(unknown, flows, tmp_path / "out") == 2
    assert "cases[0].checks[0].type: unknown check type 'passesVibes'" in \
        capsys.readouterr().err


def test_workflow_not_found_and_invalid_baseline(tmp_path: Path, flows, capsys) -> None:
    s = suite(tmp_path / "s.suite.yaml", [{"id": "a", "task": "t"}])
    assert eval_run(s, (tmp_path / "gone.flow.yaml", flows[1]), tmp_path / "out") == 2
    assert f"{tmp_path / 'gone.flow.yaml'}: --baseline workflow not found" in \
        capsys.readouterr().err
    broken = tmp_path / "broken.flow.yaml"
    broken.write_text("name: x\nnodes:\n  - id: a\n    provider: nosuch\n")
    assert eval_run(s, (broken, flows[1]), tmp_path / "out") == 2
    err = capsys.readouterr().err
    assert f"{broken}:4: nodes[0].provider: unknown provider 'nosuch'" in err
    assert "(the --baseline workflow)" in err


def test_unknown_case_id_and_bad_numbers(tmp_path: Path, flows, capsys) -> None:
    s = suite(tmp_path / "s.suite.yaml", [{"id": "a", "task": "t"}])
    assert eval_run(s, flows, tmp_path / "out", "--case", "zzz") == 2
    assert "--case zzz: no case with this id" in capsys.readouterr().err
    assert eval_run(s, flows, tmp_path / "out", "--concurrency", "0") == 2
    assert eval_run(s, flows, tmp_path / "out", "--repeat", "0") == 2


def test_an_existing_evaluation_is_never_overwritten(tmp_path: Path, flows, capsys) -> None:
    s = suite(tmp_path / "s.suite.yaml", [{"id": "a", "task": "t"}, {"id": "b", "task": "t"}])
    out = tmp_path / "out"
    assert eval_run(s, flows, out, "-q") == 0
    [version] = (out / "new").iterdir()
    before = (version / "a.json").read_bytes()
    assert eval_run(s, flows, out) == 2
    assert "already holds an evaluation — add --resume" in capsys.readouterr().err
    assert (version / "a.json").read_bytes() == before


def test_resume_runs_only_what_is_missing(tmp_path: Path, flows, capsys) -> None:
    s = suite(tmp_path / "s.suite.yaml", [{"id": "a", "task": "t"}, {"id": "b", "task": "t"}])
    out = tmp_path / "out"
    assert eval_run(s, flows, out, "-q") == 0
    [version] = (out / "new").iterdir()
    kept = (version / "a.json").read_bytes()
    (version / "b.json").unlink()  # as if the evaluation had been killed before b finished
    assert eval_run(s, flows, out, "--resume") == 0
    err = capsys.readouterr().err
    assert "resuming: 3 case runs already finished" in err
    assert (version / "a.json").read_bytes() == kept and (version / "b.json").is_file()


def test_evaluate_bad_folders(tmp_path: Path, capsys) -> None:
    assert run_cli("evaluate", tmp_path / "nothing") == 2
    assert "no such folder" in capsys.readouterr().err
    assert run_cli("evaluate", tmp_path) == 2
    assert "holds no baseline/<runId>/" in capsys.readouterr().err


def test_evaluate_a_half_broken_result_folder(tmp_path: Path, flows, capsys) -> None:
    s = suite(tmp_path / "s.suite.yaml", [{"id": "a", "task": "t"}, {"id": "b", "task": "t"}])
    out = tmp_path / "out"
    assert eval_run(s, flows, out, "-q") == 0
    [version] = (out / "new").iterdir()
    (version / "run.json").unlink()
    (version / "b.json").write_text("{not json")
    assert run_cli("evaluate", out) == 0
    captured = capsys.readouterr()
    assert f"new/{version.name}/run.json: missing" in captured.err
    assert f"new/{version.name}/b.json: not JSON" in captured.err
    assert "missing: b" in captured.out


def test_one_command_runs_evaluates_and_reports(tmp_path: Path, capsys) -> None:
    out = tmp_path / "out"
    assert run_cli("run", EXAMPLE / "string-utils.suite.yaml", "--baseline",
                   EXAMPLE / "baseline.flow.yaml", "--new", EXAMPLE / "new.flow.yaml",
                   "--out", out, "--case", "clamp", "-q") == 0
    printed = capsys.readouterr().out
    assert "regressions: clamp" in printed and f"report: {out / 'report.html'}" in printed
    assert (out / "comparison.json").is_file() and (out / "report.html").is_file()
    assert run_cli("evaluate", out) == 0
    assert run_cli("evaluate", out, "--fail-on-regression") == 1


def test_a_killed_evaluation_is_evaluated_then_resumed(tmp_path: Path, capsys) -> None:
    import os
    import signal
    import subprocess
    import sys
    import time

    s = suite(tmp_path / "s.suite.yaml", [{"id": "quick", "task": "quick"},
                                          {"id": "slow", "task": "slow"}])
    script = {"when": [{"inboxContains": "slow", "steps": [{"sleep": 4}, *SAY]}],
              "default": SAY}
    a, b = flow(tmp_path / "a.flow.yaml", script), flow(tmp_path / "b.flow.yaml", script)
    out = tmp_path / "out"
    argv = [sys.executable, "-m", "desktop", "eval", "run", str(s), "--baseline", str(a),
            "--new", str(b), "--out", str(out), "--concurrency", "4"]
    proc = subprocess.Popen(argv, start_new_session=True, stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while len(list(out.glob("*/*/quick.json"))) < 2:
            assert time.monotonic() < deadline and proc.poll() is None
            time.sleep(0.05)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    assert not list(out.glob("*/*/slow.json"))
    assert run_cli("evaluate", out) == 0
    assert "missing: slow" in capsys.readouterr().out
    assert main(["check", "artifacts", str(out)]) == 1  # slow.json is required and missing
    assert "slow.json: missing — run.json selects this case" in capsys.readouterr().out
    assert eval_run(s, (a, b), out, "--resume", "-q") == 0
    assert len(list(out.glob("*/*/slow.json"))) == 2
    assert main(["check", "artifacts", str(out)]) == 0
