"""Issue 17: the examples of docs/notation.md are what the library reads and writes.

The grounds example is a valid document (schema and reader), the special turns parse, and the
two breakdowns of the "How a result is checked" example are both what their removal gives, with
the same best total (SC1 ties; NOTATION: ``total`` is authoritative).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import jsonschema

from kerala.actions import turn_from_json
from kerala.notation import read_grounds, schema
from kerala.scoring import score_grounds, score_removal

PAGE = (Path(__file__).resolve().parent.parent / "docs" / "notation.md").read_text("utf-8")


def _json_blocks() -> list[str]:
    return re.findall(r"```json\n(.*?)```", PAGE, re.S)


def _objects(block: str) -> list[dict[str, Any]]:
    """The JSON objects written one after another in a block."""
    out: list[dict[str, Any]] = []
    i, decoder = 0, json.JSONDecoder()
    while block[i:].strip():
        i += len(block[i:]) - len(block[i:].lstrip())
        obj, i = decoder.raw_decode(block, i)
        out.append(obj)
    return out


def test_notation_page_grounds_example_is_a_valid_document() -> None:
    (block,) = [b for b in _json_blocks() if '"kerala-grounds"' in b]
    doc = json.loads(block)
    jsonschema.validate(doc, schema("grounds"))
    g = read_grounds(doc)
    assert g.color == "blue" and g.passes == 1


def test_notation_page_special_turns_parse_with_their_follow_up() -> None:
    (block,) = [b for b in _json_blocks() if '"move_stack"' in b]
    turns = _objects(block)
    kinds = [type(turn_from_json(t)[1]).__name__ for t in turns]
    assert kinds == ["MoveStack", "MoveElephant"]


def test_sc1_notation_page_two_breakdowns_of_one_grounds_are_both_correct() -> None:
    (block,) = [b for b in _json_blocks() if '"removed_cells": [[1, 0]]' in b]
    scores = _objects(block)
    g = read_grounds(
        {
            "format": "kerala-grounds",
            "version": 1,
            "color": "blue",
            "stacks": [
                {"at": [0, 0], "tiles": ["blue:start"]},
                {"at": [1, 0], "tiles": ["green:e2"]},
                {"at": [2, 0], "tiles": ["blue:e1"]},
                {"at": [3, 0], "tiles": ["red:e1", "green:move-tile"]},
            ],
        }
    )
    best = score_grounds(g).total
    for s in scores:
        removal = score_removal(g, [tuple(c) for c in s["removed_cells"]])
        assert {"seat": 0, **removal.to_json()} == s
        assert removal.total == best
    assert scores[0]["surplus"] != scores[1]["surplus"]
