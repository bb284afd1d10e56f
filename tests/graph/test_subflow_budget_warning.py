"""A subflow file's own ``budget:`` caps it only when it runs alone: validate (and run)
warn where it is used as a subflow, naming the file, the limits and where a cap works."""

from pathlib import Path

from desktop.graph.validate import check_file


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


INNER = """version: 1
name: Inner
task: inner task alone
budget: {maxTokens: 200}
nodes:
  - {id: checker, entry: true}
edges: []
"""


def test_a_subflow_files_own_budget_is_reported_as_not_applied(tmp_path: Path) -> None:
    _write(tmp_path / "sub" / "inner.flow.yaml", INNER)
    outer = _write(tmp_path / "outer.flow.yaml", """version: 1
name: Outer
task: t
nodes:
  - {id: writer, entry: true}
  - {id: review, kind: subflow, flow: sub/inner.flow.yaml}
edges:
  - {from: writer, to: review}
""")
    doc, problems = check_file(str(outer))
    assert doc is not None and not [p for p in problems if p.is_error]
    [warning] = [p for p in problems if "budget" in p.message]
    assert warning.severity == "warning"
    assert warning.file == str(outer.resolve()) and warning.line == 6
    assert warning.location == "nodes[1].flow"
    assert "inner.flow.yaml (maxTokens: 200)" in warning.message
    assert "'review'" in warning.message
    assert "budget review/<node>" in warning.hint  # where a cap does work
    # the same file run alone has nothing to warn about: its budget applies
    assert not [p for p in check_file(str(tmp_path / "sub" / "inner.flow.yaml"))[1]
                if "budget" in p.message]


def test_a_subflow_without_a_budget_gets_no_warning(tmp_path: Path) -> None:
    _write(tmp_path / "inner.flow.yaml", INNER.replace("budget: {maxTokens: 200}\n", ""))
    outer = _write(tmp_path / "outer.flow.yaml", """version: 1
name: Outer
task: t
budget: {maxTokens: 500}
nodes:
  - {id: review, entry: true, kind: subflow, flow: inner.flow.yaml}
edges: []
""")
    _doc, problems = check_file(str(outer))
    assert not [p for p in problems if "budget" in p.message]
