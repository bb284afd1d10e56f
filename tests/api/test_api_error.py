"""One ApiError on both sides of the wire: what a handler refuses with reaches the client
as an ApiError with the same status, code, message, field and problems."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from desktop.api.api_error import ApiError
from desktop.api.client import _error_from
from desktop.api.errors import answer

words = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1,
                max_size=30)


@given(status=st.integers(400, 599), code=st.from_regex(r"[a-z]+(_[a-z]+)*", fullmatch=True),
       message=words, field=words | st.none(), problems=st.lists(words, max_size=3))
def test_a_refusal_reaches_the_client_as_the_same_api_error(
        status: int, code: str, message: str, field: str | None, problems: list[str]) -> None:
    refused = ApiError(status, code, message, field, problems)

    response = answer(refused)
    received = _error_from(response.status, response.body)

    assert type(received) is ApiError
    assert (received.status, received.code, received.message, received.field,
            received.problems) == (status, code, message, field, problems)
    assert str(received) == str(refused)
    assert (b'"problems"' in response.body) == bool(problems)  # none listed: not sent
