"""A judge node's answer picks the attempt it chooses, not the first number it mentions:
its last `choice: N` line, else its last choosing phrase, else (an answer that starts
with its number) the first number that is an attempt that can win."""

from hypothesis import given, settings
from hypothesis import strategies as st

from desktop.runtime.judge_answer import named_attempt

winner_sets = st.lists(st.integers(1, 8), min_size=2, max_size=8, unique=True)
prose = st.text(alphabet="abcdefgh ijk,.;:()!?\n", max_size=80)
quick = settings(max_examples=150, deadline=None)


@quick
@given(winner_sets, st.data(), prose, prose)
def test_the_last_choice_line_picks_whatever_was_argued_before(
        winners: list[int], data: st.DataObject, before: str, after: str) -> None:
    mentioned = data.draw(st.lists(st.sampled_from(winners), max_size=4))
    chosen = data.draw(st.sampled_from(winners))
    form = data.draw(st.sampled_from(["choice: {}", "Choice: attempt {}", "**Choice:** {}",
                                      "CHOICE = #{}", "  choice:{}"]))
    argued = " ".join(f"Attempt {n} {before}" for n in mentioned)
    text = f"{argued}\nI choose attempt {mentioned[0] if mentioned else chosen}.\n" \
           f"{form.format(chosen)}\n{after}"
    assert named_attempt(text, winners) == chosen


@quick
@given(winner_sets, st.data(), prose)
def test_argued_then_chosen_picks_the_chosen_one(
        winners: list[int], data: st.DataObject, why: str) -> None:
    faulted, chosen = data.draw(st.permutations(winners))[:2]
    phrase = data.draw(st.sampled_from([
        "I choose attempt {}.", "so I pick #{}", "I would go with attempt {}",
        "The winner is attempt {}.", "Attempt {} is better.", "attempt {} should go on",
        "I prefer {}"]))
    text = f"Attempt {faulted} has a bug{why.replace(chr(10), ' ')}; {phrase.format(chosen)}"
    assert named_attempt(text.replace("choice", "c"), winners) == chosen


@quick
@given(winner_sets, st.data(), prose)
def test_an_answer_that_starts_with_its_number_still_picks_it(
        winners: list[int], data: st.DataObject, why: str) -> None:
    chosen = data.draw(st.sampled_from(winners))
    assert named_attempt(f"{chosen}: {why}".replace("choice", "c"), winners) == chosen


def test_a_choice_line_naming_an_attempt_that_cannot_win_names_none() -> None:
    assert named_attempt("Attempt 2 is better.\nchoice: 3", [1, 2]) is None
    assert named_attempt("Both are fine.", [1, 2]) is None
