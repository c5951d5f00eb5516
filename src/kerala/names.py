"""Player names: the one check every name that comes in from outside goes through.

A name is shown to every seat and watcher, in the browser, the terminal and records, so it must
look like what it is: text in Unicode normal form C (so that "é" typed two ways is one name),
trimmed of blanks, at most :data:`MAX_NAME` characters, and free of the characters that change
how the text *around* it is shown or that cannot be seen at all: controls (``U+0000``-``U+001F``,
``U+007F``-``U+009F``, such as ``U+0085``), format characters (``U+200B`` zero width space, the
bidirectional overrides and isolates ``U+202A``-``U+202E`` and ``U+2066``-``U+2069``, ...),
line and paragraph separators, lone surrogates, private-use and unassigned code points.

Such a name is refused, not quietly cleaned: the person who typed it learns what was wrong,
and no two different inputs end up as one name (docs/security.md, "Names").

>>> clean_name("  Ann\\u0065\\u0301  ")  # NFC: e + combining acute is é
'Anné'
>>> clean_name("evil\\u202eexe.txt")
Traceback (most recent call last):
...
kerala.names.BadName: a name may not contain U+202E (right-to-left override), at character 5
"""

from __future__ import annotations

import unicodedata

#: The longest name, in characters after normalisation.
MAX_NAME = 40

#: Unicode general categories refused in a name: controls, format characters (zero width,
#: bidirectional controls), surrogates, private use, unassigned, line and paragraph separators.
REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})


class BadName(ValueError):
    """A name that cannot be used; the message says why and where."""


def _describe(c: str) -> str:
    name = unicodedata.name(c, "").lower()
    code = f"U+{ord(c):04X}"
    return f"{code} ({name})" if name else code


def clean_name(text: str) -> str:
    """``text`` as a player name: NFC, trimmed; :class:`BadName` if it cannot be one."""
    return clean_text(text, MAX_NAME, "a name")


def clean_text(text: str, limit: int, what: str) -> str:
    """``text`` as one line shown to others (a name, a chat message): NFC, trimmed, at most
    ``limit`` characters, none of the refused characters; :class:`BadName` names the fault,
    starting with ``what``.

    >>> clean_text(" gg ", 200, "a chat message")
    'gg'
    """
    # Checked before trimming: str.strip() would quietly drop U+0085 and U+2028 at the ends.
    name = unicodedata.normalize("NFC", text)
    for i, c in enumerate(name):
        if unicodedata.category(c) in REFUSED_CATEGORIES:
            raise BadName(f"{what} may not contain {_describe(c)}, at character {i + 1}")
    name = name.strip()
    if not name:
        raise BadName(f"{what} is not only blanks")
    if len(name) > limit:
        raise BadName(f"{what} is at most {limit} characters, this one has {len(name)}")
    return name
