"""kerala.frozen: a plain class with Final fields becomes an immutable value when run as Python
(the compiled build gets the same from mypyc), built through its own constructor's signature."""

from __future__ import annotations

import copy
import dataclasses
import pickle
from typing import ClassVar, Final

import pytest

from kerala.frozen import fields_repr, frozen, reduced_fields
from kerala.pickled import Reduced


class Spot:
    FIELDS: ClassVar = ("x", "y", "label")
    __slots__ = FIELDS

    def __init__(self, *, x: int, y: int, label: str | None = None) -> None:
        self.x: Final = x
        self.y: Final = y
        self.label: Final = label

    def __eq__(self, other: object) -> bool:
        return type(other) is Spot and (self.x, self.y, self.label) == (
            other.x,
            other.y,
            other.label,
        )

    def __hash__(self) -> int:
        return hash((self.x, self.y, self.label))

    def __repr__(self) -> str:
        return fields_repr(self)

    def __reduce__(self) -> Reduced:
        return reduced_fields(self)


frozen(Spot)


def test_a_frozen_class_keeps_its_constructor_signature_and_defaults() -> None:
    s = Spot(x=1, y=2)
    assert (s.x, s.y, s.label) == (1, 2, None)
    with pytest.raises(TypeError):
        Spot(1, 2)  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        Spot(x=1)  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        Spot(x=1, y=2, z=3)  # type: ignore[call-arg]


def test_a_frozen_class_refuses_every_assignment_and_deletion() -> None:
    s = Spot(x=1, y=2, label="a")
    for name in ("x", "y", "label", "other"):
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(s, name, 5)
        with pytest.raises(dataclasses.FrozenInstanceError):
            delattr(s, name)
    assert (s.x, s.y, s.label) == (1, 2, "a")


def test_a_frozen_value_prints_pickles_and_copies_by_its_fields() -> None:
    s = Spot(x=1, y=2, label="a")
    assert repr(s) == "Spot(x=1, y=2, label='a')"
    for again in (pickle.loads(pickle.dumps(s)), copy.copy(s), copy.deepcopy(s)):
        assert again == s and hash(again) == hash(s) and again is not s


def test_a_constructor_mixing_positional_and_keyword_only_fields_is_refused() -> None:
    class Mixed:
        __slots__ = ("a", "b")

        def __init__(self, a: int, *, b: int) -> None:
            self.a = a
            self.b = b

    with pytest.raises(TypeError, match="Mixed"):
        frozen(Mixed)
