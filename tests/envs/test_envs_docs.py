"""The examples of docs/envs.md run as written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[2] / "docs" / "envs.md"
BLOCKS = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S)


def test_the_doc_has_one_example_per_api() -> None:
    assert len(BLOCKS) == 3
    for name in ("kerala.envs.pettingzoo", "kerala.envs.openspiel", "kerala.envs.gymnasium"):
        assert any(name in b for b in BLOCKS), name


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_example_runs(index: int) -> None:
    exec(compile(BLOCKS[index], f"{DOC.name} example {index}", "exec"), {})
