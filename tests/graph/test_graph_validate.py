"""Every kind of workflow problem is found, at the right location, all at once."""

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from desktop.graph import validate as validate_mod
from desktop.graph.document import WorkflowDocument, WorkflowEdge, WorkflowNode
from desktop.graph.errors import WorkflowLoadError
from desktop.graph.io import parse_workflow
from desktop.graph.validate import validate

HEADER = "version: 1\nname: t\n"


def problems_of(body: str) -> list:
    doc, smap = parse_workflow(HEADER + body, "t.flow.yaml")
    return validate(doc, "t.flow.yaml", smap)


def at(problems: list, location: str, severity: str = "error") -> list:
    return [p for p in problems if p.location == location and p.severity == severity]


def node(i: str, **kw) -> WorkflowNode:
    return WorkflowNode(id=i, label=i.title(), **kw)


def edge(a: str, b: str, **kw) -> WorkflowEdge:
    return WorkflowEdge(**{"from": a}, to=b, **kw)


@pytest.fixture
def registry(monkeypatch: pytest.MonkeyPatch) -> None:
    """A registry where only scripted/command/custom run and only scripted can gate."""
    monkeypatch.setattr(validate_mod, "_registry",
                        lambda: ({"scripted", "command", "custom"}, lambda n: n == "scripted"))


def test_valid_chain_has_no_problems() -> None:
    doc = WorkflowDocument(nodes=[node("a", role_template="planner"), node("b")],
                           edges=[edge("a", "b"), edge("b", "a", type="report")])
    assert validate(doc) == []


def test_problem_kinds_are_all_reported_with_locations_and_lines() -> None:
    found = problems_of("""nodes:
  - id: a
    entry: true
  - id: z
  - id: b
    roleTemplate: wizard
  - id: c
    entry: true
nodeConfigs:
  ghost:
    instructions: hi
edges:
  - from: a
    to: missing
  - from: nobody
    to: b
  - from: b
    to: b
""")
    assert at(found, "nodes[2].roleTemplate")[0].line == 8
    assert "use one of:" in at(found, "nodes[2].roleTemplate")[0].hint
    assert at(found, "nodes[3].entry")[0].line == 10
    assert at(found, "nodeConfigs.ghost")[0].line == 12
    assert "no node has id 'missing'" in at(found, "edges[0].to")[0].message
    assert at(found, "edges[0].to")[0].line == 16
    assert at(found, "edges[1].from")
    assert "to itself" in at(found, "edges[2]")[0].message
    text = str(at(found, "edges[0].to")[0])
    assert text.startswith("t.flow.yaml:16: edges[0].to: no node has id 'missing' — use one of:")


def test_no_nodes_and_no_entry_node() -> None:
    assert at(validate(WorkflowDocument()), "nodes")
    cycle = WorkflowDocument(nodes=[node("a"), node("b")], edges=[edge("a", "b"), edge("b", "a")])
    assert "no entry node" in at(validate(cycle), "nodes")[0].message


def test_unreachable_node_is_a_warning() -> None:
    doc = WorkflowDocument(nodes=[node("a", entry=True), node("b"), node("island")],
                           edges=[edge("a", "b")])
    found = validate(doc)
    assert [p.location for p in found] == ["nodes[2]"]
    assert found[0].severity == "warning" and "island" in found[0].message


def test_report_edge_that_leads_nowhere() -> None:
    doc = WorkflowDocument(
        nodes=[node("a", entry=True), node("b"), node("c")],
        edges=[edge("a", "b"), edge("a", "c"), edge("b", "c", type="report"),
               edge("b", "a", type="report")])
    found = validate(doc)
    assert at(found, "edges[2]", "warning"), found  # c never hands work to b
    assert not at(found, "edges[3]", "warning")  # a hands work to b: fine


def test_duplicate_edge_ids_and_parallel_edges() -> None:
    doc = WorkflowDocument(nodes=[node("a"), node("b")],
                           edges=[edge("a", "b", id="e"), edge("a", "b", id="e")])
    found = validate(doc)
    assert at(found, "edges[1].id")
    assert at(found, "edges[1]", "warning")


def test_invalid_limits_built_in_code_are_reported() -> None:
    doc = WorkflowDocument(nodes=[node("a")])
    cfg = doc.config("a")
    cfg.limits.timeout_sec = -5  # no assignment validation on contract models
    cfg.stall_threshold = 1
    doc.node_configs["a"] = cfg
    found = validate(doc)
    assert at(found, "nodeConfigs.a.limits.timeoutSec")
    assert at(found, "nodeConfigs.a.stallThreshold")


def test_limit_advice_warnings() -> None:
    found = problems_of("""nodes: [{id: a}]
nodeConfigs:
  a: {maxRestarts: 2, limits: {timeoutSec: 0.5, maxOutputBytes: 10}}
""")
    assert at(found, "nodeConfigs.a.maxRestarts", "warning")
    assert at(found, "nodeConfigs.a.limits.timeoutSec", "warning")
    assert at(found, "nodeConfigs.a.limits.maxOutputBytes", "warning")


def test_command_provider_needs_a_command() -> None:
    found = problems_of("nodes: [{id: a, provider: command}]\n")
    assert "no command" in at(found, "nodes[0].provider")[0].message
    assert not problems_of(
        "nodes: [{id: a, provider: custom}]\nnodeConfigs: {a: {command: ./run.sh}}\n")


def test_unknown_provider_in_a_document_built_in_code() -> None:
    doc = WorkflowDocument(nodes=[WorkflowNode.model_construct(
        id="a", label="A", role_template="implementer", provider="gpt", capabilities=None,
        permissions=None, position=None, entry=False)])
    assert "unknown provider 'gpt'" in at(validate(doc), "nodes[0].provider")[0].message


def test_unavailable_provider_is_a_warning(registry: None) -> None:
    found = problems_of("nodes: [{id: a, provider: claude}]\n")
    assert at(found, "nodes[0].provider", "warning")
    assert not [p for p in found if p.is_error]


def test_gated_node_on_provider_that_cannot_gate(registry: None) -> None:
    found = problems_of("""nodes:
  - id: a
    provider: command
    permissions: {cliPermissionsMode: gated}
  - id: b
    permissions: {cliPermissionsMode: gated}
nodeConfigs: {a: {command: x}}
edges: [{from: a, to: b}]
""")
    gate = at(found, "nodes[0].permissions.cliPermissionsMode")
    assert gate and gate[0].line == 6
    assert not at(found, "nodes[1].permissions.cliPermissionsMode")


def test_missing_provider_modules_do_not_break_validation(monkeypatch) -> None:
    import builtins

    real_import = builtins.__import__

    def fake(name, *args, **kwargs):
        if name.startswith("desktop.providers"):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", fake)
    assert validate(WorkflowDocument(nodes=[node("a", provider="claude")])) == []


def test_script_shape_and_handoff_targets_are_checked() -> None:
    found = problems_of("""nodes: [{id: a}, {id: b}]
edges: [{from: a, to: b}]
nodeConfigs:
  a:
    script:
      turns:
        - - say: hi
          - handoff: {to: c, message: go}
        - - dance: true
""")
    assert at(found, "nodeConfigs.a.script.turns[0][1].handoff.to", "warning")[0].line == 10
    assert at(found, "nodeConfigs.a.script.turns[1][0]")


ALLOW_BODY = """nodes:
  - id: a
nodeConfigs:
  a:
    envAllowlist: {patterns}
"""


def test_an_allowlist_passing_secrets_warns_with_their_names(monkeypatch) -> None:
    for name in list(__import__("os").environ):
        monkeypatch.delenv(name)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "x" * 20)
    monkeypatch.setenv("MYCORP_THING", "y" * 20)
    monkeypatch.setenv("AGENT_CANVAS_SECRET_NAMES", "MYCORP_*")
    monkeypatch.setenv("ALLOWED_ONE", "fine")
    [warning] = at(problems_of(ALLOW_BODY.format(patterns='["*"]')),
                   "nodeConfigs.a.envAllowlist", "warning")
    assert "AWS_SECRET_ACCESS_KEY, MYCORP_THING" in warning.message
    assert "x" * 20 not in str(warning) and warning.line == 7
    assert at(problems_of(ALLOW_BODY.format(patterns='["ALLOWED_*"]')),
              "nodeConfigs.a.envAllowlist", "warning") == []
    assert at(problems_of(ALLOW_BODY.format(patterns='["AWS_*"]')),
              "nodeConfigs.a.envAllowlist", "warning")


def test_a_star_allowlist_warns_even_without_secrets_here(monkeypatch) -> None:
    for name in list(__import__("os").environ):
        monkeypatch.delenv(name)
    [warning] = at(problems_of(ALLOW_BODY.format(patterns='["*"]')),
                   "nodeConfigs.a.envAllowlist", "warning")
    assert "secrets included" in warning.message


# an id YAML reads as itself: `on`, `yes` or `null` unquoted are a flag or nothing, which
# validate refuses for that reason, not for being repeated
_ID = st.from_regex(r"[a-z][a-z0-9]{0,6}", fullmatch=True).filter(
    lambda text: yaml.safe_load(text) == text)


@given(ids=st.lists(_ID, min_size=1, max_size=6), edge_ids=st.lists(_ID, max_size=4))
def test_a_file_with_a_repeated_node_or_edge_id_is_refused_naming_each(ids, edge_ids) -> None:
    """Cards, edges, configs and runs all name a node by its id: a file giving one twice is
    refused as it is read, each repeat named at its line with the fix, as the CLI shows."""
    nodes = "".join(f"  - id: {i}\n" for i in ids)
    edges = "".join(f"  - id: {e}\n    from: {ids[0]}\n    to: {ids[-1]}\n" for e in edge_ids)
    text = f"{HEADER}nodes:\n{nodes}edges:{chr(10) + edges if edges else ' []'}\n"
    repeated = [(f"nodes[{n}].id", i) for n, i in enumerate(ids) if i in ids[:n]] + [
        (f"edges[{n}].id", e) for n, e in enumerate(edge_ids) if e in edge_ids[:n]]
    if not repeated:
        parse_workflow(text, "t.flow.yaml")  # nothing repeated: it reads
        return
    with pytest.raises(WorkflowLoadError) as refused:
        parse_workflow(text, "t.flow.yaml")
    found = [p for p in refused.value.problems if "duplicate" in p.message]
    assert [(p.location, p.message.split("'")[1]) for p in found] == repeated
    lines = text.splitlines()
    for p in found:
        repeated_id = p.message.split("'")[1]
        assert p.file == "t.flow.yaml" and lines[p.line - 1].strip() == f"- id: {repeated_id}"
        assert "an id of its own" in p.hint and "-2" in p.hint
        assert str(p).startswith(f"t.flow.yaml:{p.line}: {p.location}: duplicate ")


def test_a_document_built_with_a_repeated_id_is_invalid_in_the_same_words() -> None:
    doc = WorkflowDocument(nodes=[node("a", entry=True), node("b"), node("a")],
                           edges=[edge("a", "b", id="x"), edge("a", "b", id="x")])
    found = validate(doc)
    assert at(found, "nodes[2].id")[0].message == "duplicate node id 'a' (also nodes[0])"
    assert "'a-2'" in at(found, "nodes[2].id")[0].hint
    assert at(found, "edges[1].id")[0].message == "duplicate edge id 'x' (also edges[0])"
