"""`agent-canvas verify runner`: the spec's output, exactly, and its exit codes."""

import io
import json
import re
import sys
from pathlib import Path

import pytest

from desktop.cli import main
from desktop.store.runner import canonical, runner_hash
from tests.store.runner_records import example


def write(folder: Path, record, name: str = "runner.json", raw: bytes | None = None) -> Path:
    path = folder / name
    path.write_bytes(raw if raw is not None else canonical(record))
    return path


def run(capsys, *args: str) -> tuple[int, list[str], str]:
    code = main(["verify", "runner", *args])
    out, err = capsys.readouterr()
    return code, out.splitlines(), err


def test_a_valid_record_prints_ok_and_its_hash(tmp_path: Path, capsys) -> None:
    path = write(tmp_path, example())
    code, lines, _ = run(capsys, str(path))
    assert code == 0
    assert lines == ['{"ok":true,"runner_hash":"' + runner_hash(example()) + '"}']
    assert re.fullmatch(r'\{"ok":true,"runner_hash":"sha256:[0-9a-f]{64}"\}', lines[0])


def test_violations_exit_3_with_rule_message_and_path(tmp_path: Path, capsys) -> None:
    record = example()
    record["limits"]["timeout_ms"] = 5
    record["exit"]["signal"] = "kill"
    code, [line], _ = run(capsys, str(write(tmp_path, record)))
    assert code == 3
    result = json.loads(line)
    assert result["ok"] is False and "runner_hash" not in result
    assert [(v["rule_id"], v["path"]) for v in result["violations"]] == [
        ("RN5", "$.limits.timeout_ms"), ("RN10", "$.exit.signal")]
    assert [v.get("reference_path") for v in result["violations"]] == [
        "limits.timeout_ms", "exit.signal"]  # the Motherlabs kernel's paths for the same
    assert all(set(v) == {"rule_id", "message", "path", "reference_path"}
               for v in result["violations"])
    assert line.encode() == canonical(result)


def test_stdin_and_several_files_in_order(tmp_path: Path, capsys, monkeypatch) -> None:
    good = write(tmp_path, example())
    bad = write(tmp_path, example(), "pretty.json", json.dumps(example(), indent=1).encode())
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(canonical(example()))))
    code, lines, _ = run(capsys, str(good), "-", str(bad))
    assert code == 3
    first, second, third = (json.loads(line) for line in lines)
    assert first["ok"] is True
    assert [v["rule_id"] for v in second["violations"]] == ["RN2"]  # same runner_id as the first
    assert [v["rule_id"] for v in third["violations"]] == ["RN2", "RN12"]


@pytest.mark.parametrize(("raw", "code"), [
    (b"", 2), (b"[]", 3), (b"\xc3\x28", 2), (b'{"x": NaN}', 2), (b'{"x": Infinity}', 2),
    (b'{"a":1,"a":1}', 2), (b" " * (10 * 1024 * 1024), 2), (b'{"x": 9007199254740993}', 3),
])
def test_bad_input_has_a_clear_answer_and_exit_code(tmp_path: Path, capsys, raw: bytes,
                                                    code: int) -> None:
    path = write(tmp_path, None, raw=raw)
    got, [line], err = run(capsys, str(path))
    assert got == code
    result = json.loads(line)
    assert result["ok"] is False and result["violations"]
    if code == 2:
        assert str(path) in err and "Traceback" not in err


def test_big_integer_is_an_rn12_violation(tmp_path: Path, capsys) -> None:
    record = example()
    raw = canonical(record).replace(b'"max_output_files":500',
                                    b'"max_output_files":500,"max_memory_bytes":9007199254740993')
    code, [line], _ = run(capsys, str(write(tmp_path, None, raw=raw)))
    assert code == 3
    assert "RN12" in {v["rule_id"] for v in json.loads(line)["violations"]}


def test_unreadable_file_exits_1(tmp_path: Path, capsys) -> None:
    good = str(write(tmp_path, example()))
    code, [missing, ok], err = run(capsys, str(tmp_path / "missing.json"), good)
    assert code == 1 and "cannot read" in err
    assert json.loads(missing)["violations"][0]["rule_id"] == "IO"
    assert json.loads(ok)["ok"] is True
