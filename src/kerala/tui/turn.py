"""Building one human turn from menu choices or a typed docs/notation.md turn.

A :class:`TurnBuilder` asks a series of questions (tile, target, elephant, arch edge, special
follow-up) whose options all come from the engine's ``legal_decisions()``; it never decides a
rule itself. Nothing touches the real game until the whole turn is chosen: the follow-up of a
special tile is chosen on a copy of the state with the placement applied, and the finished
turn (``builder.result``) is a list of one or two decisions for the caller to apply.

>>> from kerala.game import new_game
>>> s = new_game(["blue", "red"], seed=7); s.advance_chance()
>>> b = TurnBuilder(s)
>>> b.question().kind
'tile'
>>> b.answer("1"); b.question().kind
'target'
>>> b.answer("9")
Traceback (most recent call last):
...
kerala.tui.turn.TurnInputError: there is no option 9: choose 1 to 4, or b to go back
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Any

from kerala.actions import (
    Decision,
    DecisionSyntaxError,
    FollowUpSkip,
    MoveElephant,
    MoveStack,
    Pass,
    Place,
    decision_from_json,
    turn_from_json,
)
from kerala.errors import IllegalDecisionError, KeralaError
from kerala.game import GameState, Phase
from kerala.gridtext import tile_code as grid_code
from kerala.tiles import EDGE_DELTA, EDGES, MOVE_ELEPHANT, TileType
from kerala.tui.render import fmt_cell, tile_code, tile_words

Cell = tuple[int, int]


class TurnInputError(KeralaError):
    """What a player typed cannot be used here; the message says why. Nothing was applied."""


@dataclass(frozen=True)
class Option:
    """One numbered choice: its label, the cell it marks on the grounds (if any), its value."""

    label: str
    cell: Cell | None
    value: Any


@dataclass(frozen=True)
class Question:
    """What the player is asked now."""

    kind: str  # tile, target, elephant, edge, sp1-elephant, sp1-to, sp2-from, sp2-to
    title: str
    options: tuple[Option, ...]
    can_pass: bool = False
    can_skip: bool = False
    highlight: Cell | None = None

    def marks(self) -> dict[Cell, str]:
        """Cells to mark on the grounds: the option numbers, or ``*`` for the chosen target."""
        out: dict[Cell, str] = {}
        if self.highlight is not None:
            out[self.highlight] = "*"
        for i, o in enumerate(self.options, 1):
            if o.cell is not None:
                out.setdefault(o.cell, str(i))
        return out


@dataclass
class _Choice:
    tile: TileType | None = None
    to: Cell | None = None
    from_: Cell | None = None
    place: Place | None = None
    sp_from: Cell | None = None


class TurnBuilder:
    """The questions of one turn for the player to move in ``state`` (PLACE or FOLLOW_UP)."""

    def __init__(self, state: GameState) -> None:
        if state.to_move is None:
            raise ValueError("no player is to move")
        self.state = state
        self.seat = state.to_move
        self.legal = state.legal_decisions()
        self.result: list[Decision] | None = None
        self.note = ""
        self._c = _Choice()
        self._preview: GameState | None = None
        self._preview_legal: list[Decision] = []
        self._undo: list[tuple[_Choice, GameState | None, list[Decision]]] = []
        if state.phase == Phase.FOLLOW_UP:
            # A loaded record may stop before a follow-up (docs/notation.md "follow_up": "pending").
            self._preview = state
            self._preview_legal = self.legal
            self._check_follow_up_possible()

    # -- the grounds the questions are about -----------------------------------------------

    @property
    def current(self) -> GameState:
        """The state the questions refer to: the real one, or the preview after a placement."""
        return self._preview if self._preview is not None else self.state

    @property
    def current_legal(self) -> list[Decision]:
        return self._preview_legal if self._preview is not None else self.legal

    # -- questions -------------------------------------------------------------------------

    def question(self) -> Question:
        c = self._c
        if self._preview is not None:
            return self._follow_up_question()
        places = [d for d in self.legal if isinstance(d, Place)]
        can_pass = Pass(self.seat) in self.legal
        if c.tile is None:
            tiles = list(dict.fromkeys(d.take for d in places))
            return Question(
                "tile",
                "Take a tile from the display",
                tuple(Option(tile_words(t), None, t) for t in tiles),
                can_pass=can_pass,
            )
        mine = [d for d in places if d.take is c.tile]
        if c.to is None:
            targets = sorted({d.to for d in mine}, key=lambda p: (p[1], p[0]))
            return Question(
                "target",
                f"Where does {tile_code(c.tile)} go?",
                tuple(Option(self._target_label(t), t, t) for t in targets),
                can_pass=can_pass,
            )
        here = [d for d in mine if d.to == c.to]
        if c.from_ is None:
            froms = sorted({d.from_ for d in here}, key=lambda p: (p[1], p[0]))
            return Question(
                "elephant",
                f"Which elephant moves onto {fmt_cell(c.to)}?",
                tuple(Option(f"the elephant on {fmt_cell(f)}", f, f) for f in froms),
                can_pass=can_pass,
                highlight=c.to,
            )
        edges = [d.arch for d in here if d.from_ == c.from_ and d.arch is not None]
        return Question(
            "edge",
            f"Which edge does the arch of {tile_code(c.tile)} face? (number or N/E/S/W)",
            tuple(Option(self._edge_label(c.to, e), None, e) for e in EDGES if e in edges),
            can_pass=can_pass,
            highlight=c.to,
        )

    def _target_label(self, to: Cell) -> str:
        g = self.state.grounds[self.seat]
        s = g.stack(to)
        if not s:
            return f"{fmt_cell(to)} empty"
        t, edge = s[-1]
        high = f" ({len(s)} high)" if len(s) > 1 else ""
        return f"{fmt_cell(to)} on {grid_code(t, edge)}{high}"

    def _edge_label(self, to: Cell, edge: str) -> str:
        dx, dy = EDGE_DELTA[edge]
        n = (to[0] + dx, to[1] + dy)
        s = self.state.grounds[self.seat].stack(n)
        faces = f"{tile_code(s[-1][0])} {s[-1][0].color}" if s else "nothing yet"
        return f"{edge}: faces {fmt_cell(n)}, {faces}"

    def _follow_up_question(self) -> Question:
        c = self._c
        legal = self._preview_legal
        assert self._preview is not None
        special = self._preview.pending
        if special == MOVE_ELEPHANT:
            moves = [d for d in legal if isinstance(d, MoveElephant)]
            if c.sp_from is None:
                froms = sorted({d.from_ for d in moves}, key=lambda p: (p[1], p[0]))
                return Question(
                    "sp1-elephant",
                    "Move elephant (SP1): which elephant moves? (s to skip)",
                    tuple(Option(f"the elephant on {self._stack_label(f)}", f, f) for f in froms),
                    can_skip=True,
                )
            tos = sorted({d.to for d in moves if d.from_ == c.sp_from}, key=lambda p: (p[1], p[0]))
            return Question(
                "sp1-to",
                f"Move the elephant on {fmt_cell(c.sp_from)} to which stack?",
                tuple(Option(self._stack_label(t), t, t) for t in tos),
                can_skip=True,
                highlight=c.sp_from,
            )
        stacks = [d for d in legal if isinstance(d, MoveStack)]
        if c.sp_from is None:
            froms = sorted({d.from_ for d in stacks}, key=lambda p: (p[1], p[0]))
            return Question(
                "sp2-from",
                "Move tile (SP2): which stack moves? (s to skip)",
                tuple(Option(self._stack_label(f), f, f) for f in froms),
                can_skip=True,
            )
        tos = sorted({d.to for d in stacks if d.from_ == c.sp_from}, key=lambda p: (p[1], p[0]))
        return Question(
            "sp2-to",
            f"Move the stack on {fmt_cell(c.sp_from)} to which empty cell?",
            tuple(Option(fmt_cell(t), t, t) for t in tos),
            can_skip=True,
            highlight=c.sp_from,
        )

    def _stack_label(self, at: Cell) -> str:
        """``(x, y)`` and the code of the tile on top: ``(3, -2) G2``, an arch ``(0, 1) R>k``."""
        s = self.current.grounds[self.seat].stack(at)
        if not s:
            return fmt_cell(at)
        t, edge = s[-1]
        return f"{fmt_cell(at)} {grid_code(t, edge)}"

    # -- answers ---------------------------------------------------------------------------

    def answer(self, text: str) -> None:
        """Take one answer (a number, N/E/S/W at the edge question, p, s or b).

        Raises :class:`TurnInputError` when it cannot be used; then nothing changed.
        """
        if self.result is not None:
            raise TurnInputError("this turn is already complete")
        word = text.strip()
        low = word.lower()
        q = self.question()
        if low in ("p", "pass"):
            if not q.can_pass:
                if self._preview is not None:
                    raise TurnInputError("the tile is placed: move (a number) or skip (s)")
                raise TurnInputError("you have no passes left: both elephants lie (G3)")
            self._finish([Pass(self.seat)])
            return
        snapshot = (replace(self._c), self._preview, self._preview_legal)
        if low in ("s", "skip"):
            if not q.can_skip:
                raise TurnInputError("there is nothing to skip now (s skips a special tile)")
            assert self._preview is not None
            self._finish_follow_up(FollowUpSkip(self.seat))
            return
        if low in ("b", "back"):
            if not self.back():
                raise TurnInputError("nothing to go back to: this is the turn's first question")
            return
        if q.kind == "edge" and word.upper() in EDGES:
            values = [o.value for o in q.options]
            if word.upper() not in values:
                raise TurnInputError(f"edge {word.upper()} is not possible here")
            self._choose_or_restore(q, values.index(word.upper()), snapshot)
            return
        if not word:
            raise TurnInputError(f"type a number from 1 to {len(q.options)}, or ? for help")
        if not word.isdigit():
            raise TurnInputError(
                f"not understood: {word!r}; type a number from the menu, ? for help"
            )
        n = int(word)
        if not 1 <= n <= len(q.options):
            back = ", or b to go back" if self.can_go_back else ""
            raise TurnInputError(f"there is no option {n}: choose 1 to {len(q.options)}{back}")
        self._choose_or_restore(q, n - 1, snapshot)

    def _choose_or_restore(
        self, q: Question, i: int, snapshot: tuple[_Choice, GameState | None, list[Decision]]
    ) -> None:
        try:
            self._choose(q, i)
        except TurnInputError:
            self._c, self._preview, self._preview_legal = snapshot
            raise
        if self.result is None:
            self._undo.append(snapshot)

    def _choose(self, q: Question, i: int) -> None:
        c = self._c
        v = q.options[i].value
        if q.kind == "tile":
            c.tile = v
        elif q.kind == "target":
            c.to = v
            froms = {
                d.from_
                for d in self.legal
                if isinstance(d, Place) and d.take is c.tile and d.to == v
            }
            if len(froms) == 1:
                c.from_ = next(iter(froms))
                self._maybe_place()
        elif q.kind == "elephant":
            c.from_ = v
            self._maybe_place()
        elif q.kind == "edge":
            self._place(v)
        elif q.kind in ("sp1-elephant", "sp2-from"):
            c.sp_from = v
        elif q.kind == "sp1-to":
            assert c.sp_from is not None
            self._finish_follow_up(MoveElephant(seat=self.seat, from_=c.sp_from, to=v))
        elif q.kind == "sp2-to":
            assert c.sp_from is not None
            self._finish_follow_up(MoveStack(seat=self.seat, from_=c.sp_from, to=v))

    def _maybe_place(self) -> None:
        c = self._c
        assert c.tile is not None
        if not c.tile.is_arch:
            self._place(None)

    def _place(self, edge: str | None) -> None:
        c = self._c
        assert c.tile is not None and c.to is not None and c.from_ is not None
        self._set_place(Place(seat=self.seat, take=c.tile, to=c.to, from_=c.from_, arch=edge))

    def _set_place(self, place: Place, *, auto_skip: bool = True) -> None:
        """Fix the placement: finish the turn, or preview it to ask for the follow-up."""
        self._check_on_copy(self.state, place)
        self._c.place = place
        if place.take.special is None:
            self._finish([place])
            return
        preview = self.state.copy(with_rng=False)
        preview.apply(place)
        self._preview = preview
        self._preview_legal = preview.legal_decisions()
        if auto_skip:
            self._check_follow_up_possible()

    def _check_follow_up_possible(self) -> None:
        if all(isinstance(d, FollowUpSkip) for d in self._preview_legal):
            self.note = "no move is possible for this special tile: its follow-up is skipped"
            self._finish_follow_up(FollowUpSkip(self.seat))

    def _finish_follow_up(self, d: Decision) -> None:
        assert self._preview is not None
        self._check_on_copy(self._preview, d)
        if self._preview is self.state:
            self._finish([d])
        else:
            assert self._c.place is not None
            self._finish([self._c.place, d])

    def _finish(self, decisions: list[Decision]) -> None:
        self.result = decisions

    @staticmethod
    def _check_on_copy(state: GameState, d: Decision) -> None:
        try:
            state.copy(with_rng=False).apply(d)
        except IllegalDecisionError as e:
            raise TurnInputError(f"not legal: {e}") from None

    @property
    def can_go_back(self) -> bool:
        """Whether an answer of this turn can be undone (``b``)."""
        return bool(self._undo)

    def back(self) -> bool:
        """Undo the last answer of this turn; ``False`` when there is none."""
        if not self._undo:
            return False
        self._c, self._preview, self._preview_legal = self._undo.pop()
        return True

    # -- typed turns -----------------------------------------------------------------------

    def typed(self, text: str) -> None:
        """Take a whole turn (or, after a placed special tile, its follow-up) typed as JSON.

        The turn form of docs/notation.md: ``{"seat": 0, "take": "green:e2", "to": [1, 0],
        "from": [0, 0]}``, optionally with ``"move_elephant"``/``"move_stack"``; ``"seat"``
        may be left out. A placed special tile without a follow-up field asks for it next.
        """
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as e:
            # json's own messages may end in "at" ("Unterminated string starting at").
            at = "" if e.msg.endswith(" at") else " at"
            raise TurnInputError(f"malformed JSON: {e.msg}{at} column {e.colno}") from None
        if not isinstance(obj, dict):
            raise TurnInputError("a typed turn must be a JSON object {...}")
        obj = dict(obj)
        obj.setdefault("seat", self.seat)
        if "follow_up" in obj:
            raise TurnInputError("'follow_up' belongs in saved records, not in a typed turn")
        try:
            if self._preview is not None:
                d = decision_from_json(obj)
                if not isinstance(d, MoveElephant | MoveStack | FollowUpSkip):
                    raise TurnInputError(
                        'the tile is placed: type its follow-up, e.g. {"skip": true}'
                    )
                self._finish_follow_up(d)
                return
            d, follow = turn_from_json(obj)
        except DecisionSyntaxError as e:
            raise TurnInputError(f"not a turn: {e}") from None
        if isinstance(d, Pass):
            self._check_on_copy(self.state, d)
            self._finish([d])
            return
        saved = (self._c, self._preview, self._preview_legal)
        self._c = _Choice(tile=d.take, to=d.to, from_=d.from_)
        try:
            self._set_place(d, auto_skip=follow is None)
            if follow is not None:
                self._finish_follow_up(follow)
        except TurnInputError:
            self._c, self._preview, self._preview_legal = saved
            self.result = None
            raise
        if self.result is None:
            self._undo.append(saved)
