"""A bounded schemathesis run against a live service finds nothing: no 500, no status or
response the OpenAPI document does not state, nothing schema-valid refused or invalid
taken (tests/api/schemathesis.toml says what is excluded and why). `make test-api` runs a
longer one with the stateful phase."""

from __future__ import annotations

from pathlib import Path

import pytest
from st_live import schemathesis


@pytest.mark.timeout(900)  # the coverage phase makes a few hundred requests
def test_schemathesis_finds_nothing_in_a_bounded_run(tmp_path: Path) -> None:
    code, printed, log = schemathesis(
        tmp_path / "data", "--max-examples", "6", "--phases", "examples,coverage,fuzzing",
        "--seed", "20261125", timeout=600)
    assert code == 0, printed[-6000:]
    assert " passed" in printed and "failure" not in printed.split("SUMMARY")[-1]
    assert "Traceback" not in log
