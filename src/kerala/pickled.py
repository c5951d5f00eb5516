"""Pickling for the engine's values, the same in both builds (docs/engine.md, "Two builds").

A class compiled by mypyc cannot be rebuilt the way pickle and :mod:`copy` rebuild a plain
class (an empty instance, then its fields set one by one): a native class's ``__new__`` runs its
``__init__``, and a frozen one refuses the setting. So each engine class that crosses a process
(OpenSpiel's serialised states, the analysis pool, Ray's workers) reduces itself to its
constructor and its fields, which both builds read the same way.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, TypeVar

_T = TypeVar("_T")

#: What ``__reduce__`` returns: the constructor and its arguments.
Reduced = tuple[Callable[..., Any], tuple[Any, ...]]


def rebuilt(cls: Callable[..., _T], fields: dict[str, Any]) -> _T:
    """``cls(**fields)``: how pickle and :mod:`copy` rebuild an engine value."""
    return cls(**fields)


def reduced(value: Any) -> Reduced:
    """A dataclass instance as its class and init fields (for its ``__reduce__``)."""
    fields = {f.name: getattr(value, f.name) for f in dataclasses.fields(value) if f.init}
    return rebuilt, (type(value), fields)
