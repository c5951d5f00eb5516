"""Shuffling and sampling with a :class:`random.Random`, as the standard library does them.

``Random.shuffle`` and ``Random.sample`` are written in Python, so in the compiled build they
were the searches' largest interpreted cost (a shuffle of the unseen tiles at every ``mcts``
and ``expert`` iteration, a sample of the rollout policy's candidates at every rollout step).
These functions make the same draws in the same order, from ``getrandbits`` as CPython's
``_randbelow`` does, so they give the same results as the methods for the same generator
state and leave it in the same state (a test compares them): seeded games and bots play
exactly as before. A generator of another class (a subclass may draw differently) is asked
to do it itself.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")


def shuffle(rng: random.Random, x: list[T]) -> None:
    """Shuffle ``x`` in place, as ``rng.shuffle(x)``."""
    if type(rng) is not random.Random:
        rng.shuffle(x)
        return
    getrandbits = rng.getrandbits
    for i in range(len(x) - 1, 0, -1):
        n = i + 1
        k = n.bit_length()
        j = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        x[i], x[j] = x[j], x[i]


def sample(rng: random.Random, population: Sequence[T], k: int) -> list[T]:
    """``k`` distinct places of ``population`` drawn at random, as ``rng.sample(population, k)``."""
    if type(rng) is not random.Random:
        return rng.sample(population, k)
    n = len(population)
    if not 0 <= k <= n:
        raise ValueError("sample larger than population or is negative")
    getrandbits = rng.getrandbits
    out: list[T] = []
    # The standard library's choice between a list of the population and a set of picks.
    setsize = 21
    if k > 5:
        setsize += 4 ** math.ceil(math.log(k * 3, 4))
    if n <= setsize:
        pool = list(population)
        for i in range(k):
            m = n - i
            bits = m.bit_length()
            j = getrandbits(bits)
            while j >= m:
                j = getrandbits(bits)
            out.append(pool[j])
            pool[j] = pool[m - 1]
    else:
        picked: set[int] = set()
        bits = n.bit_length()
        for _ in range(k):
            j = getrandbits(bits)
            while j >= n or j in picked:
                j = getrandbits(bits)
            picked.add(j)
            out.append(population[j])
    return out
