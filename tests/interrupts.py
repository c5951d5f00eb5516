"""Ctrl-C at a chosen moment of a command's file writing, for the tests of what it then says."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from kerala.files import write_atomic


def ctrl_c_at_record(n: int, when: str) -> Callable[[Path, str], None]:
    """A ``write_atomic`` that raises ``KeyboardInterrupt`` while the ``n``-th record (a file
    named ``game-…``; counted from 1) is written: just ``"after"`` it took its name, or
    ``"during"`` the write (no file). Other files are written as usual."""
    records: list[Path] = []

    def write(path: Path, text: str) -> None:
        if not path.name.startswith("game-"):
            return write_atomic(path, text)
        if len(records) == n - 1:
            if when == "after":
                write_atomic(path, text)
            raise KeyboardInterrupt
        write_atomic(path, text)
        records.append(path)

    return write
