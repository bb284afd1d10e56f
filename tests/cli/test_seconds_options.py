"""A time limit given in seconds (``run``/``resume``/``fork --silence-sec``, ``eval run
--timeout-sec``) that is not a positive, finite number of at most a year is refused while
the arguments are read (exit 2, one usage error naming the option), before anything runs:
``-1`` stalled a run at once, ``nan`` was silently no limit, ``1e300`` overflowed."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from desktop.cli.entry import build_parser, main
from desktop.disk.paths import ENV_DATA_DIR

COMMANDS = {
    "run": ["run", "FILE.flow.yaml"],
    "resume": ["resume", "RUN"],
    "fork": ["fork", "RUN"],
    "eval run": ["eval", "run", "S.suite.yaml", "--baseline", "a", "--new", "b",
                 "--out", "OUT"],
}
OPTION = {"eval run": "--timeout-sec"}
YEAR = 365 * 24 * 3600.0

BAD = st.one_of(
    st.floats(max_value=0, allow_nan=False),
    st.floats(min_value=YEAR, exclude_min=True),
    st.sampled_from([math.nan, math.inf, -math.inf]),
).map(repr) | st.sampled_from(["nan", "NaN", "inf", "-inf", "1e400", "-0", "0", "", "abc",
                               "  -3 "])


def _words(command: str, value: str) -> list[str]:
    return [*COMMANDS[command], f"{OPTION.get(command, '--silence-sec')}={value}"]


@pytest.mark.parametrize("command", sorted(COMMANDS))
@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(value=BAD)
def test_a_bad_number_of_seconds_is_a_usage_error(
        command: str, value: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv(ENV_DATA_DIR, str(tmp_path))  # should it get so far: not the user's
    with pytest.raises(SystemExit) as exit_:
        main(_words(command, value))
    assert exit_.value.code == 2
    out, err = capsys.readouterr()
    option = OPTION.get(command, "--silence-sec")
    assert out == "" and f"error: argument {option}: " in err
    assert "give a positive number of seconds" in err and "Traceback" not in err


@pytest.mark.parametrize("command", sorted(COMMANDS))
@given(value=st.floats(min_value=0, max_value=YEAR, exclude_min=True))
def test_a_positive_number_of_seconds_is_taken(command: str, value: float) -> None:
    words = _words(command, repr(value))
    args = build_parser(words[0]).parse_args(words)
    assert (args.timeout_sec if command == "eval run" else args.silence_sec) == value
