"""Frozen native classes: immutable values that mypyc compiles to C structs (docs/engine.md,
"Two builds").

A frozen dataclass builds its instances slowly in the compiled build: mypyc compiles its methods,
but its ``__init__`` is the one :mod:`dataclasses` generates at import, which runs as Python
(about 1 µs a decision in either build). The engine's hottest values, the decisions, are
therefore plain classes whose ``__init__`` assigns each field once to an attribute marked
``Final``. Compiled, that ``__init__`` is C, and mypyc itself makes a ``Final`` attribute
read-only. Run as Python, nothing would stop an assignment, so :func:`frozen` gives such a class,
in the pure build only, the ``__init__`` that :mod:`dataclasses` would write for its
constructor's signature (fields set past the refusal) and refuses every later assignment.

A frozen class names its fields in ``FIELDS`` (its constructor's keywords, in order): the
pickling of :func:`reduced_fields` and the ``repr`` of :func:`fields_repr` read them.
"""

from __future__ import annotations

import dataclasses
import inspect
from typing import Any, NoReturn

from kerala.pickled import Reduced, rebuilt


def _refuse_set(self: object, name: str, value: object) -> NoReturn:
    raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")


def _refuse_delete(self: object, name: str) -> NoReturn:
    raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")


def frozen(cls: type) -> None:
    """Make ``cls`` immutable in the pure build (compiled, its ``Final`` attributes are)."""
    init = cls.__dict__["__init__"]
    if not inspect.isfunction(init):
        return  # compiled by mypyc: a C constructor, and read-only attributes
    namespace: dict[str, Any] = {"__annotations__": {}}
    params = list(inspect.signature(init).parameters.values())[1:]
    kinds = {p.kind for p in params}
    if len(kinds) > 1:
        raise TypeError(f"{cls.__name__}: fields all keyword-only or none")
    for p in params:
        namespace["__annotations__"][p.name] = Any
        if p.default is not p.empty:
            namespace[p.name] = p.default
    kw_only = kinds == {inspect.Parameter.KEYWORD_ONLY}
    twin: Any = dataclasses.dataclass(frozen=True, eq=False, repr=False, kw_only=kw_only)(
        type(cls.__name__, (), namespace)
    )
    init = twin.__init__
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__doc__ = cls.__dict__["__init__"].__doc__
    type.__setattr__(cls, "__init__", init)
    type.__setattr__(cls, "__setattr__", _refuse_set)
    type.__setattr__(cls, "__delattr__", _refuse_delete)


def reduced_fields(value: Any) -> Reduced:
    """A frozen class's instance as its class and constructor keywords (its ``__reduce__``)."""
    return rebuilt, (type(value), {name: getattr(value, name) for name in value.FIELDS})


def fields_repr(value: Any) -> str:
    """``Name(field=value, ...)``, as a dataclass prints itself."""
    inner = ", ".join(f"{name}={getattr(value, name)!r}" for name in value.FIELDS)
    return f"{type(value).__name__}({inner})"
