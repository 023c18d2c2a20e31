"""Games and matches: the opening roll, turns, the cube, resignations and scoring.

A :class:`Match` owns the game being played and checks every action against the rules
before changing anything, so an illegal action raises and leaves the match as it was.
Checker movement is the kernel's (:mod:`gammon.movegen` through :class:`LegalPlays`);
the rules above the board (the opening roll, the cube, scoring, Crawford) are the
referee's (:mod:`gammon.referee`); this module keeps the game's state and its history. Money play is a match of length 0: games
are scored one after another and the session never ends.

>>> from gammon.dice import FixedDice
>>> match = Match(3, dice=FixedDice([(3, 1), (6, 5)]))
>>> match.roll()  # the opening roll: white's 3 beats black's 1, so white plays 3-1
(3, 1)
>>> match.play("8/5 6/5")
Play(moves=(Move(source=8, target=5, hit=False), Move(source=6, target=5, hit=False)))
>>> match.double()
>>> match.take()
>>> match.state.cube, match.state.cube_owner
(2, Color.WHITE)
"""

from __future__ import annotations

import dataclasses
import enum
import itertools
import numbers
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np

from . import movegen
from .dice import DiceSource, SeededDice
from .events import (
    ActionKind,
    Beavered,
    Doubled,
    Dropped,
    GameOver,
    GameStarted,
    MatchEvent,
    MatchOver,
    OpeningRolled,
    Played,
    Resigned,
    ResignationAccepted,
    ResignationRejected,
    Rolled,
    Took,
)
from .errors import (
    AmbiguousPlayError,
    CubeActionError,
    IllegalActionError,
    IllegalPlayError,
    InvalidMoveError,
    NotYourTurnError,
)
from .play import BAR, OFF, Move, Play, apply_moves
from .position import CHECKERS, Color, LegalPlays, Position
from .referee import (
    CubeState,
    MatchScore,
    WinKind,
    beaver_refusal,
    double_refusal,
    dropped_points,
    opening_roll,
    opening_winner,
    points_won,
)
from .state import GameState, GameStatus, Resignation
from .variant import STANDARD, Variant

__all__ = ["Action", "ActionKind", "GameResult", "Match", "PlayerAction", "WinKind"]


@dataclass(frozen=True, slots=True)
class GameResult:
    """How a game ended: who won, how many points, and whether by bearing off, resignation or drop."""

    winner: Color
    points: int
    kind: WinKind
    cube: int
    ended: GameStatus = GameStatus.OVER  #: OVER (borne off), RESIGNED or DROPPED

    @property
    def resigned(self) -> bool:
        return self.ended == GameStatus.RESIGNED

    @property
    def dropped(self) -> bool:
        return self.ended == GameStatus.DROPPED

    @property
    def detail(self) -> str:
        """What kind of win, in words: ``gammon``, ``single game, resigned``, ``double dropped``."""
        kind = "single game" if self.kind == WinKind.SINGLE else self.kind.name.lower()
        return {GameStatus.RESIGNED: f"{kind}, resigned", GameStatus.DROPPED: "double dropped"}.get(self.ended, kind)

    def __str__(self) -> str:
        unit = "point" if self.points == 1 else "points"
        return f"{self.winner.name.lower()} wins {self.points} {unit} ({self.detail})"


class PlayerAction(enum.StrEnum):
    """What a side may do on its turn: the one vocabulary of actions that the server's API,
    play by mail, the terminal and the web pages take from."""

    ROLL = "roll"
    PLAY = "play"
    DOUBLE = "double"
    TAKE = "take"
    DROP = "drop"
    BEAVER = "beaver"
    RESIGN = "resign"
    ACCEPT = "accept"
    REJECT = "reject"


@dataclass(frozen=True, slots=True)
class Action:
    """One step of a match's history, enough to replay it without a dice source.

    Its text form is one line (``white roll 3-1``, ``white play 8/5 6/5*``, ``black resign
    gammon``) so a server can store a match as lines and :meth:`Match.replay` them.
    ``dice`` is in the roller's order; for the opening roll it is (winner's die, loser's die).
    """

    kind: ActionKind
    color: Color | None = None
    dice: tuple[int, int] | None = None
    play: Play | None = None
    resignation: Resignation | None = None

    def __str__(self) -> str:
        words = [self.color.name.lower()] if self.color is not None else []
        words.append(self.kind.value)
        if self.dice is not None:
            words.append(f"{self.dice[0]}-{self.dice[1]}")
        if self.play is not None:
            words.extend(str(move) for move in self.play.moves)
        if self.resignation is not None:
            words.append(self.resignation.name.lower())
        return " ".join(words)

    @classmethod
    def of(cls, event: MatchEvent) -> Action | None:
        """The action an event stands for (None for events that are not the referee's steps:
        a game's or a match's end, a challenge)."""
        color = event.color
        if isinstance(event, GameStarted):
            return cls(ActionKind.NEW_GAME)
        if isinstance(event, OpeningRolled):
            return cls(ActionKind.OPENING_ROLL, color, dice=event.dice)
        if isinstance(event, Rolled):
            return cls(ActionKind.ROLL, color, dice=event.dice)
        if isinstance(event, Played):
            return cls(ActionKind.PLAY, color, play=event.play)
        if isinstance(event, Resigned):
            return cls(ActionKind.RESIGN, color, resignation=event.resignation)
        kind = _SIMPLE_ACTIONS.get(type(event))
        return None if kind is None else cls(kind, color)

    @classmethod
    def from_text(cls, text: str) -> Action:
        """Read the one-line form that ``str(action)`` writes."""
        words = text.split()
        color = None
        if words and words[0].upper() in Color.__members__:
            color = Color[words.pop(0).upper()]
        try:
            kind = ActionKind(words.pop(0)) if words else None
        except ValueError:
            kind = None
        if kind is None:
            raise InvalidMoveError(f"bad action {text!r}: expected e.g. 'white roll 3-1' or 'black take'")
        if (kind == ActionKind.NEW_GAME) != (color is None):
            raise InvalidMoveError(f"bad action {text!r}: only new_game has no colour")
        try:
            if kind in (ActionKind.ROLL, ActionKind.OPENING_ROLL):
                d1, d2 = (int(d) for d in words.pop(0).split("-"))
                return cls(kind, color, dice=(d1, d2))
            if kind == ActionKind.PLAY:
                return cls(kind, color, play=Play(tuple(_parse_step(w) for w in words)))
            if kind == ActionKind.RESIGN:
                return cls(kind, color, resignation=Resignation[words.pop(0).upper()])
        except (ValueError, IndexError, KeyError):
            raise InvalidMoveError(f"bad action {text!r}") from None
        if words:
            raise InvalidMoveError(f"bad action {text!r}: unexpected {' '.join(words)!r}")
        return cls(kind, color)


_SIMPLE_ACTIONS: dict[type[MatchEvent], ActionKind] = {
    Doubled: ActionKind.DOUBLE, Took: ActionKind.TAKE, Beavered: ActionKind.BEAVER, Dropped: ActionKind.DROP,
    ResignationAccepted: ActionKind.ACCEPT, ResignationRejected: ActionKind.REJECT,
}


def _parse_step(text: str) -> Move:
    """One checker step written ``13/8``, ``bar/22*`` or ``6/off``."""
    hit = text.endswith("*")
    source, _, target = text.rstrip("*").partition("/")
    return Move(
        BAR if source.lower() == "bar" else int(source), OFF if target.lower() == "off" else int(target), hit
    )


# -- checker-by-checker entry ----------------------------------------------------------------
def _step(board: np.ndarray, source: int, target: int) -> tuple[np.ndarray, Move]:
    """Make one checker step on a copy of a kernel board, noting whether it hits."""
    move = Move(source, target, target != OFF and board[target] == -1)
    return apply_moves(board, (move,)), move


def _completable(
    board: np.ndarray, dice: tuple[int, ...], need: int, finals: frozenset[bytes], dead: set[bytes] | None = None
) -> bool:
    """Whether ``need`` more steps with ``dice`` can reach one of the legal plays' boards."""
    key = board.tobytes()
    if need == 0:
        return key in finals
    dead = set() if dead is None else dead
    if key in dead:  # reached before by another order of the same dice, without success
        return False
    for die in set(dice):
        rest = list(dice)
        rest.remove(die)
        for source in range(BAR, 0, -1):
            target = movegen.destination(board, source, die)
            if target >= 0:
                after = board.copy()
                movegen.apply_move(after, source, target)
                if _completable(after, tuple(rest), need - 1, finals, dead):
                    return True
    dead.add(key)
    return False


def _remaining(
    board: np.ndarray, dice: tuple[int, ...], steps: tuple[Move, ...], need: int, finals: frozenset[bytes]
) -> set[tuple[int, ...]]:
    """The dice left after ``steps`` for every way of matching the steps to dice that a legal
    play extends; empty when no legal play starts with these steps."""
    if not steps:
        return {tuple(sorted(dice, reverse=True))} if _completable(board, dice, need, finals) else set()
    first = steps[0]
    found: set[tuple[int, ...]] = set()
    for die in set(dice):
        # A die larger than needed may bear off (6-3 with the last checker on the 2-point).
        if movegen.destination(board, first.source, die) == first.target:
            rest = list(dice)
            rest.remove(die)
            found |= _remaining(_step(board, first.source, first.target)[0], tuple(rest), steps[1:], need - 1, finals)
    return found


@dataclass
class _Game:
    """The mutable state of the game being played."""

    position: Position
    crawford: bool = False
    status: GameStatus = GameStatus.NONE
    dice: tuple[int, int] | None = None
    cube: CubeState = CubeState()  # noqa: RUF009 - a frozen value: one instance serves every game
    double_offered: bool = False
    resignation: Resignation | None = None
    result: GameResult | None = None
    entries: list[tuple[Move, ...]] = field(default_factory=list)  # checker moves not yet committed
    legal: LegalPlays | None = None
    finals: frozenset[bytes] = frozenset()  # the boards the legal plays reach

    @property
    def over(self) -> bool:
        return self.status not in (GameStatus.NONE, GameStatus.PLAYING)

    def rolled(self, legal: LegalPlays | None) -> None:
        self.legal, self.dice = legal, (legal.dice if legal is not None else None)
        self.finals = frozenset(b.tobytes() for b in legal.boards()) if legal is not None else frozenset()


class Match:
    """A match to ``length`` points (1-25), or money play with length 0.

    Each action method takes the acting ``color`` (optional: without it, the side whose
    action it is) and raises :class:`IllegalActionError` or :class:`IllegalPlayError`,
    changing nothing, when the rules do not allow it. ``dice`` defaults to unseeded fair dice.
    ``crawford`` switches the Crawford rule; ``jacoby`` and ``beavers`` are money-play rules;
    ``variant`` the rules of play (:class:`~gammon.variant.Variant`: nackgammon's start,
    two-move doubles).
    """

    def __init__(
        self,
        length: int = 1,
        *,
        dice: DiceSource | None = None,
        crawford: bool = True,
        jacoby: bool = False,
        beavers: bool = False,
        cube_limit: int | None = None,
        variant: Variant = STANDARD,
    ) -> None:
        start = GameState(
            position=Position.starting(variant), match_length=length, jacoby=jacoby, beavers=beavers,
            cube_limit=cube_limit, status=GameStatus.NONE, variant=variant,
        )
        self._setup(start, dice, crawford)

    @classmethod
    def from_state(cls, state: GameState, *, dice: DiceSource | None = None, crawford: bool = True) -> Match:
        """Continue from a snapshot: a position set up for study, or a saved game."""
        match = cls.__new__(cls)
        match._setup(state, dice, crawford)
        return match

    @classmethod
    def replay(
        cls,
        actions: Iterable[Action | str],
        start: GameState | None = None,
        *,
        dice: DiceSource | None = None,
        crawford: bool = True,
    ) -> Match:
        """Rebuild a match from its :attr:`history` (actions or their text lines) and :attr:`start`.

        ``start`` defaults to a fresh 1-point match; ``dice`` serves any rolls after the history.
        """
        if start is None:
            start = GameState(match_length=1, status=GameStatus.NONE)
        match = cls.from_state(start, dice=dice, crawford=crawford)
        for action in actions:
            match.apply(action if isinstance(action, Action) else Action.from_text(action))
        return match

    def _setup(self, start: GameState, dice: DiceSource | None, crawford: bool) -> None:
        self.start = start
        self.length = start.match_length
        self.crawford_rule = crawford
        self.jacoby = start.jacoby
        self.beavers = start.beavers
        self.cube_limit = start.cube_limit
        self.variant = start.variant
        self.dice: DiceSource = dice if dice is not None else SeededDice()
        # A snapshot of the Crawford game says so; one after it, by a side 1-away.
        self._match = MatchScore(self.length, start.score, start.post_crawford, crawford)
        self._history: list[Action] = []
        self._events: list[MatchEvent] = []
        self.results: list[GameResult] = []
        self.game_number = 1
        self._game = _Game(
            start.position, start.crawford, start.status, start.dice, CubeState(start.cube, start.cube_owner),
            start.double_offered, start.resignation,
        )
        if start.dice is not None and start.status == GameStatus.PLAYING:
            self._game.rolled(start.position.legal_plays(*start.dice, self.variant))

    # -- what there is to see ------------------------------------------------------------------
    @property
    def state(self) -> GameState:
        """An immutable snapshot of the committed game (checker moves being entered are not in it)."""
        g = self._game
        # A finished Crawford game may have left no side 1-away (the match is won); a
        # snapshot then no longer calls it the Crawford game.
        crawford = g.crawford and self._match.one_away
        return GameState(
            position=g.position, dice=g.dice, cube=g.cube.value, cube_owner=g.cube.owner,
            double_offered=g.double_offered, resignation=g.resignation, score=self._match.score, match_length=self.length,
            crawford=crawford, jacoby=self.jacoby, beavers=self.beavers, cube_limit=self.cube_limit, status=g.status,
            variant=self.variant,
        )

    @property
    def history(self) -> tuple[Action, ...]:
        """Every action since :attr:`start`, for saving and :meth:`replay`."""
        return tuple(self._history)

    @property
    def events(self) -> tuple[MatchEvent, ...]:
        """Every event since :attr:`start`, in order (:meth:`act` returns those of one step)."""
        return tuple(self._events)

    @property
    def score(self) -> tuple[int, int]:
        """Points won so far, indexed by :class:`Color` value."""
        return self._match.score

    @property
    def position(self) -> Position:
        """The committed position (before any checker moves of the current turn)."""
        return self._game.position

    @property
    def current_position(self) -> Position:
        """The position with the checker moves entered so far, still the same side to act."""
        g = self._game
        if not g.entries:
            return g.position
        return Position(apply_moves(g.position.array(), self.pending_moves).tolist(), g.position.turn)

    @property
    def current_state(self) -> GameState:
        """:attr:`state` with the checker moves entered so far: what a board shows mid-turn.
        Moves that bear off the last checker show the game won, without dice."""
        state = self.state
        if not self._game.entries:
            return state
        position = self.current_position
        if position.winner() is None:
            return state.replace(position=position)
        return state.replace(position=position, dice=None, status=GameStatus.OVER)

    @property
    def pending_moves(self) -> tuple[Move, ...]:
        """Checker moves entered but not yet committed."""
        return tuple(step for entry in self._game.entries for step in entry)

    @property
    def legal_plays(self) -> LegalPlays:
        """The legal plays of the rolled dice from the committed position."""
        if self._game.legal is None:
            raise IllegalActionError("no dice to play: the dice have not been rolled")
        return self._game.legal

    @property
    def remaining_dice(self) -> tuple[int, ...]:
        """Dice still to play this turn, largest first (empty before rolling or when no move is left)."""
        g = self._game
        if g.legal is None:
            return ()
        options = self._options(self.pending_moves)
        return max(options) if options else ()

    @property
    def to_act(self) -> Color | None:
        """The side whose action it is; None before the opening roll (either may roll) and after the game."""
        if self._game.status != GameStatus.PLAYING:
            return None
        return self.state.to_act

    @property
    def result(self) -> GameResult | None:
        """The result of the game being played, once it is over."""
        return self._game.result

    @property
    def game_over(self) -> bool:
        return self._game.over

    @property
    def is_over(self) -> bool:
        """Whether the match is won (never in money play)."""
        return self.winner is not None

    @property
    def winner(self) -> Color | None:
        """The side that has reached the match length."""
        winner = self._match.winner
        return None if winner is None else Color(winner)

    def can_double(self, color: Color | None = None) -> bool:
        """Whether ``color`` (default: the side on roll) may double now."""
        try:
            self._check_double(color)
        except IllegalActionError:
            return False
        return True

    # -- actions ------------------------------------------------------------------------------
    def roll(self, color: Color | None = None, dice: tuple[int, int] | None = None) -> tuple[int, int]:
        """Roll for the turn, or, before a game's first turn, the opening roll.

        In the opening roll each side rolls one die, ties are rolled again, and the higher
        die's owner plays both dice. Given ``dice`` are used instead of the dice source
        (at the opening roll: white's die, black's die).
        """
        g = self._game
        _side(color, "roll")
        if dice is not None:
            dice = _given_dice(dice)
        if g.status == GameStatus.NONE:
            white, black = opening_roll(self.dice) if dice is None else dice
            won = opening_winner(white, black)
            if won is None:
                raise IllegalActionError(f"an opening roll is two different dice, got {white}-{black}")
            winner = Color.WHITE if won == 0 else Color.BLACK
            opening = (max(white, black), min(white, black))
            self._opening(winner, opening)
            return opening
        actor = self._require(color, "roll", turn=True)
        if g.dice is not None:
            raise IllegalActionError(f"{_name(actor)} has already rolled {g.dice[0]}-{g.dice[1]}")
        rolled = self.dice.roll() if dice is None else dice
        legal = g.position.legal_plays(*rolled, self.variant)  # checks the dice before anything changes
        legal.boards()
        g.rolled(legal)
        self._history.append(Action(ActionKind.ROLL, actor, dice=legal.dice))
        self._events.append(Rolled(self.game_number, actor, legal.dice))
        return legal.dice

    def _opening(self, winner: Color, dice: tuple[int, int]) -> None:
        g = self._game
        legal = LegalPlays(g.position if g.position.turn == winner else g.position.flip(), *dice, self.variant)
        legal.boards()
        g.position, g.status = legal.position, GameStatus.PLAYING
        g.rolled(legal)
        self._history.append(Action(ActionKind.OPENING_ROLL, winner, dice=legal.dice))
        high, low = legal.dice
        white, black = (high, low) if winner == Color.WHITE else (low, high)
        self._events.append(OpeningRolled(self.game_number, winner, legal.dice, white, black))

    def double(self, color: Color | None = None) -> None:
        """Offer to double the stakes, before rolling; the opponent then takes, drops or beavers."""
        actor = self._check_double(color)
        self._game.double_offered = True
        self._history.append(Action(ActionKind.DOUBLE, actor))
        self._events.append(Doubled(self.game_number, actor, self._game.cube.value * 2))

    def _check_double(self, color: Color | None) -> Color:
        g = self._game
        actor = self._require(color, "double", turn=True)
        if g.dice is not None:
            raise CubeActionError(f"{_name(actor)} cannot double after rolling")
        refusal = double_refusal(g.cube, actor, length=self.length, crawford_game=g.crawford, cube_limit=self.cube_limit)
        if refusal is not None:
            raise CubeActionError(f"{_name(actor)} cannot double: {refusal}")
        return actor

    def _require_doubled(self, color: Color | None, what: str) -> Color:
        actor = self._require(color, what)
        if not self._game.double_offered:
            raise CubeActionError(f"{_name(actor)} cannot {what}: no double has been offered")
        return actor

    def take(self, color: Color | None = None) -> None:
        """Accept the double: the cube doubles and the taker owns it."""
        actor = self._require_doubled(color, "take")
        g = self._game
        g.cube, g.double_offered = g.cube.after_take(actor), False
        self._history.append(Action(ActionKind.TAKE, actor))
        self._events.append(Took(self.game_number, actor, g.cube.value))

    def beaver(self, color: Color | None = None) -> None:
        """Take and at once redouble, keeping the cube (money play with beavers only)."""
        actor = self._require_doubled(color, "beaver")
        g = self._game
        refusal = beaver_refusal(g.cube, beavers=self.beavers, cube_limit=self.cube_limit)
        if refusal is not None:
            raise CubeActionError(refusal)
        g.cube, g.double_offered = g.cube.after_beaver(actor), False
        self._history.append(Action(ActionKind.BEAVER, actor))
        self._events.append(Beavered(self.game_number, actor, g.cube.value))

    def drop(self, color: Color | None = None) -> GameResult:
        """Refuse the double: the doubler wins the cube's value before the double."""
        actor = self._require_doubled(color, "drop")
        g = self._game
        self._history.append(Action(ActionKind.DROP, actor))
        self._events.append(Dropped(self.game_number, actor))
        return self._end(GameResult(actor.other, dropped_points(g.cube), WinKind.SINGLE, g.cube.value, GameStatus.DROPPED))

    def resign(self, kind: Resignation = Resignation.SINGLE, color: Color | None = None) -> None:
        """Offer to resign a single game, a gammon or a backgammon, on one's own turn."""
        g = self._game
        actor = self._require(color, "resign", turn=True)
        if not isinstance(kind, Resignation):
            raise IllegalActionError(f"resign single, gammon or backgammon, not {kind!r}")
        g.resignation, g.entries = kind, []
        self._history.append(Action(ActionKind.RESIGN, actor, resignation=kind))
        self._events.append(Resigned(self.game_number, actor, kind))

    def _require_resignation(self, color: Color | None, what: str) -> Color:
        actor = self._require(color, what)
        if self._game.resignation is None:
            raise IllegalActionError(f"{_name(actor)} cannot {what}: no resignation has been offered")
        return actor

    def accept(self, color: Color | None = None) -> GameResult:
        """Accept the offered resignation: the game ends with that many points."""
        actor = self._require_resignation(color, "accept")
        g = self._game
        assert g.resignation is not None  # _require_resignation refused the action otherwise
        kind = WinKind(int(g.resignation))
        self._history.append(Action(ActionKind.ACCEPT, actor))
        self._events.append(ResignationAccepted(self.game_number, actor))
        return self._end(GameResult(actor, points_won(kind, g.cube, self.jacoby), kind, g.cube.value, GameStatus.RESIGNED))

    def reject(self, color: Color | None = None) -> None:
        """Refuse the offered resignation: play goes on."""
        actor = self._require_resignation(color, "reject")
        self._game.resignation = None
        self._history.append(Action(ActionKind.REJECT, actor))
        self._events.append(ResignationRejected(self.game_number, actor))

    def move(self, source: int, target: int, color: Color | None = None) -> tuple[Move, ...]:
        """Move one checker (mover's numbering: 25 the bar, 0 off) as part of the play.

        The move is allowed when some legal play begins with the moves entered so far and
        this one. ``13/8`` with 5-3 may also be entered as one move; the steps it stands
        for are returned.
        """
        self._require_rolled(color)
        g = self._game
        if not (_whole(source) and _whole(target) and 1 <= source <= BAR and OFF <= target < source):
            raise InvalidMoveError(f"{source}/{target}: a checker moves from a point 1-24 or the bar (25) "
                                   "down to a lower point or off (0)")
        paths = self._paths(source, target)
        if not paths:
            dice = "-".join(map(str, self.remaining_dice)) or "none"
            raise IllegalPlayError(f"{_point(source)}/{_point(target)} is not a legal move now (dice left: {dice})")
        if len(paths) > 1:
            raise AmbiguousPlayError(f"{_point(source)}/{_point(target)} can be played more than one way: "
                                     + " or ".join(" ".join(map(str, p)) for p in paths.values())
                                     + "; enter the steps one by one")
        path = next(iter(paths.values()))
        g.entries.append(path)
        return path

    def _paths(self, source: int, target: int) -> dict[bytes, tuple[Move, ...]]:
        """The ways one checker may go from ``source`` to ``target`` next, by the position each leaves."""
        g = self._game
        done = self.pending_moves
        board = apply_moves(g.position.array(), done)
        options = self._options(done)
        paths: dict[bytes, tuple[Move, ...]] = {}
        # The fewest steps that get there: with 6-3, 6/off is one step even if 6/3/off is legal too.
        for count in range(1, max(map(len, options), default=0) + 1):
            orders = {p for left in options for p in itertools.permutations(left, count)}
            for dice in sorted(orders, reverse=True):
                path = self._path(board, source, target, dice)
                if path and self._options(done + path):
                    paths.setdefault(apply_moves(board, path).tobytes(), path)
            if paths:
                break
        return paths

    def next_moves(self) -> dict[int, tuple[int, ...]]:
        """Where the side to act may move a checker next: each point it may move from (25 the
        bar) with every point it may reach (0 off) with one or more of the dice left, in its
        numbering. What a board that picks up and puts down checkers offers; empty when the
        play is complete or nothing is rolled."""
        g = self._game
        if g.legal is None or g.status != GameStatus.PLAYING:
            return {}
        left = self.remaining_dice
        if not left:
            return {}
        board = apply_moves(g.position.array(), self.pending_moves)
        sources = [BAR] if board[BAR] > 0 else [point for point in range(24, 0, -1) if board[point] > 0]
        reach = sorted({sum(left[:k]) for k in range(1, len(left) + 1)} | set(left))
        out: dict[int, tuple[int, ...]] = {}
        for source in sources:
            targets: list[int] = []
            for distance in reach:
                target = max(source - distance, OFF)
                if target not in targets and self._paths(source, target):
                    targets.append(target)
            if targets:
                out[source] = tuple(targets)
        return out

    @staticmethod
    def _path(board: np.ndarray, source: int, target: int, dice: tuple[int, ...]) -> tuple[Move, ...]:
        """The steps of one checker from ``source`` using ``dice`` in order, if it lands on ``target``."""
        steps = []
        here = source
        for die in dice:
            if here == OFF:
                return ()
            there = movegen.destination(board, here, die)
            if there < 0:
                return ()
            board, step = _step(board, here, there)
            steps.append(step)
            here = there
        return tuple(steps) if here == target else ()

    def _options(self, steps: tuple[Move, ...]) -> set[tuple[int, ...]]:
        """The dice that may be left after ``steps`` (empty: no legal play begins with them)."""
        g = self._game
        legal = self.legal_plays
        d1, d2 = legal.dice
        dice = tuple(self.variant.moves_of(d1, d2))
        return _remaining(g.position.array(), dice, steps, len(legal[0].moves), g.finals)

    def undo(self, color: Color | None = None) -> tuple[Move, ...]:
        """Take back the last checker move entered (the founding rules' U)."""
        self._require_rolled(color)
        if not self._game.entries:
            raise IllegalActionError("no checker move to undo")
        return self._game.entries.pop()

    def commit(self, color: Color | None = None) -> Play:
        """Finish the turn with the checker moves entered, once they are a whole legal play."""
        self._require_rolled(color)
        steps = self.pending_moves
        need = len(self.legal_plays[0].moves)
        if len(steps) < need:
            dice = "-".join(map(str, self.remaining_dice))
            raise IllegalPlayError(f"the play is not complete: {need - len(steps)} more to move (dice left: {dice})")
        return self._commit(Play(steps))

    def play(self, play: Play | str, color: Color | None = None) -> Play:
        """Make a whole play (a :class:`Play` or move text) and end the turn; replaces any moves entered."""
        self._require_rolled(color)
        legal = self.legal_plays
        if isinstance(play, str):
            played = legal.find(play)
        elif not isinstance(play, Play):
            raise IllegalPlayError(f"a play is a Play or its text, such as '8/5 6/5'; got {play!r}")
        else:
            legal.index(play)
            played = Play(tuple(_replayed(self._game.position.array(), play.moves)))
        return self._commit(played)

    def _commit(self, play: Play) -> Play:
        g = self._game
        legal = self.legal_plays
        index = legal.index(play)
        mover = g.position.turn
        position = Position(movegen.flip_board(legal.boards()[index]).tolist(), mover.other)
        self._history.append(Action(ActionKind.PLAY, mover, play=play))
        pips = (position.pip_count(Color.WHITE), position.pip_count(Color.BLACK))
        self._events.append(Played(self.game_number, mover, play, pips))
        g.position, g.entries = position, []
        g.rolled(None)
        if position.borne_off(mover) == CHECKERS:
            kind = _win_kind(position, mover)
            self._end(GameResult(mover, points_won(kind, g.cube, self.jacoby), kind, g.cube.value, GameStatus.OVER))
        return play

    def new_game(self) -> None:
        """Start the next game of the match once the current one is over; it begins with an opening roll."""
        if not self._game.over:
            raise IllegalActionError("the current game is not over")
        winner = self.winner
        if winner is not None:
            raise IllegalActionError(f"the match is over: {_name(winner)} has won")
        self._game = _Game(Position.starting(self.variant), crawford=self._match.crawford)
        self.game_number += 1
        self._history.append(Action(ActionKind.NEW_GAME))
        self._events.append(GameStarted(self.game_number))

    def act(self, action: PlayerAction | str, color: Color | None = None, *, play: Play | str | None = None,
            resignation: Resignation = Resignation.SINGLE) -> tuple[MatchEvent, ...]:
        """One side's action by its name (:class:`PlayerAction`), and the events it caused.

        ``play`` is the play of a ``play`` action (None: commit the checker moves entered);
        ``resignation`` what a ``resign`` action offers. Raises as the action's own method does.
        """
        try:
            word = PlayerAction(action)
        except ValueError:
            raise IllegalActionError(f"action: expected one of {', '.join(PlayerAction)}, got {action!r}") from None
        mark = len(self._events)
        if word == PlayerAction.ROLL:
            self.roll(color)
        elif word == PlayerAction.PLAY:
            if play is None:
                self.commit(color)
            else:
                self.play(play, color)
        elif word == PlayerAction.RESIGN:
            self.resign(resignation, color)
        else:
            getattr(self, word.value)(color)
        return tuple(self._events[mark:])

    def copy(self) -> Match:
        """An independent copy (a host applies an action to a copy and keeps it once it is saved)."""
        twin = Match.__new__(Match)
        twin.__dict__.update(self.__dict__)
        twin._history, twin._events, twin.results = list(self._history), list(self._events), list(self.results)
        twin._game = dataclasses.replace(self._game, entries=list(self._game.entries))
        copy_dice = getattr(self.dice, "copy", None)
        twin.dice = copy_dice() if copy_dice is not None else self.dice
        return twin

    def apply(self, action: Action) -> tuple[MatchEvent, ...]:
        """Redo one recorded action, with its recorded dice; the events it caused."""
        mark = len(self._events)
        self._redo(action)
        return tuple(self._events[mark:])

    def _redo(self, action: Action) -> None:
        kind, color = action.kind, action.color
        if kind == ActionKind.NEW_GAME:
            self.new_game()
        elif kind == ActionKind.OPENING_ROLL:
            if self._game.status != GameStatus.NONE or action.dice is None or color is None:
                raise IllegalActionError(f"{action}: not the start of a game")
            dice = _given_dice(action.dice)
            if opening_winner(*dice) != 0:
                raise IllegalActionError(f"{action}: an opening roll is the winner's die, then the lower loser's")
            self._opening(_side(color, "roll"), dice)
        elif kind == ActionKind.ROLL:
            self.roll(color, action.dice)
        elif kind == ActionKind.PLAY:
            self.play(action.play or Play(), color)
        elif kind == ActionKind.RESIGN:
            self.resign(action.resignation or Resignation.SINGLE, color)
        else:
            method = {ActionKind.DOUBLE: self.double, ActionKind.TAKE: self.take, ActionKind.BEAVER: self.beaver,
                      ActionKind.DROP: self.drop, ActionKind.ACCEPT: self.accept, ActionKind.REJECT: self.reject}[kind]
            method(color)

    # -- rules ----------------------------------------------------------------------------------
    def _require(self, color: Color | None, what: str, turn: bool = False) -> Color:
        """The side acting; raises unless the game is on and it is that side's action."""
        _side(color, what)
        g = self._game
        if g.over:
            raise IllegalActionError(f"cannot {what}: the game is over ({g.result or g.status.name.lower()})")
        if g.status == GameStatus.NONE:
            raise IllegalActionError(f"cannot {what}: the game starts with the opening roll")
        if turn and g.resignation is not None:
            raise IllegalActionError(f"{_name(g.position.turn.other)} must accept or reject the resignation first")
        if turn and g.double_offered:
            raise IllegalActionError(f"{_name(g.position.turn.other)} must take or drop the double first")
        actor = self.state.to_act
        if color is not None and color != actor:
            raise NotYourTurnError(f"{_name(color)} cannot {what}: it is {_name(actor)}'s turn to act")
        return actor

    def _require_rolled(self, color: Color | None) -> Color:
        actor = self._require(color, "move", turn=True)
        g = self._game
        if g.dice is None:
            raise IllegalActionError(f"{_name(actor)} must roll before moving")
        return actor

    def _end(self, result: GameResult) -> GameResult:
        g = self._game
        g.result, g.status = result, result.ended
        g.entries, g.double_offered, g.resignation = [], False, None
        g.rolled(None)
        self._match = self._match.after_game(result.winner, result.points)
        self.results.append(result)
        score = (self._match.score[Color.WHITE], self._match.score[Color.BLACK])
        self._events.append(GameOver(self.game_number, result.winner, result.points, result.kind, result.ended, score))
        if self._match.winner is not None:
            self._events.append(MatchOver(self.game_number, result.winner, self.length, score))
        return result

    def __repr__(self) -> str:
        what = f"{self.length}-point match" if self.length else "money play"
        white, black = self._match.score[Color.WHITE], self._match.score[Color.BLACK]
        return f"<Match {what}, game {self.game_number}, score {white}-{black} (white-black)>"


def _replayed(board: np.ndarray, moves: Iterable[Move]) -> list[Move]:
    """The moves with their hit marks recomputed from the board."""
    result = []
    for move in moves:
        board, step = _step(board, move.source, move.target)
        result.append(step)
    return result


def _win_kind(position: Position, winner: Color) -> WinKind:
    board = position.array() if position.turn == winner else position.flip().array()
    return WinKind(movegen.win_kind(board))


def _side(color: object, what: str) -> Color | None:
    """``color`` when it names a side (or is None: whichever side acts)."""
    if color is None or isinstance(color, Color):
        return color
    raise IllegalActionError(f"cannot {what}: a side is Color.WHITE or Color.BLACK, not {color!r}")


def _whole(value: object) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _given_dice(dice: object) -> tuple[int, int]:
    """Dice handed to :meth:`Match.roll` (or recorded): two whole numbers 1-6."""
    if isinstance(dice, (tuple, list)) and len(dice) == 2 and all(_whole(d) and 1 <= d <= 6 for d in dice):
        return int(dice[0]), int(dice[1])
    raise IllegalActionError(f"dice are two numbers 1-6, such as (3, 1); got {dice!r}")


def _name(color: Color) -> str:
    return color.name.lower()


def _point(point: int) -> str:
    return "bar" if point == BAR else "off" if point == OFF else str(point)
