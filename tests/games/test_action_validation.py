"""``ActionSerializer.plain``, the quick check of an action's body, against the serializer."""

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from rest_framework.exceptions import ValidationError

from games.api.serializers import ActionSerializer
from games.engine.actions import ALIASES, CANONICAL
from truc_api.serializers import validated

_KINDS = [*CANONICAL, *ALIASES]
_CARDS = st.sampled_from(["7O", "1E", "12C", " 7O", "7O\t", "", "7\x00", "1234", "play"])
_VALUES = st.one_of(
    st.sampled_from(_KINDS),
    _CARDS,
    st.text(max_size=5),
    st.integers(min_value=-3, max_value=2**40),
    st.booleans(),
    st.floats(allow_nan=False, allow_infinity=False),
    st.none(),
    st.lists(st.integers(), max_size=2),
    st.sampled_from(["5", " 5", "5.0", "-1"]),
)
_VALID = st.fixed_dictionaries(
    {"type": st.sampled_from(_KINDS), "expected_version": st.integers(0, 10**6)},
    optional={"card": st.sampled_from(["7O", "12C", "1E"])},
)


@st.composite
def _near_valid(draw: st.DrawFn) -> dict[str, Any]:
    """A valid body with one thing changed: a value, a key more or a key less."""
    body = dict(draw(_VALID))
    key = draw(st.sampled_from(["type", "card", "expected_version", "seat"]))
    if draw(st.booleans()) and key in body:
        del body[key]
    else:
        body[key] = draw(st.one_of(_CARDS, _VALUES))
    return body


_BODIES = st.one_of(
    _near_valid(),
    st.dictionaries(
        st.sampled_from(["type", "card", "expected_version", "seat", "extra"]), _VALUES, max_size=4
    ),
)


def _serializer_answer(data: Any) -> dict[str, Any] | None:
    try:
        return validated(ActionSerializer, data)
    except ValidationError:
        return None


@settings(max_examples=1000)
@given(_BODIES)
def test_the_quick_check_answers_as_the_serializer_or_leaves_it_to_the_serializer(data):
    quick = ActionSerializer.plain(data)

    assert quick is None or quick == _serializer_answer(data)


@given(st.sampled_from(_KINDS), st.integers(min_value=0, max_value=10**6))
def test_the_plain_forms_clients_send_pass_the_quick_check(kind, version):
    for body in (
        {"type": kind, "expected_version": version},
        {"type": kind, "card": "12C", "expected_version": version},
    ):
        assert ActionSerializer.plain(body) == body == _serializer_answer(body)


def test_what_the_serializer_would_convert_or_refuse_is_left_to_it():
    for body in (
        {"type": "play", "card": " 7O", "expected_version": 1},  # trimmed by the serializer
        {"type": "play", "card": "7O", "expected_version": "1"},  # converted by it
        {"type": "play", "card": "7O", "expected_version": True},  # refused
        {"type": "play", "card": "7\x00", "expected_version": 1},  # refused
        {"type": "play", "expected_version": 1, "seat": 1},  # refused: unknown field
        ["type", "play"],
    ):
        assert ActionSerializer.plain(body) is None
