"""run-info.yaml: reading, writing and the spec's validation rules."""

import re
import tempfile
from datetime import UTC, datetime
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from desktop.contract.run_info import REQUIRED_FIELDS, RunInfo, new_agent_run_id
from desktop.store.run_info import (
    RunInfoError,
    read_run_info,
    validate_at_completion,
    validate_at_creation,
    write_run_info,
)


def make_info(folder: Path, **changes) -> RunInfo:
    """A valid just-created run-info whose files exist under ``folder``."""
    for name in ("prompt.md", "agent-stdout.txt", "agent-stderr.txt"):
        (folder / name).write_text("")
    fields = dict(
        run_id="20260204-183042569-12345",
        project_id="swarm",
        task_id="20260131-205800-planning",
        parent_run_id="",
        previous_run_id="",
        agent="claude",
        pid=12345,
        pgid=12345,
        start_time="2026-02-04T18:30:42.569Z",
        end_time="",
        exit_code=-1,
        cwd=str(folder),
        prompt_path=str(folder / "prompt.md"),
        output_path=str(folder / "output.md"),
        stdout_path=str(folder / "agent-stdout.txt"),
        stderr_path=str(folder / "agent-stderr.txt"),
    )
    fields.update(changes)
    return RunInfo(**fields)


def fields_of(problems: list[str]) -> set[str]:
    return {p.split(":", 1)[0] for p in problems}


def test_valid_creation_and_completion(tmp_path: Path) -> None:
    info = make_info(tmp_path)
    assert validate_at_creation(info) == []
    done = info.model_copy(update={"end_time": "2026-02-04T18:35:12.789Z", "exit_code": 0})
    assert validate_at_completion(done) == []


def test_write_read_round_trip_is_utf8_without_bom(tmp_path: Path) -> None:
    info = make_info(tmp_path, backend_model="m", commandline="claude -p < prompt.md")
    target = tmp_path / "run-info.yaml"
    write_run_info(target, info)
    raw = target.read_bytes()
    assert not raw.startswith(b"\xef\xbb\xbf")
    data = yaml.safe_load(raw)
    assert list(data)[: len(REQUIRED_FIELDS)] == list(REQUIRED_FIELDS)
    assert "backend_provider" not in data  # unset optionals are omitted
    assert read_run_info(target) == info


def test_unknown_fields_are_ignored(tmp_path: Path) -> None:
    target = tmp_path / "run-info.yaml"
    data = make_info(tmp_path).to_yaml_dict() | {"future_field": {"x": 1}}
    target.write_text(yaml.safe_dump(data))
    assert read_run_info(target).run_id == "20260204-183042569-12345"


def test_unquoted_timestamps_still_load(tmp_path: Path) -> None:
    target = tmp_path / "run-info.yaml"
    write_run_info(target, make_info(tmp_path))
    text = target.read_text().replace("'2026-02-04T18:30:42.569Z'", "2026-02-04T18:30:42.569Z")
    target.write_text(text)
    info = read_run_info(target)
    assert validate_at_creation(info) == []


def test_unquoted_nanosecond_timestamps_are_kept_exactly(tmp_path: Path) -> None:
    target = tmp_path / "run-info.yaml"
    write_run_info(target, make_info(tmp_path, start_time="2026-02-04T18:30:42.123456789Z",
                                     end_time="2026-02-04T18:35:12.000000001Z", exit_code=0))
    text = target.read_text()  # as another tool may write them: unquoted
    for stamp in ("2026-02-04T18:30:42.123456789Z", "2026-02-04T18:35:12.000000001Z"):
        text = text.replace(f"'{stamp}'", stamp)
    assert "start_time: 2026-02-04T18:30:42.123456789Z" in text
    target.write_text(text)
    info = read_run_info(target)
    assert info.start_time == "2026-02-04T18:30:42.123456789Z"
    assert info.end_time == "2026-02-04T18:35:12.000000001Z"
    assert validate_at_completion(info) == []


_utc_times = st.builds(
    lambda moment, fraction, digits: moment.strftime("%Y-%m-%dT%H:%M:%S")
    + (f".{fraction:09d}"[: digits + 1] if digits else "") + "Z",
    st.datetimes(min_value=datetime(2000, 1, 1), max_value=datetime(2099, 12, 31)),
    st.integers(0, 999_999_999), st.integers(0, 9))


@settings(max_examples=60, deadline=None)
@given(start=_utc_times, end=st.one_of(st.just(""), _utc_times), quoted=st.booleans())
def test_write_read_write_keeps_every_byte(start: str, end: str, quoted: bool) -> None:
    with tempfile.TemporaryDirectory() as folder:
        base = Path(folder)
        info = make_info(base, start_time=start, end_time=end, exit_code=-1 if not end else 0)
        first, second = base / "first.yaml", base / "second.yaml"
        write_run_info(first, info)
        if not quoted:  # another tool's writer: timestamps as plain scalars
            first.write_text(first.read_text().replace(f"'{start}'", start))
        read = read_run_info(first)
        assert (read.start_time, read.end_time) == (start, end)
        write_run_info(second, read)
        if quoted:
            assert second.read_bytes() == first.read_bytes()
        write_run_info(first, read_run_info(second))
        assert first.read_bytes() == second.read_bytes()


@pytest.mark.parametrize("field", REQUIRED_FIELDS)
def test_missing_required_field_is_named(tmp_path: Path, field: str) -> None:
    target = tmp_path / "run-info.yaml"
    data = make_info(tmp_path).to_yaml_dict()
    del data[field]
    target.write_text(yaml.safe_dump(data))
    with pytest.raises(RunInfoError) as err:
        read_run_info(target)
    assert err.value.field == field
    assert str(target) in str(err.value) and field in str(err.value)


@pytest.mark.parametrize("version", [2, 0, "1", True])
def test_unsupported_version_rejected(tmp_path: Path, version) -> None:
    target = tmp_path / "run-info.yaml"
    target.write_text(yaml.safe_dump(make_info(tmp_path).to_yaml_dict() | {"version": version}))
    with pytest.raises(RunInfoError, match="version") as err:
        read_run_info(target)
    assert str(target) in str(err.value)


def test_version_checked_before_other_fields(tmp_path: Path) -> None:
    target = tmp_path / "run-info.yaml"
    target.write_text("version: 2\nsomething_new: true\n")
    with pytest.raises(RunInfoError, match="unsupported version 2"):
        read_run_info(target)


def test_bom_refused(tmp_path: Path) -> None:
    target = tmp_path / "run-info.yaml"
    write_run_info(target, make_info(tmp_path))
    target.write_bytes(b"\xef\xbb\xbf" + target.read_bytes())
    with pytest.raises(RunInfoError, match="BOM"):
        read_run_info(target)


@pytest.mark.parametrize(
    "content",
    [b"version: [1\n", b"- a list\n", b"\xff\xfe garbage", b"!!python/object:os.system {}\n"],
)
def test_bad_files_give_clear_errors(tmp_path: Path, content: bytes) -> None:
    target = tmp_path / "run-info.yaml"
    target.write_bytes(content)
    with pytest.raises(RunInfoError) as err:
        read_run_info(target)
    assert str(err.value).startswith(str(target))


def test_wrong_type_names_field(tmp_path: Path) -> None:
    target = tmp_path / "run-info.yaml"
    target.write_text(yaml.safe_dump(make_info(tmp_path).to_yaml_dict() | {"pid": "many"}))
    with pytest.raises(RunInfoError) as err:
        read_run_info(target)
    assert err.value.field == "pid"


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"run_id": "2026-02-04-1"}, "run_id"),
        ({"run_id": "20261304-183042569-12345"}, "run_id"),
        ({"run_id": "20260204-183042569-0"}, "run_id"),
        ({"parent_run_id": "parent"}, "parent_run_id"),
        ({"project_id": ""}, "project_id"),
        ({"task_id": " "}, "task_id"),
        ({"agent": ""}, "agent"),
        ({"agent": "eliza"}, "agent"),
        ({"pid": 0}, "pid"),
        ({"pgid": -5}, "pgid"),
        ({"start_time": "yesterday"}, "start_time"),
        ({"start_time": "2026-02-04T18:30:42"}, "start_time"),
        ({"start_time": "2026-02-04T18:30:42+02:00"}, "start_time"),
        ({"end_time": "2026-02-04T18:35:12Z"}, "end_time"),
        ({"exit_code": 0}, "exit_code"),
        ({"cwd": "relative/dir"}, "cwd"),
        ({"output_path": "output.md"}, "output_path"),
        ({"prompt_path": "/nonexistent/prompt.md"}, "prompt_path"),
    ],
)
def test_creation_rules(tmp_path: Path, changes: dict, field: str) -> None:
    problems = validate_at_creation(make_info(tmp_path, **changes))
    assert field in fields_of(problems), problems


def test_output_path_may_not_exist_yet(tmp_path: Path) -> None:
    info = make_info(tmp_path)
    assert not Path(info.output_path).exists()
    assert validate_at_creation(info) == []


def test_existence_check_can_be_skipped(tmp_path: Path) -> None:
    info = make_info(tmp_path, prompt_path="/nonexistent/prompt.md")
    assert validate_at_creation(info, check_paths=False) == []


@pytest.mark.parametrize(
    ("end_time", "ok"),
    [
        ("2026-02-04T18:35:12.789Z", True),
        ("2026-02-04T18:30:42.569Z", True),
        ("2026-02-04T18:30:42.568Z", False),
        ("", False),
        ("soon", False),
    ],
)
def test_completion_end_time(tmp_path: Path, end_time: str, ok: bool) -> None:
    info = make_info(tmp_path, end_time=end_time, exit_code=3)
    problems = validate_at_completion(info)
    assert (problems == []) is ok, problems
    if not ok:
        assert fields_of(problems) == {"end_time"}


@given(st.datetimes(min_value=datetime(2000, 1, 1), max_value=datetime(2099, 12, 31)),
       st.integers(min_value=1, max_value=4_194_304))
def test_new_agent_run_id_has_spec_format(moment: datetime, pid: int) -> None:
    run_id = new_agent_run_id(pid, moment.replace(tzinfo=UTC))
    assert re.fullmatch(r"\d{8}-\d{10}-\d+", run_id)
    assert run_id.startswith(moment.strftime("%Y%m%d-%H%M%S"))
    assert run_id.endswith(f"-{pid}")
    assert validate_at_creation(
        RunInfo.model_validate(
            make_info_dict() | {"run_id": run_id, "pid": pid, "pgid": pid}
        ),
        check_paths=False,
    ) == []


def make_info_dict() -> dict:
    return dict(
        run_id="x", project_id="p", task_id="t", agent="scripted", pid=1, pgid=1,
        start_time="2026-02-04T18:30:42.569Z", cwd="/", prompt_path="/p", output_path="/o",
        stdout_path="/s", stderr_path="/e",
    )


def test_default_run_id_uses_own_pid() -> None:
    import os

    assert new_agent_run_id().endswith(f"-{os.getpid()}")
