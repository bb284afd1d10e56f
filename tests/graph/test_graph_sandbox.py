"""The node `sandbox` config is validated like every other field, at file:line."""

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from desktop.contract.sandbox import Sandbox, check_relative_root
from desktop.graph import validate as validate_mod
from desktop.graph.errors import WorkflowLoadError
from desktop.graph.io import parse_workflow
from desktop.graph.validate import validate

HEADER = "version: 1\nname: t\nnodes:\n  - id: a\n    entry: true\n    provider: {provider}\n"


def load_problems(sandbox_yaml: str, provider: str = "scripted") -> list:
    text = HEADER.format(provider=provider) + "nodeConfigs:\n  a:\n    sandbox:\n" + sandbox_yaml
    try:
        doc, smap = parse_workflow(text, "t.flow.yaml")
    except WorkflowLoadError as exc:
        return exc.problems
    return validate(doc, "t.flow.yaml", smap)


@pytest.fixture(autouse=True)
def bwrap_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(validate_mod, "_sandbox_problem", lambda: None)


def test_bad_roots_backend_and_memory_are_refused_at_their_lines() -> None:
    found = load_problems("""      backend: vm
      writeRoots: [build, ../x, /etc]
      limits:
        maxMemoryMb: 0
""")
    by_loc = {p.location: p for p in found}
    assert set(by_loc) == {"nodeConfigs.a.sandbox.backend", "nodeConfigs.a.sandbox.writeRoots[1]",
                           "nodeConfigs.a.sandbox.writeRoots[2]",
                           "nodeConfigs.a.sandbox.limits.maxMemoryMb"}
    assert by_loc["nodeConfigs.a.sandbox.backend"].line == 10
    assert "none, process" in by_loc["nodeConfigs.a.sandbox.backend"].hint
    assert by_loc["nodeConfigs.a.sandbox.writeRoots[1]"].line == 11
    assert "leaves the workspace" in by_loc["nodeConfigs.a.sandbox.writeRoots[1]"].message
    assert "is absolute" in by_loc["nodeConfigs.a.sandbox.writeRoots[2]"].message
    assert by_loc["nodeConfigs.a.sandbox.limits.maxMemoryMb"].line == 13
    assert str(by_loc["nodeConfigs.a.sandbox.writeRoots[1]"]).startswith(
        "t.flow.yaml:11: nodeConfigs.a.sandbox.writeRoots[1]: '../x' leaves")


def test_unknown_sandbox_field_is_named() -> None:
    found = load_problems("      netwrok: false\n")
    assert [p.location for p in found] == ["nodeConfigs.a.sandbox.netwrok"]
    assert "network" in found[0].hint


def test_a_good_sandbox_has_no_problems() -> None:
    assert load_problems("""      backend: process
      network: false
      writeRoots: [build, ./out/]
      readOnlyRoots: [.git]
      limits: {timeoutSec: 60, maxMemoryMb: 512, maxCpuSec: 30, maxOutputFiles: 100,
               maxOutputMb: 10}
""") == []


def test_network_false_for_a_cli_that_needs_its_model_is_an_error() -> None:
    found = load_problems("      backend: process\n      network: false\n", provider="claude")
    [problem] = [p for p in found if p.location == "nodeConfigs.a.sandbox.network"]
    assert problem.is_error and "needs the network to reach its model" in problem.message


def test_in_engine_provider_has_nothing_to_sandbox() -> None:
    found = load_problems("      backend: process\n", provider="xai")
    assert any(p.location == "nodeConfigs.a.sandbox.backend" and p.is_error for p in found)


def test_missing_bubblewrap_is_a_warning_naming_the_fix(monkeypatch) -> None:
    monkeypatch.setattr(validate_mod, "_sandbox_problem",
                        lambda: "bubblewrap (bwrap) is not installed: install bubblewrap")
    [problem] = load_problems("      backend: process\n")
    assert problem.severity == "warning" and "'a' cannot start here" in problem.message


def test_record_range_and_node_memory_advice() -> None:
    found = load_problems("      limits: {timeoutSec: 3600, maxOutputFiles: 20000,"
                          " maxMemoryMb: 256}\n", provider="codex")
    warned = {p.location for p in found if p.severity == "warning"}
    assert warned == {"nodeConfigs.a.sandbox.limits.timeoutSec",
                      "nodeConfigs.a.sandbox.limits.maxOutputFiles",
                      "nodeConfigs.a.sandbox.limits.maxMemoryMb"}


segment = st.text(st.characters(codec="utf-8", exclude_characters="/\\\0"), min_size=1,
                  max_size=8)


@given(st.lists(segment, min_size=1, max_size=4))
@example(["0", "\r", "\r"])  # stripped once, "0/\r" was returned; it strips again to "0"
@example(["a", " ", " "])
@example([".", "A:"])  # accepted once, as its normal form "A:" is refused
def test_relative_roots_are_normalized_or_refused(parts: list[str]) -> None:
    text = "/".join(parts)
    try:
        root = check_relative_root(text)
    except ValueError as exc:
        assert ".." in parts or text.strip() == "" or text.strip().startswith("~") or \
            "absolute" in str(exc)
        return
    assert not root.startswith("/") and ".." not in root.split("/")
    assert check_relative_root(root) == root  # normal form is stable


def test_sandbox_round_trips_through_its_wire_form() -> None:
    box = Sandbox.model_validate({"backend": "process", "writeRoots": ["b", "a/"],
                                  "limits": {"maxMemoryMb": 300}})
    again = Sandbox.model_validate(box.to_json_dict())
    assert again == box and again.write_roots == ["b", "a"]
