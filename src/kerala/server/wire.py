"""JSON on the wire: compact UTF-8 bytes, built fast (orjson) and composed without re-parsing.

>>> dumpb({"a": [1, 2], "b": None})
b'{"a":[1,2],"b":null}'
>>> dumpb({"name": "\\ud800"})  # a lone surrogate: orjson refuses it, the json module escapes it
b'{"name":"\\\\ud800"}'
"""

from __future__ import annotations

import json
from typing import Any

import orjson


def dumpb(obj: Any) -> bytes:
    """Compact JSON of ``obj`` as UTF-8 bytes.

    orjson is several times faster than the json module. What it refuses (text with lone
    surrogates, integers beyond 64 bits, non-string keys) goes through the json module instead,
    which escapes everything outside ASCII: both are valid JSON of the same value.
    """
    try:
        return orjson.dumps(obj)
    except TypeError:  # orjson.JSONEncodeError is a TypeError
        return json.dumps(obj, separators=(",", ":")).encode("ascii")


def dumps(obj: Any) -> str:
    """:func:`dumpb` as text (a WebSocket text frame)."""
    return dumpb(obj).decode("utf-8")
