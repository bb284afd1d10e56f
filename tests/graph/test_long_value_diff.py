"""`agent-canvas diff` shows where a long prompt or script changed: a change late in a
long line reads as two different excerpts around it (not the same first 80 characters
twice), and a multi-line text or a script as the lines that changed."""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from desktop.contract.state import NodeConfig
from desktop.graph.document import WorkflowDocument, WorkflowNode
from desktop.graph.flow_diff import diff_flows
from desktop.graph.flow_diff_text import diff_lines
from desktop.graph.value_diff import excerpts

quick = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
chars = st.characters(blacklist_categories=("Cs",), blacklist_characters="\n\r")
line_text = st.text(alphabet=chars, max_size=200)


def _doc(instructions: str) -> WorkflowDocument:
    return WorkflowDocument(name="w", task="t", nodes=[WorkflowNode(id="writer")],
                            node_configs={"writer": NodeConfig(instructions=instructions)})


@quick
@given(st.text(alphabet=chars, min_size=80, max_size=400), line_text, line_text)
def test_two_long_lines_read_differently_wherever_they_differ(
        start: str, old_end: str, new_end: str) -> None:
    old, new = start + old_end, start + new_end
    if old == new:
        return
    [line] = diff_lines(diff_flows(_doc(old), _doc(new)))
    assert line.startswith("~ node writer: config.instructions: ")
    before, after = excerpts(old, new)
    assert before != after
    assert f"{before} → {after}" in line


def test_the_excerpt_starts_shortly_before_the_first_difference() -> None:
    common = ("Please implement the feature carefully, keeping the code style of the "
              "repository, writing tests for every public function, and finally ")
    [line] = diff_lines(diff_flows(_doc(common + "run the linter."),
                                   _doc(common + "do NOT run the linter.")))
    assert line == ('~ node writer: config.instructions: "… public function, and finally '
                    'run the linter." → "… public function, and finally do NOT run the '
                    'linter."')


@quick
@given(st.lists(line_text, min_size=3, max_size=30), st.data())
def test_a_changed_line_of_a_long_text_is_shown_removed_and_added(
        lines: list[str], data: st.DataObject) -> None:
    at = data.draw(st.integers(0, len(lines) - 1))
    changed = data.draw(line_text.filter(lambda text: text != lines[at]))
    old = "\n".join(["x" * 100, *lines])
    new = "\n".join(["x" * 100, *lines[:at], changed, *lines[at + 1:]])
    out = diff_lines(diff_flows(_doc(old), _doc(new)))
    assert out[0] == "~ node writer: config.instructions:"
    body = [line.removeprefix("      ") for line in out[1:]]
    assert f"+{changed}" in body
    assert f"-{lines[at]}" in body


def test_a_script_change_reads_as_the_steps_that_changed() -> None:
    script = [{"say": f"step {i} " + "words " * 10} for i in range(8)]
    edited = [*script[:6], {"say": "step 6 changed"}, script[7]]
    old = WorkflowDocument(name="w", task="t", nodes=[WorkflowNode(id="n")],
                           node_configs={"n": NodeConfig(script=script)})
    new = old.model_copy(deep=True)
    new.node_configs["n"] = NodeConfig(script=edited)
    out = diff_lines(diff_flows(old, new))
    assert out[0] == "~ node n: config.script:"
    assert "      +- say: step 6 changed" in out
    assert any(line.startswith("      -- say: 'step 6 words") for line in out)


def test_the_apps_compare_notes_show_where_a_long_prompt_changed() -> None:
    """The Inspector's compare notes for a node read as `agent-canvas diff` does, not as
    the same first 80 characters on both sides."""
    from desktop.graph.flow_diff_text import item_notes

    common = "Keep the repository's code style, write tests for each public function, " * 2
    diff = diff_flows(_doc(common + "then run the linter."), _doc(common + "skip the linter."))
    [note] = item_notes(diff, "node", "writer", "main.flow.yaml")
    assert note.startswith("config.instructions: ")
    assert "run the linter" in note and "skip the linter" in note
