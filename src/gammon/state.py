"""A snapshot of everything a notation can carry: position, dice, cube, score and rules.

Every notation is a constructor/method pair on :class:`GameState` (``from_bpn``/``bpn``,
``from_xgid``/``xgid``, ...); the readers and writers live in :mod:`gammon.notation`, on plain
fields (:class:`~gammon.notation.fields.GameFields`), which GameState checks and holds.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field, fields, replace
from typing import Any

from .errors import InvalidPositionError, NotationError
from .notation import MAX_CUBE, MAX_MATCH_LENGTH, bpn, detect, fibs, match_id, xgid
from .notation.fields import GameFields, GameStatus, Resignation
from .position import CHECKERS, Color, LegalPlays, Position
from .variant import STANDARD, Variant

__all__ = ["MAX_MATCH_LENGTH", "MAX_SCORE", "FibsBoard", "GameState", "GameStatus", "Resignation"]

#: The largest score a side can have: the Match ID keeps each score in 15 bits.
MAX_SCORE = (1 << 15) - 1


def _whole(value: object) -> bool:
    """A whole number (any integer type, numpy's too, but not ``True``/``False``)."""
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _invalid(field_name: str, message: str) -> InvalidPositionError:
    """An InvalidPositionError that also says which field is wrong, so a notation's error can name it."""
    return InvalidPositionError(message, field=field_name)


@dataclass(frozen=True, slots=True, repr=False)
class GameState:
    """Position plus the match context: what BPN, XGID and GNU Backgammon IDs describe.

    ``position.turn`` is the player *on roll*: the one who rolls or has rolled, and who
    doubled when ``double_offered`` is set (then the opponent must take or drop; see
    :attr:`to_act`). ``score`` is indexed by :class:`Color` value: ``score[Color.WHITE]``.
    ``match_length`` 0 is a money game. ``cube_limit`` is the largest cube value allowed,
    or None for no limit. ``crawford`` marks the Crawford game itself (a side is 1-away in
    a match of 2 or more points); ``jacoby`` and ``beavers`` are money-play rules.
    ``status`` defaults to OVER when a side has borne off all 15 checkers, else PLAYING.
    ``variant`` names the rules of play (nackgammon, two-move doubles; BPN's flags carry it).

    Every limit is checked here, where a state is made, so no state is accepted that fails
    later: a cube of at most :data:`~gammon.notation.MAX_CUBE` (2**15), scores of at most
    :data:`MAX_SCORE` in a match and, while a game is played, below its length; 15 checkers a side
    and a game not already won. A position where one side has borne off all 15 is a finished
    game (status OVER, nothing left to roll, double or resign); one where both sides have no
    checkers is no game at all.

    >>> GameState.from_bpn('b4E1C3eE3c1e4B-w0b0-w31-n10-0:0:7')
    GameState.from_bpn('b4E1C3eE3c1e4B-w0b0-w31-n10-0:0:7')
    """

    position: Position = field(default_factory=Position)
    dice: tuple[int, int] | None = None
    cube: int = 1
    cube_owner: Color | None = None
    double_offered: bool = False
    resignation: Resignation | None = None
    score: tuple[int, int] = (0, 0)
    match_length: int = 0
    crawford: bool = False
    jacoby: bool = False
    beavers: bool = False
    cube_limit: int | None = None
    # None is only the default, replaced when the state is made (OVER if the position is won, else
    # PLAYING): every GameState's status is a GameStatus, which is the type readers should see.
    status: GameStatus = None  # type: ignore[assignment]
    variant: Variant = STANDARD

    def __post_init__(self) -> None:
        if not isinstance(self.position, Position):
            raise _invalid("position", f"position must be a Position, got {type(self.position).__name__}")
        winner = self.position.winner()
        if self.status is None:
            object.__setattr__(self, "status", GameStatus.PLAYING if winner is None else GameStatus.OVER)
        elif not isinstance(self.status, GameStatus):
            if self.status not in list(GameStatus):
                raise _invalid("status", f"status must be a GameStatus, got {self.status!r}")
            object.__setattr__(self, "status", GameStatus(self.status))
        if not isinstance(self.variant, Variant):
            raise _invalid("variant", f"variant must be a Variant, got {self.variant!r}")
        if self.resignation is not None and not isinstance(self.resignation, Resignation):
            if not _whole(self.resignation) or self.resignation not in list(Resignation):
                raise _invalid("resignation", f"resignation must be a Resignation or None, got {self.resignation!r}")
            object.__setattr__(self, "resignation", Resignation(self.resignation))
        if self.dice is not None:
            if (not isinstance(self.dice, (tuple, list)) or len(self.dice) != 2
                    or not all(_whole(d) and 1 <= d <= 6 for d in self.dice)):
                raise _invalid("dice", f"dice must be two values 1-6 or None, got {self.dice!r}")
            object.__setattr__(self, "dice", (int(self.dice[0]), int(self.dice[1])))
        if not _whole(self.cube) or self.cube < 1 or self.cube & (self.cube - 1) or self.cube > MAX_CUBE:
            raise _invalid("cube", f"cube must be a power of two from 1 to {MAX_CUBE}, got {self.cube!r}")
        object.__setattr__(self, "cube", int(self.cube))
        if self.cube_owner is not None and not isinstance(self.cube_owner, Color):
            raise _invalid("cube_owner", f"cube_owner must be a Color or None, got {self.cube_owner!r}")
        if self.cube == 1 and self.cube_owner is not None:
            raise _invalid("cube_owner", "a 1-cube is centred; it cannot be owned")
        if self.cube_limit is not None:
            limit = self.cube_limit
            if not _whole(limit) or limit < 1 or limit & (limit - 1) or limit > MAX_CUBE:
                raise _invalid("cube_limit", f"cube limit must be None or a power of two from 1 to {MAX_CUBE}, got {limit!r}")
            if not self.cube <= limit:
                raise _invalid("cube_limit", f"cube {self.cube} is above the cube limit {limit}")
            object.__setattr__(self, "cube_limit", int(limit))
        if not _whole(self.match_length) or not 0 <= self.match_length <= MAX_MATCH_LENGTH:
            raise _invalid("match_length", f"match length must be 0 (money) to {MAX_MATCH_LENGTH}, got {self.match_length!r}")
        object.__setattr__(self, "match_length", int(self.match_length))
        # A money session's score is unbounded (the Match ID writer refuses what its 15 bits
        # cannot carry); a match's stays within what a Match ID can say.
        top = MAX_SCORE if self.match_length else None
        if (not isinstance(self.score, (tuple, list)) or len(self.score) != 2
                or not all(_whole(s) and s >= 0 and (top is None or s <= top) for s in self.score)):
            bounds = f"0 to {MAX_SCORE}" if top is not None else "of at least 0"
            raise _invalid("score", f"score must be two counts {bounds}, got {self.score!r}")
        object.__setattr__(self, "score", (int(self.score[0]), int(self.score[1])))
        self._check_score()
        self._check_finished(winner)
        if self.crawford and not self.match_length:
            raise _invalid("crawford", "the Crawford game exists only in match play")
        # The Crawford game is the one game after a side first reaches 1-away (no such
        # game in a 1-point match, where the cube is never used).
        if self.crawford and (self.match_length < 2 or self.match_length - 1 not in self.score):
            raise _invalid(
                "crawford",
                f"the Crawford game needs a side 1-away in a match of 2 or more, not {self.score} to {self.match_length}",
            )
        if self.crawford and self.cube != 1:
            raise _invalid("cube", f"the Crawford game is played without the cube: it stays at 1, not {self.cube}")
        if (self.jacoby or self.beavers) and self.match_length:
            raise _invalid("jacoby", "the Jacoby rule and beavers are money-play rules (match length 0)")
        if self.double_offered:
            if self.dice is not None:
                raise _invalid("dice", "a double is offered before rolling, so dice must be unrolled")
            if self.crawford:
                raise _invalid("double_offered", "no double can be offered in the Crawford game")
            if self.cube_owner not in (None, self.position.turn):
                raise _invalid("double_offered", f"{self.position.turn} cannot double: {self.cube_owner} owns the cube")
            # The cube stops at the limit, or at MAX_CUBE: a 32768-cube cannot be doubled.
            top = self.cube_limit or MAX_CUBE
            if 2 * self.cube > top:
                raise _invalid("double_offered", f"the {self.cube}-cube cannot be doubled: the cube stops at {top}")

    def _check_score(self) -> None:
        """While a game is played (or about to start) both sides are short of the match length.

        Once a game is over its points are in the score, so the winner may be past the length
        (a 7-point match won from 6-5 with a gammon on a 2-cube ends 10-5), but by at most what
        one game is worth: a backgammon, three times the cube.
        """
        length = self.match_length
        if not length:
            return
        won = [s for s in self.score if s >= length]
        if won and self.status in (GameStatus.PLAYING, GameStatus.NONE):
            raise _invalid("score", f"score {self.score} has already won a {length}-point match")
        if len(won) == 2:
            raise _invalid("score", f"score {self.score}: both sides cannot have won a {length}-point match")
        most = length - 1 + 3 * self.cube
        if won and won[0] > most:
            raise _invalid(
                "score",
                f"score {self.score}: the game that won the {length}-point match, worth at most 3 times "
                f"the {self.cube}-cube, ends at {most} at most",
            )

    def _check_finished(self, winner: Color | None) -> None:
        """A side that has borne off all 15 has won: the game is over, nothing is left to do."""
        position = self.position
        if winner is None:
            return
        if position.borne_off(winner.other) == CHECKERS:
            raise _invalid("position", "no checkers on either side: both sides cannot have borne off all 15")
        over = f"{winner.name.lower()} has borne off all {CHECKERS} checkers: the game is over"
        if self.status != GameStatus.OVER:
            raise _invalid("status", f"{over}, not {self.status.name.lower()}")
        if self.dice is not None:
            raise _invalid("dice", f"{over}: there are no dice to play, not {self.dice}")
        if self.double_offered:
            raise _invalid("double_offered", f"{over}: no double can be offered")
        if self.resignation is not None:
            raise _invalid("resignation", f"{over}: no resignation can be offered")

    @property
    def to_act(self) -> Color:
        """The side that must act now: the doubled or resigned-to side, else the player on roll."""
        turn = self.position.turn
        return turn.other if self.double_offered or self.resignation is not None else turn

    @property
    def is_money(self) -> bool:
        return self.match_length == 0

    @property
    def post_crawford(self) -> bool:
        """A match game after the Crawford game: a side is 1-away and this is not the Crawford game.

        A 1-point match has neither: every game of it is played without the cube.
        """
        return self.match_length > 1 and not self.crawford and (self.match_length - 1) in self.score

    def away(self, color: Color) -> int:
        """Points ``color`` still needs to win the match (0 for money)."""
        return self.match_length - self.score[color] if self.match_length else 0

    def replace(self, **changes: Any) -> GameState:
        return replace(self, **changes)

    def legal_plays(self) -> LegalPlays:
        """The legal plays of the rolled dice by this state's rules (two-move doubles: a double is two moves).

        >>> plays = GameState(dice=(3, 3), variant=Variant(two_move_doubles=True)).legal_plays()
        >>> "13/10(2)" in plays, "13/10(2) 6/3(2)" in plays
        (True, False)
        """
        if self.dice is None:
            raise _invalid("dice", "no dice rolled: there are no plays")
        return self.position.legal_plays(*self.dice, self.variant)

    # -- notations ------------------------------------------------------------------------
    @classmethod
    def from_fields(cls, game: GameFields, position: Position | None = None) -> GameState:
        """The state a notation's fields describe (``position``: the checkers, when the fields
        have none); a rule they break is a NotationError naming the notation's field."""
        if position is None:
            position = Position.from_fields(game)
        try:
            return cls(position=position, dice=game.dice, cube=game.cube, cube_owner=game.cube_owner,
                       double_offered=game.double_offered, resignation=game.resignation, score=game.score,
                       match_length=game.match_length, crawford=game.crawford, jacoby=game.jacoby,
                       beavers=game.beavers, cube_limit=game.cube_limit,
                       status=game.status,  # type: ignore[arg-type]  # None: as the position implies (see the field)
                       variant=game.variant)
        except InvalidPositionError as error:
            name, part = game.source(error.field)
            raise NotationError(game.notation, name, part, f"a consistent game ({error})") from None

    def to_fields(self) -> GameFields:
        """This state as plain fields, for the notations' writers."""
        position = self.position
        return GameFields(
            position.checkers(Color.WHITE), position.checkers(Color.BLACK), position.turn, dice=self.dice,
            cube=self.cube, cube_owner=self.cube_owner, double_offered=self.double_offered,
            resignation=self.resignation, score=self.score, match_length=self.match_length, crawford=self.crawford,
            jacoby=self.jacoby, beavers=self.beavers, cube_limit=self.cube_limit, status=self.status,
            variant=self.variant, board=position.board,
        )

    @classmethod
    def parse(cls, text: str) -> GameState:
        """Read any notation :func:`gammon.notation.detect` recognises.

        A bare Position ID gives the other fields their defaults (white on roll, money).
        """
        kind = detect(text)
        if kind == "bpn":
            return cls.from_bpn(text)
        if kind == "gnubgid":
            return cls.from_gnubg_id(text)
        if kind == "xgid":
            return cls.from_xgid(text)
        if kind == "fibs":
            return cls.from_fibs(text)
        text = text.strip()
        game = GameFields(None, None, Color.WHITE, notation="Position ID", text=text, sources={"position": ("key", text)})
        return cls.from_fields(game, Position.from_position_id(text))

    @classmethod
    def from_bpn(cls, text: str) -> GameState:
        """Read BPN, e.g. ``b4E1C3eE3c1e4B-w0b0-w31-n10-0:0:7``."""
        return cls.from_fields(bpn.parse(text))

    def bpn(self) -> str:
        """BPN (Backgammon Position Notation); it does not carry status, resignation or cube limit
        (a won placement reads back as OVER, anything else as PLAYING), so a match score past the
        length is refused (NotationError) unless the placement shows the game won."""
        return bpn.format(self.to_fields())

    @classmethod
    def from_gnubg_id(cls, text: str) -> GameState:
        """Read GNU Backgammon's combined ``POSID:MATCHID``."""
        return cls.from_fields(match_id.parse_gnubg_id(text))

    def gnubg_id(self) -> str:
        """GNU Backgammon's ``POSID:MATCHID``; it does not carry beavers, the cube limit or the rule variant."""
        return match_id.format_gnubg_id(self.to_fields())

    @classmethod
    def from_match_id(cls, text: str, position: Position | str | None = None) -> GameState:
        """Read a 12-character Match ID; ``position`` is a Position or Position ID (default: the
        opening), seen from the player on roll the Match ID names."""
        game = match_id.parse(text)
        if position is None:
            checkers = Position(turn=game.turn)
        elif isinstance(position, Position):
            checkers = position if position.turn == game.turn else position.flip()
        else:
            checkers = Position.from_position_id(position, game.turn)
        return cls.from_fields(game, checkers)

    def match_id(self) -> str:
        """GNU Backgammon's 12-character Match ID (no checkers: see :meth:`gnubg_id`)."""
        return match_id.format(self.to_fields())

    @classmethod
    def from_xgid(cls, text: str) -> GameState:
        """Read an eXtreme Gammon XGID (the ``XGID=`` prefix is optional)."""
        return cls.from_fields(xgid.parse(text))

    def xgid(self) -> str:
        """The XGID; it does not carry status or resignation (refused like :meth:`bpn`'s), and
        cube_limit None is written as 10."""
        return xgid.format(self.to_fields())

    @classmethod
    def from_fibs(cls, text: str) -> GameState:
        """The game in a FIBS board string; :class:`FibsBoard` keeps the rest."""
        return FibsBoard.parse(text).state

    def fibs(self, player: str = "you", opponent: str = "opponent", you: Color | None = None) -> str:
        """A FIBS board string seen by ``you`` (default: the side to act); NotationError for a
        game with the Jacoby rule or beavers, which FIBS cannot carry."""
        return self.fibs_board(player, opponent, you).text()

    def fibs_board(self, player: str = "you", opponent: str = "opponent", you: Color | None = None) -> FibsBoard:
        return FibsBoard(self, player, opponent, you)

    def to_notation(self, notation: str) -> str:
        """This state in ``notation`` (``bpn``, ``gnubgid``, ``match_id``, ``xgid``, ``fibs``, ``pid``),
        for a conversion: what the target cannot carry is refused (NotationError naming the field)
        rather than dropped, but for what each target is known to leave out (``pid`` is the
        checkers alone; no notation but BPN names the variant's opening, and the cube limit is
        the XGID's alone). A beaver rule cannot go into a GNU Backgammon ID (its Match ID has no
        bit for it), nor a variant.

        >>> beavered = GameState.from_xgid("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:2:0:10")
        >>> beavered.to_notation("gnubgid")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        gammon.errors.NotationError: GNUbg ID: bad beavers 'on': expected no beaver rule (a GNU Backgammon ID has no bit ...
        """
        if notation in ("gnubgid", "match_id"):
            name = match_id.GNUBG_ID if notation == "gnubgid" else match_id.NOTATION
            if self.beavers:
                raise NotationError(name, "beavers", "on", "no beaver rule (a GNU Backgammon ID has no bit for it: "
                                    "convert to xgid or bpn)")
            if not self.variant.standard:
                raise NotationError(name, "variant", str(self.variant), "standard backgammon (a GNU Backgammon ID "
                                    "does not say the variant: convert to bpn)")
        writers = {"bpn": self.bpn, "gnubgid": self.gnubg_id, "match_id": self.match_id, "xgid": self.xgid,
                   "fibs": self.fibs, "pid": self.position.position_id}
        if notation not in writers:
            raise NotationError("notation", "name", notation, ", ".join(writers))
        return writers[notation]()

    def _repr_svg_(self) -> str:
        """The board with dice, cube and score as SVG, for notebooks."""
        from .svg import board_svg  # the picture is drawn above the value types: see docs/architecture.md

        return board_svg(self)

    def __repr__(self) -> str:
        # Pasteable like python-chess's Board('fen'): the BPN plus whatever BPN cannot say.
        try:
            base = GameState.from_bpn(self.bpn())
        except NotationError:  # e.g. a finished match's score: no BPN reads it back
            base = None
        if base is None:
            plain = GameState(position=self.position)  # each field's default, status as the position implies
            args = ", ".join(
                f"{f.name}={getattr(self, f.name)!r}" for f in fields(self)
                if getattr(self, f.name) != getattr(plain, f.name) or f.name == "position"
            )
            return f"GameState({args})"
        extra = ", ".join(f"{f.name}={getattr(self, f.name)!r}" for f in fields(self)
                          if getattr(self, f.name) != getattr(base, f.name))
        text = f"GameState.from_bpn({self.bpn()!r})"
        return f"{text}.replace({extra})" if extra else text


@dataclass(frozen=True, slots=True, repr=False)
class FibsBoard:
    """A FIBS board string: the game, and what only FIBS says (see :mod:`gammon.notation.fibs`).

    ``you`` is the colour the string's first player plays; None means the side to act.
    ``may_double`` and ``on_bar`` are (yours, the opponent's) when they differ from what
    the game implies, else None. ``idle_dice`` are the dice shown for the side not on
    roll (FIBS shows 0 0; GNU Backgammon repeats the roll).
    """

    state: GameState
    player: str = "you"
    opponent: str = "opponent"
    you: Color | None = None
    direction: int = -1
    unlimited: bool = False
    idle_dice: tuple[int, int] = (0, 0)
    may_double: tuple[bool, bool] | None = None
    on_bar: tuple[int, int] | None = None
    can_move: int = 0
    forced_move: int = 0
    redoubles: int = 0

    def __post_init__(self) -> None:
        if self.you is None:
            object.__setattr__(self, "you", self.state.to_act)
        elif not isinstance(self.you, Color):
            object.__setattr__(self, "you", Color(self.you))
        fibs.check(self._fields())

    def _fields(self) -> fibs.FibsFields:
        you = self.state.to_act if self.you is None else self.you
        return fibs.FibsFields(self.state.to_fields(), you, self.player, self.opponent, self.direction, self.unlimited,
                               self.idle_dice, self.may_double, self.on_bar, self.can_move, self.forced_move,
                               self.redoubles)

    def text(self) -> str:
        """The board string."""
        return fibs.format(self._fields())

    __str__ = text

    def __repr__(self) -> str:
        return f"FibsBoard.parse({self.text()!r})"

    @classmethod
    def parse(cls, text: str) -> FibsBoard:
        """Read a board string; :class:`NotationError` names the field that is wrong."""
        board = fibs.parse(text)
        return cls(GameState.from_fields(board.game), board.player, board.opponent, board.you, board.direction,
                   board.unlimited, board.idle_dice, board.may_double, board.on_bar, board.can_move,
                   board.forced_move, board.redoubles)

    def replace(self, **changes: Any) -> FibsBoard:
        return replace(self, **changes)
