"""Resume writes again a case file ``eval evaluate`` would leave out: one that breaks a
case-file rule (its name, its side's version, its shape) is not a finished case."""

from pathlib import Path

import orjson
import pytest

from desktop.eval.index import read_case_status
from tests.eval.test_evaluate import _case


@pytest.mark.parametrize(("name", "body", "finished"), [
    ("clamp.json", _case("clamp", "new", "pass"), "ok"),
    ("clamp.json", _case("clamp", "new", "error"), "runner_error"),
    ("clamp.json", _case("readme", "new", "pass"), None),  # named after another case
    ("clamp.json", _case("clamp", "baseline", "pass"), None),  # the other side's
    ("clamp.json", {**_case("clamp", "new", "pass"), "events": "notalist"}, None),
])
def test_only_a_case_file_that_keeps_the_rules_counts_as_finished(
        tmp_path: Path, name: str, body: dict, finished: str | None) -> None:
    path = tmp_path / name
    path.write_bytes(orjson.dumps(body))
    assert read_case_status(path, "new") == finished
