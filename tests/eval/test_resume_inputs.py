"""`eval run --resume` finishes an evaluation only with the files it started with."""

import asyncio
from pathlib import Path

import pytest

from desktop.eval.inputs import EvalInputError, make_plan
from tests.eval.evalkit import flow, run, suite, version_dirs

SAY = [{"say": "done"}, {"done": True}]
OTHER = [{"say": "something else"}, {"done": True}]


@pytest.fixture
def killed(tmp_path: Path) -> dict[str, Path]:
    """A finished two-case evaluation whose new side lost case b (as if killed)."""
    files = {"suite": suite(tmp_path / "s.suite.yaml", [{"id": "a", "task": "t"},
                                                         {"id": "b", "task": "t"}]),
             "baseline": flow(tmp_path / "a.flow.yaml", SAY),
             "new": flow(tmp_path / "b.flow.yaml", SAY), "out": tmp_path / "out"}
    asyncio.run(run(files["suite"], files["baseline"], files["new"], files["out"]))
    [version] = version_dirs(files["out"], "new")
    (version / "b.json").unlink()
    return files


def _resume(files: dict[str, Path]):
    return make_plan(files["suite"], files["baseline"], files["new"], files["out"],
                     resume=True)


@pytest.mark.parametrize("which", ["baseline", "new", "suite"])
def test_resume_refuses_a_changed_file(killed: dict[str, Path], which: str) -> None:
    out = killed["out"]
    kept = out / ("suite.yaml" if which == "suite" else f"workflows/{which}.flow.yaml")
    before = kept.read_bytes()
    if which == "suite":
        suite(killed["suite"], [{"id": "a", "task": "another task"},
                                {"id": "b", "task": "t"}])
    else:
        flow(killed[which], OTHER)
    with pytest.raises(EvalInputError) as caught:
        _resume(killed)
    [problem] = caught.value.problems
    assert problem.startswith(f"{killed[which]}: differs from {kept}")
    assert "resume with the same file" in problem and "another --out" in problem
    assert kept.read_bytes() == before


def test_resume_with_the_same_files_or_the_kept_copy(killed: dict[str, Path]) -> None:
    out = killed["out"]
    assert _resume(killed).out == out.resolve()
    again = {**killed, "new": out / "workflows" / "new.flow.yaml"}
    asyncio.run(run(again["suite"], again["baseline"], again["new"], out, resume=True))
    [version] = version_dirs(out, "new")
    assert (version / "b.json").is_file()
