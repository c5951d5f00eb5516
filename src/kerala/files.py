"""Files written whole: what the commands save (records, reports, settings), and the names
of game records in a folder."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path


def record_name(index: int) -> str:
    """The file name of game ``index``'s record in a folder of records (``simulate --records``,
    a tournament's ``records/``): ``game-00042.json``, so that names sort in game order."""
    return f"game-{index:05d}.json"


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` so that a reader sees no file, or the old one, or the new one
    whole, never a part; flushed to the disk before it takes the name, so that a crash just
    after leaves the whole file too."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:  # Ctrl-C included: never leave a part of a file behind
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
