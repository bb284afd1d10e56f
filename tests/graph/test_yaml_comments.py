"""Finding the comments of a YAML text: a # inside a value (quoted, plain or a block
text) is not one; one on its own line or after a value is."""

from hypothesis import given
from hypothesis import strategies as st

from desktop.graph.resources import examples_dir
from desktop.graph.yaml_comments import first_comment_line


def test_comments_are_found_on_their_line() -> None:
    assert first_comment_line("# top\na: 1\n") == 1
    assert first_comment_line("a: 1\nb: 2  # why two\n") == 2
    assert first_comment_line("a: [1, 2] # c\n") == 1
    assert first_comment_line("a: |\n  # text\n  x\nb: 2\n# after\n") == 5


def test_a_hash_inside_a_value_is_not_a_comment() -> None:
    assert first_comment_line('a: "x # y"\n') is None
    assert first_comment_line("a: 'x # y'\nb: c#d\n") is None
    assert first_comment_line("a: |\n  # Example project\n  text\n") is None


def test_the_shipped_examples_have_none_of_their_own() -> None:
    # their block texts hold Markdown headings, which are text
    single = (examples_dir() / "single-agent.flow.yaml").read_text(encoding="utf-8")
    assert "# Example project" in single
    assert first_comment_line(single) is None


@given(st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc")), max_size=40))
def test_any_quoted_text_is_a_value_and_a_comment_after_it_is_found(value: str) -> None:
    quoted = '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    assert first_comment_line(f"a: {quoted}\n") is None
    assert first_comment_line(f"a: {quoted}\nb: 1 # note\n") == 2
