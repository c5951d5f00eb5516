"""Colors, tile kinds, tile types and tile sets (docs/rules.md "Components").

A *tile type* is a color and a kind (``"green:e2"``, ``"blue:arch-black"``); tiles of one type
are interchangeable, so the engine counts types, never physical tiles. Tile types are interned:
one object per type, compared by identity, so they are cheap to hash and compare in hot loops.

The tile set is data: ``tilesets/standard.json`` ships with the package and a user's own file
with the same kinds and other counts can be loaded and is validated.

>>> t = tile("blue:arch-black")
>>> t.color, t.kind, t.arch_color, t.symbols
('blue', 'arch-black', 'black', 0)
>>> tile("blue:arch-black") is t
True
>>> load_tileset("standard").count(tile("green:e1"))
6

Each tile type also has a short *code*, the one the terminal game draws: the color letter and
the kind (``G2``, ``BE``, ``KT``, ``Bs``), and for an arch its color, ``a`` and the arch color
in lower case (``Rak`` is red:arch-black).

>>> t.code, tile_from_code("Rak").name
('Bak', 'red:arch-black')
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from importlib import resources
from typing import Any, Final

from mypy_extensions import mypyc_attr

from kerala.errors import TileSetError
from kerala.pickled import Reduced, reduced
from kerala.vocabulary import SPECIAL_OF, Special

Color = str
Edge = str

COLORS: Final[tuple[Color, ...]] = ("blue", "black", "green", "red", "purple")
EDGES: Final[tuple[Edge, ...]] = ("N", "E", "S", "W")
#: docs/rules.md P6: x grows east, y grows south.
EDGE_DELTA: Final[dict[Edge, tuple[int, int]]] = {
    "N": (0, -1),
    "E": (1, 0),
    "S": (0, 1),
    "W": (-1, 0),
}

SYMBOL_KINDS: Final[dict[str, int]] = {"e1": 1, "e2": 2, "e3": 3}
MOVE_ELEPHANT: Final = "move-elephant"
MOVE_TILE: Final = "move-tile"
START: Final = "start"
#: The six kinds of game tile in every color; ``arch`` stands for one arch per other color.
GAME_KINDS: Final[tuple[str, ...]] = ("e1", "e2", "e3", "arch", MOVE_ELEPHANT, MOVE_TILE)

#: The letter of each color in tile codes (upper case; an arch color is written in lower case).
COLOR_LETTER: Final[dict[Color, str]] = {
    "blue": "B",
    "black": "K",
    "green": "G",
    "red": "R",
    "purple": "P",
}
#: The character of each kind that is not an arch, in tile codes.
KIND_CHAR: Final[dict[str, str]] = {
    "e1": "1",
    "e2": "2",
    "e3": "3",
    START: "s",
    MOVE_ELEPHANT: "E",
    MOVE_TILE: "T",
}
#: The arrow of each edge an arch may face (docs/rules.md P6), as the terminal draws it.
ARROW: Final[dict[Edge, str]] = {"N": "^", "E": ">", "S": "v", "W": "<"}


def _kinds_of(color: Color) -> list[str]:
    kinds = list(SYMBOL_KINDS)
    kinds += [f"arch-{other}" for other in COLORS if other != color]
    kinds += [MOVE_ELEPHANT, MOVE_TILE, START]
    return kinds


@mypyc_attr(acyclic=True)
class TileType:
    """One tile type. Obtain instances with :func:`tile`; never construct them directly."""

    __slots__ = (
        "arch_color",
        "code",
        "color",
        "hue",
        "index",
        "is_arch",
        "kind",
        "name",
        "special",
        "symbols",
    )

    color: Color
    #: The color's place in :data:`COLORS`: hot loops index lists by it instead of hashing
    #: the color's name.
    hue: int
    kind: str
    name: str
    symbols: int
    arch_color: Color | None
    is_arch: bool
    special: Special | None
    index: int
    #: The short code of the terminal game (``G2``, ``Rak``), see the module docstring.
    code: str

    def __init__(self, color: Color, kind: str, index: int) -> None:
        self.color = color
        self.hue = COLORS.index(color)
        self.kind = kind
        self.name = f"{color}:{kind}"
        self.symbols = SYMBOL_KINDS.get(kind, 1 if kind == START else 0)
        self.arch_color = kind[5:] if kind.startswith("arch-") else None
        self.is_arch = self.arch_color is not None
        self.special = SPECIAL_OF.get(kind)
        self.index = index
        letter = COLOR_LETTER[color]
        if self.arch_color is not None:
            self.code = f"{letter}a{COLOR_LETTER[self.arch_color].lower()}"
        else:
            self.code = letter + KIND_CHAR[kind]

    def __repr__(self) -> str:
        return f"tile({self.name!r})"

    def __str__(self) -> str:
        return self.name

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        return (tile, (self.name,))

    def __copy__(self) -> TileType:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> TileType:
        return self


def _build_types() -> dict[str, TileType]:
    table: dict[str, TileType] = {}
    for color in COLORS:
        for kind in _kinds_of(color):
            t = TileType(color, kind, len(table))
            table[t.name] = t
    return table


TILE_TYPES: Final[dict[str, TileType]] = _build_types()
#: Every tile type in a fixed order (``TileType.index`` is the position here).
ALL_TILE_TYPES: Final[tuple[TileType, ...]] = tuple(TILE_TYPES.values())
GAME_TILE_TYPES: Final[tuple[TileType, ...]] = tuple(t for t in ALL_TILE_TYPES if t.kind != START)
START_TILES: Final[dict[Color, TileType]] = {c: TILE_TYPES[f"{c}:{START}"] for c in COLORS}


def tile(name: object) -> TileType:
    """The tile type named ``"<color>:<kind>"``; raises :class:`TileSetError` if unknown.

    Typed ``object``: a name read from outside gets this refusal whatever its type, in the
    compiled build too (which checks annotated types at the call)."""
    found = TILE_TYPES.get(name) if isinstance(name, str) else None
    if found is None:
        raise TileSetError(f"unknown tile type {name!r}")
    return found


_BY_CODE: Final[dict[str, TileType]] = {t.code: t for t in ALL_TILE_TYPES}


def tile_from_code(code: object) -> TileType:
    """The tile type of a short code (``"G2"``, ``"Rak"``); raises :class:`TileSetError`."""
    t = _BY_CODE.get(code) if isinstance(code, str) else None
    if t is None:
        raise TileSetError(
            f"unknown tile code {code!r}: a color letter B K G R P, then 1 2 3 s E T, "
            "or a and an arch color in lower case (Rak)"
        )
    return t


def is_tile_name(name: object) -> bool:
    return isinstance(name, str) and name in TILE_TYPES


@dataclass(frozen=True)
class TileSet:
    """How many game tiles of each type the box holds (start tiles are not counted here)."""

    name: str
    counts: Mapping[TileType, int]

    def count(self, t: TileType) -> int:
        return self.counts.get(t, 0)

    def tiles(self, colors: set[Color] | None = None) -> list[TileType]:
        """Every game tile (one entry per physical tile), optionally only of ``colors``."""
        out: list[TileType] = []
        for t, n in self.counts.items():
            if colors is None or t.color in colors:
                out.extend([t] * n)
        return out

    def total(self) -> int:
        return sum(self.counts.values())

    def __iter__(self) -> Iterator[TileType]:
        return iter(self.counts)

    def to_json(self) -> dict[str, Any]:
        return {
            "format": "kerala-tileset",
            "version": 1,
            "name": self.name,
            "counts": {t.name: n for t, n in self.counts.items()},
        }

    @classmethod
    def from_json(cls, doc: object) -> TileSet:
        """Validate and load a tile set document.

        Either ``per_color`` (counts per kind code; ``arch`` is the count of each arch) or
        ``counts`` (per tile type name) or both, ``counts`` overriding. Every one of the six
        kinds must exist in every color (docs/rules.md Components); counts are whole numbers >= 0.

        >>> TileSet.from_json({"name": "x", "per_color": {"e1": 1}}).name  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        kerala.errors.TileSetError: tile set 'x': per_color lacks kinds: e2, e3, arch, ...
        """
        if not isinstance(doc, dict):
            raise TileSetError("a tile set must be a JSON object")
        if doc.get("format", "kerala-tileset") != "kerala-tileset":
            raise TileSetError(f"unknown tile set format {doc.get('format')!r}")
        if doc.get("version", 1) != 1:
            raise TileSetError(f"unsupported tile set version {doc.get('version')!r}")
        name = doc.get("name")
        if not isinstance(name, str) or not name:
            raise TileSetError("a tile set needs a non-empty string 'name'")
        counts: dict[TileType, int] = {}
        per_color = doc.get("per_color")
        explicit = doc.get("counts")
        if per_color is None and explicit is None:
            raise TileSetError(f"tile set {name!r}: give 'per_color' or 'counts'")
        if per_color is not None:
            if not isinstance(per_color, dict):
                raise TileSetError(f"tile set {name!r}: per_color must be an object")
            unknown = sorted(set(per_color) - set(GAME_KINDS))
            if unknown:
                raise TileSetError(f"tile set {name!r}: unknown kinds in per_color: {unknown}")
            missing = [k for k in GAME_KINDS if k not in per_color]
            if missing and explicit is None:
                raise TileSetError(
                    f"tile set {name!r}: per_color lacks kinds: {', '.join(missing)}"
                )
            for color in COLORS:
                for kind, n in per_color.items():
                    kinds = (
                        [f"arch-{o}" for o in COLORS if o != color] if kind == "arch" else [kind]
                    )
                    for k in kinds:
                        counts[TILE_TYPES[f"{color}:{k}"]] = _count(name, f"{color}:{k}", n)
        if explicit is not None:
            if not isinstance(explicit, dict):
                raise TileSetError(f"tile set {name!r}: counts must be an object")
            for type_name, n in explicit.items():
                t = TILE_TYPES.get(type_name) if isinstance(type_name, str) else None
                if t is None or t.kind == START:
                    raise TileSetError(f"tile set {name!r}: unknown game tile type {type_name!r}")
                counts[t] = _count(name, type_name, n)
        for t in GAME_TILE_TYPES:
            if t not in counts:
                raise TileSetError(f"tile set {name!r}: no count for {t.name}")
        ordered = {t: counts[t] for t in GAME_TILE_TYPES}
        return cls(name=name, counts=ordered)

    def __reduce__(self) -> Reduced:
        return reduced(self)


def _count(set_name: str, type_name: str, n: object) -> int:
    if not isinstance(n, int) or isinstance(n, bool) or n < 0:
        raise TileSetError(f"tile set {set_name!r}: count of {type_name} must be an integer >= 0")
    return n


_LOADED: dict[str, TileSet] = {}


def load_tileset(name: str = "standard") -> TileSet:
    """A tile set shipped with the package (``tilesets/<name>.json``)."""
    if name not in _LOADED:
        try:
            text = resources.files("kerala").joinpath("tilesets", f"{name}.json").read_text()
        except (FileNotFoundError, OSError):
            raise TileSetError(f"no tile set named {name!r} ships with kerala") from None
        _LOADED[name] = TileSet.from_json(json.loads(text))
    return _LOADED[name]
