"""The engine's shuffle and sample make the standard library's draws (kerala.chance): the same
results and the same generator state afterwards, so that seeded games and bots play as with
``Random.shuffle`` and ``Random.sample``."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kerala.chance import sample, shuffle


@given(seed=st.integers(0, 2**32), n=st.integers(0, 120))
def test_shuffle_draws_as_the_standard_library(seed: int, n: int) -> None:
    ours, theirs = random.Random(seed), random.Random(seed)
    a, b = list(range(n)), list(range(n))
    shuffle(ours, a)
    theirs.shuffle(b)
    assert a == b
    assert ours.getstate() == theirs.getstate()


@given(seed=st.integers(0, 2**32), n=st.integers(0, 200), data=st.data())
def test_sample_draws_as_the_standard_library(seed: int, n: int, data: st.DataObject) -> None:
    # Both of the standard library's ways: a list of the population (small populations) and a
    # set of the places picked (populations larger than about 4 x 3k).
    k = data.draw(st.integers(0, n))
    population = [f"t{i}" for i in range(n)]
    ours, theirs = random.Random(seed), random.Random(seed)
    assert sample(ours, population, k) == theirs.sample(population, k)
    assert ours.getstate() == theirs.getstate()
    assert population == [f"t{i}" for i in range(n)]


def test_sample_larger_than_the_population_is_refused() -> None:
    with pytest.raises(ValueError, match="larger than population"):
        sample(random.Random(1), [1, 2, 3], 4)
    with pytest.raises(ValueError, match="negative"):
        sample(random.Random(1), [1, 2, 3], -1)


class _Counting(random.Random):
    """A generator class of its own: it is asked to shuffle and sample itself."""

    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self.asked = 0

    def shuffle(self, x: list[object]) -> None:  # type: ignore[override]
        self.asked += 1
        super().shuffle(x)

    def sample(self, population, k, *, counts=None):  # type: ignore[no-untyped-def]
        self.asked += 1
        return super().sample(population, k, counts=counts)


def test_another_generator_class_draws_by_its_own_methods() -> None:
    rng = _Counting(5)
    x = list(range(10))
    shuffle(rng, x)
    picked = sample(rng, x, 3)
    assert rng.asked == 2
    plain = random.Random(5)
    y = list(range(10))
    plain.shuffle(y)
    assert x == y and picked == plain.sample(y, 3)
