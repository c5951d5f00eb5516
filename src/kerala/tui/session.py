"""One game in the terminal: humans sharing the keyboard against bots (docs/terminal.md).

The session owns the loop: it resolves the bag draws with its own RNG, asks bots for their
decisions from their :class:`~kerala.views.PlayerView` (I1, I2), and asks humans through a
:class:`~kerala.tui.turn.TurnBuilder`; it applies a turn only when it is complete. It also
saves records (``save FILE``), continues them (:func:`load_session`), gives hints and shows the
scoring pad at the end. Nothing it prints contains the bag, the randomly removed tiles or a
seed (docs/rules.md I2).
"""

from __future__ import annotations

import datetime as dt
import json
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.columns import Columns
from rich.console import Console, Group, RenderableType
from rich.text import Text

from kerala.actions import Decision, Place, describe
from kerala.bots import Bot, make_bot
from kerala.clocks import Clock, TimeControl, format_clock
from kerala.errors import KeralaError
from kerala.game import GameState, new_game
from kerala.notation import read_record, write_record
from kerala.tiles import COLOR_LETTER
from kerala.tui.render import (
    LEGEND,
    advice,
    board,
    turn_board,
)
from kerala.tui.turn import Question, TurnBuilder, TurnInputError
from kerala.views import sample_state

HELP = """\
Answer with a number from the menu; the numbers are marked [n] on your grounds.
  p           pass: lay an elephant down (2 passes per game, G3)
  s           skip the move of a special tile you placed (SP1, SP2)
  b           back to the previous question of this turn
  h           hint: the bots' suggestions for this question
  t           the scores so far, as if the game ended now
  v           view every grounds again
  save FILE   write the game record (docs/notation.md) to FILE
  q           quit
  {...}       type the whole turn as JSON (the notation's turn form), e.g.
              {"take": "green:e2", "to": [1, 0], "from": [0, 0]}
Nothing is applied until the turn is complete."""


def keys_line(*, can_pass: bool, can_skip: bool, can_go_back: bool) -> str:
    """The keys that work at this question (``b back`` only when there is a step to undo)."""
    keys = []
    if can_pass:
        keys.append("p pass")
    if can_skip:
        keys.append("s skip")
    if can_go_back:
        keys.append("b back")
    keys += ["h hint", "t scores", "v view", "save FILE", "q quit", "? help"]
    return "  ".join(keys)


END_HELP = "Type save FILE to keep the record of the game, or press Enter to leave."


class QuitGame(Exception):
    """The player asked to leave (or input ended)."""


@dataclass
class Seat:
    """Who plays a seat: a name, and a bot (with its spec) or ``None`` for a human."""

    name: str
    color: str
    bot_spec: str | None = None
    bot: Bot | None = None

    @property
    def label(self) -> str:
        return f"{self.name} ({self.color})"


class Session:
    """A game between the given seats, continued from ``state`` (a new or loaded game)."""

    def __init__(
        self,
        state: GameState,
        seats: Sequence[Seat],
        console: Console,
        *,
        rng: random.Random,
        read_line: Callable[[str], str] | None = None,
        clock: TimeControl | None = None,
        now: Callable[[], dt.datetime] | None = None,
    ) -> None:
        if len(seats) != state.n:
            raise ValueError(f"{len(seats)} seats for a {state.n}-player game")
        self.state = state
        self.seats = list(seats)
        self.console = console
        self.rng = rng
        self.read_line = read_line or self._console_input
        self.names = [s.name for s in seats]
        self._last_place: dict[int, Place] = {}
        #: A time control (``--clock``): each human's time runs on their turn (docs/terminal.md).
        self.now = now or (lambda: dt.datetime.now(dt.UTC))
        self.clock = None if clock is None else Clock.start(clock, state.n, None, self.now())
        #: Seconds each decision took (``None``: unknown), for the record's clock fields.
        self.times: list[float | None] = [None] * sum(len(d) for _, d in state.history())

    def _console_input(self, prompt: str) -> str:
        return self.console.input(Text(prompt, style="bold"))

    def _print(self, *objects: Any, style: str | None = None) -> None:
        self.console.print(*objects, style=style, markup=False, highlight=False)

    # -- the game loop ---------------------------------------------------------------------

    def run(self) -> int:
        """Play to the end (or until the players quit). Returns an exit status."""
        try:
            while not self.state.is_over():
                if self.state.is_chance():
                    self.state.advance_chance(self.rng)
                    continue
                seat = self.state.current_player
                if self.seats[seat].bot is not None:
                    self._bot_turn(seat)
                else:
                    self._human_turn(seat)
            self._game_over()
        except QuitGame:
            self._print("Left the game.")
        except EOFError:
            self._print("Input ended: left the game.")
            return 1
        except KeyboardInterrupt:
            self._print("Interrupted: left the game.")
            return 130
        return 0

    def _bot_turn(self, seat: int) -> None:
        bot = self.seats[seat].bot
        assert bot is not None
        legal = self.state.legal_decisions()
        if self.console.is_terminal and self.seats[seat].bot_spec != "random":
            # A transient line: it is erased once the bot has chosen.
            with self.console.status(f"{self.seats[seat].label} is thinking…"):
                d = bot.choose(self.state.view(seat), legal)
        else:
            d = bot.choose(self.state.view(seat), legal)
        self.state.apply(d)  # checked: a faulty bot cannot break the rules
        self.times.append(None)
        self._log(seat, d)

    def _log(self, seat: int, d: Decision) -> None:
        place = self._last_place.get(seat)
        text = describe(d, place=place)
        if isinstance(d, Place):
            self._last_place[seat] = d
        self._print(Text(f"{self.seats[seat].label} {text}."))

    # -- a human turn ----------------------------------------------------------------------

    def _human_turn(self, seat: int) -> None:
        builder = TurnBuilder(self.state)
        if sum(1 for s in self.seats if s.bot is None) > 1:
            self._print(Text(f"— {self.seats[seat].label}: your turn —", style="bold"))
        self._show_board(builder, full=True)
        if self.clock is not None:
            self.clock.advance(None, seat, self.now())
            self._show_clock(seat)
        while builder.result is None:
            q = builder.question()
            line = self.read_line(f"{q.kind}> ")
            if self._out_of_time(seat):
                return
            before = q
            if not line.strip():
                choose = f"type a number from 1 to {len(q.options)}" if q.options else "answer"
                self._print(Text(f"({choose}, or ? for help)", style="dim"))
                continue
            try:
                if self._command(line, builder):
                    if line.strip().lower() in ("?", "help", "h", "hint", "t", "scores"):
                        self._show_question(q, builder)  # long output: ask again below it
                    continue
                if line.strip().startswith("{"):
                    builder.typed(line.strip())
                else:
                    builder.answer(line)
            except TurnInputError as e:
                self._print(Text(f"! {e}", style="bold red"))
                self._print(Text("Nothing was applied; choose again (? for help).", style="dim"))
                continue
            if builder.note:
                self._print(Text(builder.note, style="italic"))
                builder.note = ""
            if builder.result is None and builder.question() != before:
                self._show_board(builder, full=False)
        used = None
        if self.clock is not None:  # the increment for each decision of the turn
            used = self.clock.advance(seat, None, self.now(), decided=True)
            self.clock.remaining[seat] += self.clock.control.increment * (len(builder.result) - 1)
        for i, d in enumerate(builder.result):
            self.state.apply(d)
            self.times.append(used if i == 0 else (0.0 if used is not None else None))
            self._log(seat, d)

    def _show_clock(self, seat: int) -> None:
        assert self.clock is not None
        now = self.now()
        left = [format_clock(self.clock.left(i, seat, now)) for i in range(len(self.seats))]
        parts = [
            f"{s.label} {'bot' if s.bot is not None else left[i]}" for i, s in enumerate(self.seats)
        ]
        self._print(Text("Clocks: " + " · ".join(parts), style="dim"))

    def _out_of_time(self, seat: int) -> bool:
        """After an answer: if the seat's time has run out, a bot takes it (this turn on)."""
        clock = self.clock
        if clock is None or clock.left(seat, seat, self.now()) > 0:
            return False
        clock.advance(seat, None, self.now())
        clock.timed_out(seat, len(self.times))
        s = self.seats[seat]
        s.bot_spec = clock.control.bot
        s.bot = make_bot(s.bot_spec)
        self._print(
            Text(f"{s.label} ran out of time: the {s.bot_spec} bot plays the seat.", style="bold")
        )
        return True

    def _lines(self, renderable: RenderableType) -> int:
        """How many lines ``renderable`` takes on this console."""
        options = self.console.options.update(width=self.console.size.width)
        return len(self.console.render_lines(renderable, options, pad=False))

    def _show_board(self, builder: TurnBuilder, *, full: bool) -> None:
        """The board and the question, fitted to the window (docs/terminal.md)."""
        q = builder.question()
        width, height = self.console.size
        view = builder.current.view(builder.seat)
        question = self._question(q, builder)
        room = height - self._lines(question) - 1  # the prompt's line
        self._print(
            turn_board(
                view,
                self.names,
                builder.seat,
                width=width,
                height=room,
                marks=q.marks(),
                measure=self._lines,
                others=full,
            )
        )
        self._print(question)

    def _question(self, q: Question, builder: TurnBuilder) -> RenderableType:
        items = [Text(f"{i}) {o.label}", no_wrap=True) for i, o in enumerate(q.options, 1)]
        if q.can_pass:
            items.append(Text("p) pass"))
        if q.can_skip:
            items.append(Text("s) skip"))
        keys = keys_line(can_pass=q.can_pass, can_skip=q.can_skip, can_go_back=builder.can_go_back)
        return Group(
            Text(q.title, style="bold"),
            Columns(items, padding=(0, 2)),
            Text(keys, style="dim"),
        )

    def _show_question(self, q: Question, builder: TurnBuilder) -> None:
        self._print(self._question(q, builder))

    def _command(self, line: str, builder: TurnBuilder) -> bool:
        """Handle a command that is not a choice; ``True`` if ``line`` was one."""
        word = line.strip()
        low = word.lower()
        if low in ("?", "help"):
            self._print(Text(HELP))
            self._print(Text(LEGEND, style="dim"))
        elif low in ("h", "hint"):
            self._hint(builder)
        elif low in ("t", "scores"):
            self._scores(self.state, "Scores so far (if the game ended now)")
        elif low in ("v", "view"):
            # Every grounds in full (the screen scrolls), then the question again.
            q = builder.question()
            self._print(
                board(
                    builder.current.view(builder.seat),
                    self.names,
                    width=self.console.size.width,
                    height=10_000,
                    focus_seat=builder.seat,
                    marks=q.marks(),
                    full=True,
                )
            )
            self._show_question(q, builder)
        elif low in ("q", "quit"):
            answer = self.read_line("quit without saving? (y/n)> ").strip().lower()
            if answer in ("y", "yes"):
                raise QuitGame
        elif low == "save" or low.startswith("save "):
            self._save(word[4:].strip())
        else:
            return False
        return True

    # -- hints, scores, records ------------------------------------------------------------

    def _hint(self, builder: TurnBuilder) -> None:
        try:
            from kerala.bots.hints import suggest
        except ImportError as e:
            # The hint interface is optional: the game goes on without it.
            missing = getattr(e, "name", None) or "kerala.bots.hints"
            self._print(Text(f"Hints are not available: {missing} could not be loaded."))
            return
        state = builder.current
        self._print(Text("Thinking about a hint…", style="dim"))
        tips = suggest(state.view(builder.seat), builder.current_legal, k=3, budget=0.5)
        if not tips:
            self._print(Text("No hint for this question."))
        for i, (d, value) in enumerate(tips, 1):
            self._print(Text(f"hint {i}: {advice(d)} (win chance about {value:.0%})"))
            self._print(Text("  as JSON: " + json.dumps(d.to_json()), style="dim"))

    def _scores(self, state: GameState, title: str) -> None:
        from kerala.console import scoring_pad

        scores = state.scores()
        table = scoring_pad(
            [
                (f"{s.name}\n{COLOR_LETTER[s.color]}={s.color}", b)
                for s, b in zip(self.seats, scores, strict=True)
            ]
        )
        table.title = title
        table.columns[0].no_wrap = True  # with 5 players the names wrap, not the row labels
        # The names are text, never markup (a name may hold brackets).
        self.console.print(table, markup=True, highlight=False)

    def record(self) -> dict[str, Any]:
        """The game so far as a docs/notation.md record (no randomly removed tiles mid-game, I2)."""
        players: list[dict[str, Any]] = []
        for s in self.seats:
            p: dict[str, Any] = {"name": s.name}
            if s.bot_spec is not None:
                p["bot"] = s.bot_spec
            players.append(p)
        if self.clock is None:
            return write_record(self.state, players)
        clock = {**self.clock.control.to_json(), "events": self.clock.log}
        return write_record(self.state, players, clock=clock, times=self.times)

    def _save(self, name: str) -> None:
        if not name:
            self._print(Text("! save needs a file name, e.g. save game.json", style="bold red"))
            return
        path = Path(name).expanduser()
        try:
            path.write_text(json.dumps(self.record(), indent=1) + "\n", encoding="utf-8")
        except OSError as e:
            reason = e.strerror or str(e)
            self._print(Text(f"! cannot save to {name}: {reason}", style="bold red"))
            return
        self._print(Text(f"Saved the game to {path}.", style="green"))

    # -- the end ---------------------------------------------------------------------------

    def _game_over(self) -> None:
        state = self.state
        scores = state.scores()
        width = self.console.size.width
        self._print(Text("Game over. Removed surplus cells are marked x (SC1).", style="bold"))
        self._print(
            board(
                state.view(None),
                self.names,
                width=width,
                height=200,  # the final grounds in full height: the end screen may scroll
                focus_seat=None,
                removed={i: b.removed_cells for i, b in enumerate(scores)},
            )
        )
        self._scores(state, "Scoring pad")
        ranks = state.ranks()
        order = sorted(range(state.n), key=lambda i: ranks[i])
        self._print(
            Text(
                "Final placing: "
                + ", ".join(f"{ranks[i]}. {self.seats[i].label} {scores[i].total}" for i in order),
                style="bold",
            )
        )
        self._print(Text(END_HELP, style="dim"))
        while True:
            try:
                line = self.read_line("end> ").strip()
            except EOFError:
                return
            if not line or line.lower() in ("q", "quit"):
                return
            if line.lower() == "save" or line.lower().startswith("save "):
                self._save(line[4:].strip())
            else:
                self._print(Text(f"! not understood: {line!r}. {END_HELP}", style="bold red"))


# -- setting up ------------------------------------------------------------------------------


def default_bot_spec() -> str:
    """``easy`` when the bot levels are installed, else ``random``."""
    from kerala.bots import bot_names

    return "easy" if "easy" in bot_names() else "random"


def _bot_seed(seed: int | None, seat: int) -> int | None:
    if seed is None:
        return None
    return random.Random(f"kerala-tui:{seed}:{seat}").getrandbits(63)


def fresh_rng(seed: int | None) -> random.Random:
    """The RNG of the draws: seeded by ``--seed``, else from the operating system."""
    if seed is None:
        return random.Random(random.SystemRandom().getrandbits(64))
    return random.Random(seed)


def new_session(
    console: Console,
    *,
    colors: Sequence[str],
    names: Sequence[str],
    bot_specs: Sequence[str | None],
    seed: int | None,
    read_line: Callable[[str], str] | None = None,
    clock: TimeControl | None = None,
    now: Callable[[], dt.datetime] | None = None,
) -> Session:
    """A new game; ``bot_specs[i]`` is ``None`` for a human seat; ``clock``: a time control."""
    rng = fresh_rng(seed)
    state = new_game(list(colors), rng=rng)
    seats = [
        Seat(name, color, spec, make_bot(spec, seed=_bot_seed(seed, i)) if spec else None)
        for i, (name, color, spec) in enumerate(zip(names, colors, bot_specs, strict=True))
    ]
    return Session(state, seats, console, rng=rng, read_line=read_line, clock=clock, now=now)


def load_session(
    console: Console,
    text: str,
    *,
    seed: int | None,
    read_line: Callable[[str], str] | None = None,
) -> Session:
    """Continue a saved record: its players (``bot`` entries play as bots), its position.

    A record saved mid-game does not say which tiles were removed at random (I2), so the hidden
    tiles are drawn again at random, consistently with every tile already seen; the RNG comes
    from ``seed`` or from the operating system. Raises :class:`KeralaError` on a bad record.
    """
    rec = read_record(text)
    state = rec.state
    if state.is_over():
        raise KeralaError("the record's game is already over: nothing is left to play")
    rng = fresh_rng(seed)
    if state.removal == "random" and not state.removal_known:
        state = sample_state(state.view(None), rng)
    state.use_rng(rng)
    seats = []
    for i, p in enumerate(rec.players):
        spec = p.get("bot")
        seats.append(
            Seat(
                p["name"],
                p["color"],
                spec,
                make_bot(spec, seed=_bot_seed(seed, i)) if spec else None,
            )
        )
    return Session(state, seats, console, rng=rng, read_line=read_line)
