"""Issue 14: the terminal window keeps the numbered choices and the elephants in view.

``kerala play --load`` continues a game late in its course, in a real pseudo-terminal of
80×24 (pexpect); a terminal emulator (pyte) keeps what a player sees on the screen at each
prompt, and the tests read the screen, not the program's output stream.
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import pexpect
import pyte
import pytest

from kerala.actions import Place
from kerala.bots import make_bot
from kerala.game import GameState, Phase, new_game
from kerala.notation import write_record
from kerala.tiles import COLORS

ROWS, COLS = 24, 80
PROMPT = r"(tile|target|elephant|edge|sp1-elephant|sp1-to|sp2-from|sp2-to)> "


class Screen:
    """A pty running ``kerala`` with an 80×24 terminal emulator fed by everything it prints."""

    def __init__(self, args: list[str], cwd: Path) -> None:
        env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
        env.update(COLUMNS=str(COLS), LINES=str(ROWS), TERM="xterm-256color")
        self.child = pexpect.spawn(
            sys.executable,
            ["-m", "kerala", *args],
            env=env,
            cwd=str(cwd),
            encoding="utf-8",
            dimensions=(ROWS, COLS),
            timeout=90,
        )
        self.screen = pyte.Screen(COLS, ROWS)
        self.stream = pyte.Stream(self.screen)

    def expect(self, pattern: str) -> str:
        self.child.expect(pattern)
        self.stream.feed(self.child.before + self.child.after)
        return str(self.child.after)

    def send(self, line: str) -> None:
        self.child.sendline(line)

    def lines(self) -> list[str]:
        return [line.rstrip() for line in self.screen.display]

    def close(self) -> None:
        self.child.terminate(force=True)


def late_game(players: int, *, at_round: int, seed: int) -> GameState:
    """Random bots play until round ``at_round`` (from 1), seat 0 to place a tile."""
    state = new_game(list(COLORS[:players]), seed=seed)
    bots = [make_bot("random", seed=seed * 10 + i) for i in range(players)]
    while True:
        if state.is_chance():
            state.advance_chance()
            continue
        assert not state.is_over()
        seat = state.current_player
        if state.round + 1 >= at_round and seat == 0 and state.phase == Phase.PLACE:
            return state
        state.apply(bots[seat].choose(state.view(seat), state.legal_decisions()))


def tallest_late_game(players: int, at_round: int) -> GameState:
    """Of a few late games, the one whose own grounds are tallest (the hardest to fit)."""

    def height(s: GameState) -> int:
        ys = [c[1] for c in s.grounds[0].cells()]
        return max(ys) - min(ys) + 1

    return max((late_game(players, at_round=at_round, seed=k) for k in range(6)), key=height)


def own_panel(lines: list[str], title: str) -> list[str]:
    """The lines of the frame whose title starts with ``title`` (title line included)."""
    top = next(i for i, line in enumerate(lines) if f"╭─ {title}" in line)
    bottom = next(i for i in range(top + 1, len(lines)) if lines[i].startswith("╰"))
    return lines[top : bottom + 1]


def start(tmp_path: Path, state: GameState) -> Screen:
    names = [{"name": "You"}] + [{"name": f"bot {i}", "bot": "random"} for i in range(1, state.n)]
    (tmp_path / "late.json").write_text(json.dumps(write_record(state, names)))
    return Screen(["play", "--load", "late.json", "--seed", "3"], tmp_path)


def check_screen(scr: Screen, state: GameState, *, kind: str, others: bool = True) -> list[str]:
    """What every prompt's screen must show; returns the screen's lines."""
    lines = scr.lines()
    text = "\n".join(lines)
    assert max(len(line) for line in lines) <= COLS
    # The prompt is on the screen, the question and its keys just above it.
    prompt_row = max(i for i, line in enumerate(lines) if line.startswith(f"{kind}>"))
    assert "? help" in lines[prompt_row - 1]
    panel = own_panel(lines, "> You")
    header = panel[1]
    assert re.fullmatch(r"│\s+(-?\d+\s+)*-?\d+\s*│", header), header  # the column numbers
    # At a turn's first question every other player is on the screen: a frame, or a line
    # that sums the grounds up.
    for i in range(1, state.n if others else 1):
        assert f"bot {i} " in text, (i, text)
    return panel


def elephants_on(panel: list[str]) -> int:
    body = "".join(line for line in panel[2:-1])
    return body.count("@") + body.count("z") + 2 * body.count("&")


@pytest.mark.parametrize(("players", "at_round"), [(2, 38), (5, 18)])
def test_choices_and_elephants_stay_in_view_at_80x24(
    tmp_path: Path, players: int, at_round: int
) -> None:
    state = tallest_late_game(players, at_round)
    scr = start(tmp_path, state)
    try:
        scr.expect("tile> ")
        panel = check_screen(scr, state, kind="tile")
        assert elephants_on(panel) == 2  # both elephants, standing or lying
        assert "pass left" in panel[0] or "passes left" in panel[0]
        lines = scr.lines()
        n_tiles = len({d.take for d in state.legal_decisions() if isinstance(d, Place)})
        menu = "\n".join(lines[lines.index(panel[-1]) + 1 :])
        assert "1)" in menu and f"{n_tiles})" in menu and "Take a tile" in menu
        # v draws every grounds in full (the screen scrolls), then asks again.
        scr.send("v")
        scr.child.expect("tile> ")
        printed = scr.child.before
        scr.stream.feed(printed + scr.child.after)
        for i in range(1, state.n):
            assert f"╭─ bot {i} " in printed, i
        assert not re.search(r"y -?\d+\.\.-?\d+ of", printed)  # no grounds cut in height
        # The target question: every target is numbered in the menu and marked on the grid.
        tries = 0
        kind = "target"
        while True:
            scr.send(str(1 + tries))
            kind = scr.expect(PROMPT).rstrip("> ").strip()
            if kind == "target":
                break
            scr.send("b")  # a tile with a single target goes straight on: try the next one
            scr.expect(PROMPT)
            tries += 1
            assert tries < 5
        panel = check_screen(scr, state, kind="target", others=False)
        lines = scr.lines()
        below = lines[lines.index(panel[-1]) + 1 :]  # the question, its menu, keys, prompt
        assert below[0].startswith("Where does")
        numbers = [int(n) for n in re.findall(r"(?:^|  )(\d+)\) ", "\n".join(below), re.M)]
        assert numbers == list(range(1, len(numbers) + 1)) and numbers, lines
        grid = "\n".join(panel)
        for n in numbers:
            assert f"[{n}]" in grid, (n, grid)
        # Targets never hold an elephant, so both markers are still drawn.
        assert elephants_on(panel) == 2
    finally:
        scr.close()


def test_help_fits_80_columns_and_first_prompt_has_nothing_to_go_back_to(
    tmp_path: Path,
) -> None:
    from kerala.tui.session import HELP

    scr = Screen(["play", "--seed", "5", "--bots", "random"], tmp_path)
    try:
        scr.expect("tile> ")
        keys = scr.lines()[max(i for i, x in enumerate(scr.lines()) if x.startswith("tile>")) - 1]
        assert "b back" not in keys and "? help" in keys
        scr.send("9")
        scr.expect("tile> ")
        assert any("there is no option 9: choose 1 to" in x for x in scr.lines())
        assert not any("b to go back" in x for x in scr.lines())
        scr.send("")  # an empty line is a reminder, not "not understood: ''"
        scr.expect("tile> ")
        assert any("(type a number from 1 to" in x for x in scr.lines())
        assert not any("not understood: ''" in x for x in scr.lines())
        scr.send("?")
        scr.expect("tile> ")
        shown = scr.lines()
        for line in HELP.splitlines():
            assert len(line) <= COLS
            assert line.rstrip() in shown, line  # each help line whole, never wrapped
        scr.send("1")
        scr.expect(PROMPT)
        keys = scr.lines()[
            max(i for i, x in enumerate(scr.lines()) if re.match(r"[a-z0-9-]+>", x)) - 1
        ]
        assert "b back" in keys
    finally:
        scr.close()
