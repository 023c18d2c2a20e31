"""A match record as its file formats read and write it, below :class:`~gammon.record.MatchRecord`.

The readers (:mod:`.mat`, :mod:`.sgf`) give :class:`RecordFields`, what to replay; the writers
take any record (:class:`RecordView`). :class:`~gammon.record.MatchRecord` calls both and
replays every game through :class:`~gammon.match.Match`, so the formats never name it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from ..errors import GammonError
from ..match import Action, ActionKind, GameResult
from ..position import Color
from ..state import GameState
from ..variant import STANDARD, Variant

__all__ = ["Candidate", "DecisionAnalysis", "GameInput", "GameRecord", "Properties", "RecordError", "RecordFields",
           "RecordView", "RecordWarning", "Rules", "Warnings", "beavered", "record_number"]

#: The most digits a record's number may have (leading zeros aside): far above any length, score
#: or cube, and far below the 4,300 at which ``int()`` refuses to convert (and its time grows with
#: the square of the digits below that).
MAX_DIGITS = 100

#: SGF properties kept as data on a node (GNU Backgammon's analysis: ``A``, ``DA``, ``LU``, ...),
#: each a name and its values, in file order.
Properties = tuple[tuple[str, tuple[str, ...]], ...]


class RecordError(GammonError, ValueError):
    """A match file that does not parse, or whose games the rules do not allow.

    ``where`` names the place (``line 12``, ``game 2, move 7``) and the message what was expected.
    """

    def __init__(self, where: str, message: str) -> None:
        self.where = where
        self.message = message
        super().__init__(f"{where}: {message}" if where else message)


@dataclass(frozen=True, slots=True)
class RecordWarning:
    """What a reader accommodated: a site's habit read by rule (``Cannot Move``, points capped at what
    the winner needed), named where it stands (``game 3, line 41``) and saying how it was read."""

    where: str
    message: str

    def __str__(self) -> str:
        return f"{self.where}: {self.message}" if self.where else self.message


class Warnings:
    """A reader's warnings, each kind told once: the first place it happened, and how many more
    (a file that writes ``Cannot Move`` sixty times gets one warning, not sixty)."""

    def __init__(self) -> None:
        self._first: dict[str, list] = {}  # kind -> [where, message, more]

    def add(self, where: str, message: str, kind: str | None = None) -> None:
        found = self._first.get(kind or message)
        if found is None:
            self._first[kind or message] = [where, message, 0]
        else:
            found[2] += 1

    def extend(self, warnings: Sequence[RecordWarning]) -> None:
        for warning in warnings:
            self.add(warning.where, warning.message)

    def done(self) -> tuple[RecordWarning, ...]:
        return tuple(RecordWarning(where, message + (f" (and {more} more like it)" if more else ""))
                     for where, message, more in self._first.values())


def record_number(digits: str, where: str, what: str) -> int:
    """``digits``, which a reader's pattern matched as digits, as a number; RecordError naming
    ``what`` for more than :data:`MAX_DIGITS` of them."""
    significant = digits.lstrip("0")
    if len(significant) > MAX_DIGITS:
        raise RecordError(where, f"{what} has {len(significant)} digits: expected at most {MAX_DIGITS}")
    return int(significant or "0")


@dataclass(frozen=True, slots=True)
class Rules:
    """The rules a match was played under (Jacoby and beavers are money-play options; the
    ``variant``, nackgammon's start or two-move doubles, as :class:`~gammon.variant.Variant` says)."""

    crawford: bool = True
    jacoby: bool = False
    beavers: bool = False
    cube_limit: int | None = None
    variant: Variant = STANDARD


def variation(variant: Variant) -> str:
    """The variant as a record's header names it: GNU Backgammon's ``Nackgammon``, and gammon's
    own words for two-move doubles (``Backgammon, two-move doubles``)."""
    name = "Nackgammon" if variant.nackgammon else "Backgammon"
    return f"{name}, two-move doubles" if variant.two_move_doubles else name


def variant_of(text: str, where: str) -> Variant:
    """The variant a record's header names (:func:`variation`'s words; ``Standard`` too)."""
    words = [word.strip().lower() for word in text.split(",")]
    if words[0] not in ("backgammon", "standard", "nackgammon") or \
            any(word != "two-move doubles" for word in words[1:]) or len(words) > 2:
        raise RecordError(where, f"expected \"Backgammon\" or \"Nackgammon\" (with \", two-move doubles\"), "
                                 f"found {text!r}")
    return Variant(nackgammon=words[0] == "nackgammon", two_move_doubles=len(words) == 2)


@dataclass(frozen=True, slots=True)
class GameRecord:
    """One game: the score it started at (indexed by :class:`Color` value), its actions from
    the opening roll on, and its result (None while it is unfinished).

    ``notes`` maps an action's index to the properties a file carried with it (GNU Backgammon's
    analysis), so they are written back unchanged; ``properties`` are the game's own (SGF root);
    ``analysis`` maps an action's index to the file's own analysis of that decision (XG's).
    """

    score: tuple[int, int]
    actions: tuple[Action, ...]
    result: GameResult | None = None
    crawford: bool = False
    notes: Mapping[int, Properties] = field(default_factory=dict)
    properties: Properties = ()
    analysis: Mapping[int, DecisionAnalysis] = field(default_factory=dict)

    def moves(self) -> list[int]:
        """The move number of each action as a ``.mat`` file numbers its rows.

        A row holds black's turn, then white's; a cube action takes its actor's column, so the
        columns alternate and a row number is the count of columns filled. Resignations have no
        column (``.mat`` does not write them) and share the number of the turn they interrupt.
        """
        numbers: list[int] = []
        cells = 0
        opening = next((a.color for a in self.actions if a.kind == ActionKind.OPENING_ROLL), None)
        offset = 1 if opening == Color.WHITE else 0
        for action in self.actions:
            if action.kind in (ActionKind.OPENING_ROLL, ActionKind.ROLL, ActionKind.DOUBLE, ActionKind.TAKE,
                               ActionKind.DROP, ActionKind.BEAVER):
                cells += 1
            numbers.append((max(cells, 1) - 1 + offset) // 2 + 1)
        return numbers


@dataclass(frozen=True, slots=True)
class Candidate:
    """One option a file's analyst weighed, as it judged it.

    ``action`` is a play in the mover's numbering (``24/18 13/10``; ``""``: no move) or a cube
    action (``no double``, ``double/take``, ``double/pass``, ``take``, ``pass``); ``equity`` is the
    analyst's cubeful equity for the side to act, in its own unit (XG: EMG in money play, its
    normalised equity in a match); ``probabilities`` the cubeless (win, win gammon, win
    backgammon, lose gammon, lose backgammon) of the side to act, each counting the ones after it
    (a backgammon is a gammon too), None where the file gives none; ``depth`` the analyst's own
    name for how deep it looked (``3-ply``, ``XG Roller++``, ``rollout``).
    """

    action: str
    equity: float
    probabilities: tuple[float, float, float, float, float] | None = None
    depth: str = ""


@dataclass(frozen=True, slots=True)
class DecisionAnalysis:
    """A file's own analysis of one decision (XG's in an ``.xg`` file), kept so a report can show it
    as it is, without judging the match again.

    ``kind`` is ``checker`` (on the PLAY action), ``cube`` (on the ROLL a side rolled without
    doubling, or on its DOUBLE) or ``take`` (on the TAKE, DROP or BEAVER); ``candidates`` best
    first; ``played`` the index of what was played among them (None: not among them); ``error``
    the equity the analyst says was lost (0 for the best; None: not analysed); ``luck`` the roll's
    luck by the analyst (checker decisions; None where the file gives none); ``analyst`` who
    judged (``eXtreme Gammon``).
    """

    kind: str
    candidates: tuple[Candidate, ...]
    played: int | None
    error: float | None
    analyst: str
    luck: float | None = None


#: A game as a file gives it: its declared starting score (None: whatever the games before left),
#: its actions (or a colour and the move text it wrote), and its declared result (None: as the play ends it).
GameInput = tuple[tuple[int, int] | None, Sequence[Action | tuple[Color, str]], tuple[Color, int] | None]


@dataclass(frozen=True, slots=True)
class RecordFields:
    """What a reader found, to be replayed into a record (the arguments of ``model.build``)."""

    white: str
    black: str
    length: int
    rules: Rules
    games: Sequence[GameInput]
    start_score: tuple[int, int] = (0, 0)
    start_crawford: bool = False
    metadata: Mapping[str, str] = field(default_factory=dict)
    notes: Sequence[Mapping[int, Properties]] = ()
    properties: Sequence[Properties] = ()
    moves: Sequence[Sequence[int]] = ()
    warnings: Sequence[RecordWarning] = ()
    analysis: Sequence[Mapping[int, DecisionAnalysis]] = ()
    #: The set-up position the first game starts from (None: the opening), and where the file says it.
    setup: GameState | None = None


class RecordView(Protocol):
    """What a writer reads of a record (a :class:`~gammon.record.MatchRecord` is one)."""

    @property
    def white(self) -> str: ...
    @property
    def black(self) -> str: ...
    @property
    def length(self) -> int: ...
    @property
    def games(self) -> tuple[GameRecord, ...]: ...
    @property
    def rules(self) -> Rules: ...
    @property
    def metadata(self) -> Mapping[str, str]: ...


def beavered(record: RecordView) -> bool:
    """Whether a beaver was played (then the files need not say that the rules allow one)."""
    return any(a.kind == ActionKind.BEAVER for g in record.games for a in g.actions)
