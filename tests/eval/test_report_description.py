"""The report shows the suite's description under its name (escaped), from the suite
copy the evaluation keeps; without a readable copy it is written without it."""

from pathlib import Path

import orjson
import pytest

from desktop.eval.report import write_report
from tests.eval.test_evaluate import _case
from tests.eval.test_evaluate_rules import _folder


def _results(root: Path, suite_text: str | None) -> Path:
    for side in ("baseline", "new"):
        _folder(root, side, {f"{c}.json": _case(c, side, "pass") for c in ("clamp", "readme")})
    (root / "eval.json").write_bytes(orjson.dumps({
        "schema_version": "eval-index.v1", "suite": "Utilities", "suite_file": "suite.yaml"}))
    if suite_text is not None:
        (root / "suite.yaml").write_text(suite_text, encoding="utf-8")
    return root


def test_the_description_is_shown_escaped(tmp_path: Path) -> None:
    root = _results(tmp_path, "name: Utilities\ndescription: |\n  Two small tasks <b>offline</b>"
                              "\n  & with tests.\ncases:\n  - {id: clamp, task: t, workspace: "
                              "cases/clamp}\n  - {id: readme, task: t}\n")
    html = write_report(root).read_text(encoding="utf-8")
    assert "<h1>Utilities</h1><p>Two small tasks &lt;b&gt;offline&lt;/b&gt;\n&amp; with " \
           "tests.</p>" in html


@pytest.mark.parametrize("suite_text", [None, "name: [unclosed\n", "name: x\ncases: []\n"])
def test_without_a_readable_suite_copy_the_report_has_no_description(
        tmp_path: Path, suite_text: str | None) -> None:
    html = write_report(_results(tmp_path, suite_text)).read_text(encoding="utf-8")
    assert "<h1>Utilities</h1><p class=\"sub\">" in html
