"""``kerala play`` driven through a real pseudo-terminal (pexpect), 80×24.

Each test starts the real program (``python -m kerala play``) and types at it like a player.
"""

from __future__ import annotations

import io
import json
import os
import re
import sys
from pathlib import Path

import pexpect
import pytest

from kerala.bots import bot_names
from kerala.notation import read_record

PROMPT = r"(tile|target|elephant|edge|sp1-elephant|sp1-to|sp2-from|sp2-to)> "
END = "end> "
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
SGR = re.compile(r"\x1b\[([0-9;]*)m")
BOT = "easy" if "easy" in bot_names() else "random"


def spawn(
    args: list[str], cwd: Path, *, no_color: bool = False
) -> tuple[pexpect.spawn, io.StringIO]:
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    env.update(COLUMNS="80", LINES="24", TERM="xterm-256color", PYTHONUNBUFFERED="1")
    if no_color:
        env["NO_COLOR"] = "1"
    child = pexpect.spawn(
        sys.executable,
        ["-m", "kerala", "play", *args],
        env=env,
        cwd=str(cwd),
        encoding="utf-8",
        dimensions=(24, 80),
        timeout=60,
    )
    log = io.StringIO()
    child.logfile_read = log
    return child, log


def plain(text: str) -> str:
    return ANSI.sub("", text).replace("\r", "")


def color_codes(text: str) -> list[str]:
    """The SGR parameters in ``text`` that set a foreground or background color."""
    found = []
    for m in SGR.finditer(text):
        params = [p for p in m.group(1).split(";") if p]
        i = 0
        while i < len(params):
            p = int(params[i])
            if p in (38, 48):
                found.append(params[i])
                i += 5 if i + 1 < len(params) and params[i + 1] == "2" else 3
                continue
            if 30 <= p <= 37 or 40 <= p <= 47 or 90 <= p <= 97 or 100 <= p <= 107:
                found.append(params[i])
            i += 1
    return found


def play_to_end(child: pexpect.spawn) -> int:
    """Answer 1 at every question until the end screen; returns how many answers."""
    answers = 0
    while True:
        i = child.expect([PROMPT, END])
        if i == 1:
            return answers
        child.sendline("1")
        answers += 1


def check_full_game(tmp_path: Path, *, no_color: bool) -> str:
    child, log = spawn(["--seed", "11", "--bots", BOT], tmp_path, no_color=no_color)
    answers = play_to_end(child)
    # Issue 14: the end prompt says what it takes.
    assert "Type save FILE to keep the record of the game, or press Enter to leave." in plain(
        child.before
    )
    child.sendline("save final.json")
    child.expect("Saved the game")
    child.expect(END)
    child.sendline("")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert answers >= 40  # 40 rounds, one turn each, at least one answer per turn
    out = plain(log.getvalue())
    assert "Scoring pad" in out and "Final placing:" in out
    assert "Removed surplus cells are marked x (SC1)" in out
    for line in out.split("\n"):
        assert len(line) <= 80, line
    rec = read_record((tmp_path / "final.json").read_text())
    assert rec.state.is_over()
    # The table printed is the engine's scoring (SC6): every total appears on the total row.
    totals = [s.total for s in rec.state.scores()]
    total_row = next(line for line in out.split("\n") if line.strip("│ ").startswith("total"))
    assert [int(x) for x in re.findall(r"-?\d+", total_row)] == totals
    # The removed surplus cells (SC1) are drawn marked with x on the final grounds, in place
    # of the height, never over an elephant marker (issue 14).
    if any(s.removed_cells for s in rec.state.scores()):
        final_board = out[out.index("Removed surplus cells") :]
        assert re.search(r"[BKGRP]([123sET]x|[\^>v<][bkgrp]x|x[bkgrp][@z&])", final_board)
        assert not re.search(r"[BKGRP][123sET][ 0-9+]x", final_board)
    return log.getvalue()


def test_full_game_against_a_bot_to_the_scoring_pad(tmp_path: Path) -> None:
    raw = check_full_game(tmp_path, no_color=False)
    assert color_codes(raw), "grounds are drawn in color on a color terminal"


def test_full_game_without_color(tmp_path: Path) -> None:
    raw = check_full_game(tmp_path, no_color=True)
    assert color_codes(raw) == []
    # Colors are still told by letters: the status line names the display's tiles.
    assert re.search(r"display: [BKGRP]", plain(raw))


def _record(path: Path) -> dict[str, object]:
    doc: dict[str, object] = json.loads(path.read_text())
    return doc


def test_bad_input_explains_and_applies_nothing(tmp_path: Path) -> None:
    child, log = spawn(["--seed", "5", "--bots", "random"], tmp_path)
    child.expect("tile> ")
    child.sendline("save start.json")
    child.expect("Saved the game")
    child.expect("tile> ")
    start = _record(tmp_path / "start.json")
    drawn = start["rounds"][0]["drawn"]  # type: ignore[index]
    for bad, explained in [
        ("9", "there is no option 9: choose 1 to"),
        ("hello", "not understood: 'hello'"),
        ("b", "nothing to go back to"),
        ("s", "there is nothing to skip now"),
        ('{"take": "blue:e9"', "malformed JSON"),
        ('{"take": "blue:e9", "to": [0, 1], "from": [0, 0]}', 'unknown tile "blue:e9"'),
        (
            json.dumps(
                {"take": drawn[0], "to": [3, 3], "from": [0, 0], "arch": "N"}
                if ":arch-" in drawn[0]
                else {"take": drawn[0], "to": [3, 3], "from": [0, 0]}
            ),
            "P1: [3, 3] is not orthogonally adjacent to [0, 0]",
        ),
        (json.dumps({"seat": 1, "pass": True}), "G2: it is seat 0's turn"),
        ("save", "save needs a file name"),
        ("save /nonexistent-dir/x.json", "cannot save to /nonexistent-dir/x.json"),
    ]:
        child.sendline(bad)
        child.expect_exact(explained)
        child.expect("tile> ")
    # A choice half made is not applied either: pick a tile and a bad target, then go back.
    child.sendline("1")
    child.expect("target> ")
    child.sendline("0")
    child.expect_exact("there is no option 0")
    child.expect("target> ")
    child.sendline("b")
    child.expect("tile> ")
    child.sendline("save after.json")
    child.expect("Saved the game")
    child.expect("tile> ")
    assert _record(tmp_path / "after.json") == start
    child.sendline("q")
    child.expect_exact("quit without saving? (y/n)> ")
    child.sendline("y")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert "Nothing was applied" in plain(log.getvalue())


def test_typed_json_turn_is_accepted(tmp_path: Path) -> None:
    child, _ = spawn(["--seed", "5", "--bots", "random"], tmp_path)
    child.expect("tile> ")
    child.sendline("save start.json")
    child.expect("tile> ")
    drawn = _record(tmp_path / "start.json")["rounds"][0]["drawn"]  # type: ignore[index]
    plain_tile = next(t for t in drawn if "arch" not in t and "move" not in t)
    # The hint key asks the bots' hint interface and shows its picks as JSON too.
    child.sendline("h")
    child.expect("hint 1: ")
    child.expect_exact("as JSON: {")
    child.expect("tile> ")
    turn = {"take": plain_tile, "to": [-1, 0], "from": [0, 0]}
    child.sendline(json.dumps(turn))
    child.expect("tile> ")  # the bot moved, the next round is ours again
    child.sendline("save after.json")
    child.expect("Saved the game")
    child.expect("tile> ")
    after = _record(tmp_path / "after.json")
    assert after["rounds"][0]["turns"][0] == {"seat": 0, **turn}  # type: ignore[index]
    child.sendline("q")
    child.sendline("y")
    child.expect(pexpect.EOF)


def test_save_and_load_round_trip(tmp_path: Path) -> None:
    child, _ = spawn(["--seed", "21", "--bots", "random"], tmp_path)
    for _ in range(12):
        child.expect(PROMPT)
        child.sendline("1")
    # Finish the turn in progress, then save at the start of the next one.
    while child.expect(["tile> ", PROMPT]) != 0:
        child.sendline("1")
    child.sendline("save mid.json")
    child.expect("Saved the game")
    child.sendline("q")
    child.sendline("y")
    child.expect(pexpect.EOF)
    mid = _record(tmp_path / "mid.json")
    assert "removed" not in mid  # a game in progress keeps the removed tiles hidden (I2)

    child, _ = spawn(["--load", "mid.json", "--seed", "4"], tmp_path)
    child.expect("tile> ")
    child.sendline("save again.json")
    child.expect("Saved the game")
    child.expect("tile> ")
    assert _record(tmp_path / "again.json") == mid
    # The loaded game goes on from there: one more turn extends the same record.
    child.sendline("p")
    child.expect(PROMPT)
    child.sendline("save later.json")
    child.expect("Saved the game")
    later = _record(tmp_path / "later.json")
    rounds_mid = mid["rounds"]
    rounds_later = later["rounds"]
    assert isinstance(rounds_mid, list) and isinstance(rounds_later, list)
    assert rounds_later[: len(rounds_mid) - 1] == rounds_mid[:-1]
    assert (
        rounds_later[len(rounds_mid) - 1]["turns"][: len(rounds_mid[-1]["turns"])]
        == (rounds_mid[-1]["turns"])
    )
    assert {"seat": 0, "pass": True} in rounds_later[len(rounds_mid) - 1]["turns"]
    child.sendline("q")
    child.sendline("y")
    child.expect(pexpect.EOF)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--players", "6"], "--players"),
        (["--bots", "nosuchbot"], "--bots: unknown bot 'nosuchbot'"),
        (["--players", "3", "--bots", "random,random,random"], "--bots lists 3 bots"),
        (["--colors", "blue,blue"], "distinct color"),
        (["--load", "missing.json"], "--load missing.json: no such file"),
        (["--load", "."], "error: --load .: is a folder, not a file"),
        (["--load", "x.json", "--bots", "random"], "leave out --bots"),
        # issue 14: counts agree with their nouns
        (
            ["--players", "3", "--humans", "2", "--bots", "random,random"],
            "error: --bots lists 2 bots, but 3 players with 2 humans leave 1 bot seat: ",
        ),
        (
            ["--players", "3", "--humans", "1", "--bots", "random,random,random"],
            "error: --bots lists 3 bots, but 3 players with 1 human leave 2 bot seats: ",
        ),
        (["--players", "1"], "error: invalid value for '--players': "),
    ],
)
def test_bad_options_are_refused(tmp_path: Path, args: list[str], message: str) -> None:
    child, log = spawn(args, tmp_path)
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 2
    assert message in plain(log.getvalue()).replace("\n", " ")
