"""A match as data: players, length, rules and games of :class:`~gammon.match.Action`.

The record holds what happened, never a second copy of the rules: every game is replayed
through :class:`~gammon.match.Match` when a record is made, so a record that exists is legal,
and each game's result is the referee's.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import dataclasses

from ..dice import DiceSource
from ..errors import GammonError, InvalidPositionError
from ..match import Action, ActionKind, Match
from ..play import BAR, OFF, Move, Play
from ..position import Color, Position
from ..referee import CubeState, WinKind, points_won
from ..state import GameState, GameStatus, Resignation
from . import mat, sgf, xg
from .fields import (DecisionAnalysis, GameInput, GameRecord, Properties, RecordError, RecordFields, RecordWarning,
                     Rules, Warnings)

__all__ = ["GameRecord", "MatchRecord", "Properties", "RecordError", "RecordWarning", "Rules", "build", "replayed"]

#: What :meth:`MatchRecord.read` recognises by its first bytes, and what it cannot read, with why.
_UNREAD = {
    b"OGXM": "an OGXM file (HedgeHog/OpenGammon's match format): gammon does not read it, as its specification "
             "could not be consulted (docs/records.md)",
    b"\x1f\x8b": "a compressed file (BGBlitz's .bgf, or a .gz): gammon does not read it (docs/records.md)",
    b"PK\x03\x04": "a zip archive: unpack it and read the match files inside",
}

@dataclass(frozen=True, slots=True)
class MatchRecord:
    """A whole match (``length`` 0: a money session), as files carry it.

    ``metadata`` holds the event, date (``YYYY-MM-DD``), site, round, annotator and comment,
    under those lower-case keys, and any other header a file had under its own name.
    """

    white: str
    black: str
    length: int
    games: tuple[GameRecord, ...] = ()
    rules: Rules = Rules()  # noqa: RUF009 - frozen: one instance serves every record
    metadata: Mapping[str, str] = field(default_factory=dict)
    #: The set-up position the first game starts from (an SGF ``AB``/``AW``/``AE`` node); None: the opening roll.
    start: GameState | None = None
    #: What the reader accommodated (a site's habit read by rule), each naming its game and line; not
    #: part of the match, so two records of one match are equal whatever their files' habits.
    warnings: tuple[RecordWarning, ...] = field(default=(), compare=False)

    def name(self, color: Color) -> str:
        return self.white if color == Color.WHITE else self.black

    # -- to and from a Match -----------------------------------------------------------------
    @classmethod
    def from_match(cls, match: Match, *, white: str, black: str, **metadata: str) -> MatchRecord:
        """The record of a match played so far (an unfinished game is kept as it stands)."""
        start = match.start
        if start.status != GameStatus.NONE or start.position != Position.starting(match.variant):
            raise RecordError("", "a record starts at a game's opening roll; this match started from a set-up position")
        rules = Rules(match.crawford_rule, match.jacoby, match.beavers, match.cube_limit, match.variant)
        games: list[list[Action]] = [[]]
        for action in match.history:
            if action.kind == ActionKind.NEW_GAME:
                games.append([])
            else:
                games[-1].append(action)
        return build(white, black, match.length, rules, [(None, tuple(g), None) for g in games],
                     start_score=start.score, start_crawford=start.crawford, metadata=metadata)

    def to_match(self, dice: DiceSource | None = None) -> Match:
        """The match replayed to its last action, ready to go on (``dice`` serves the rolls to come)."""
        return _replay(self, dice)

    def history(self) -> list[Action]:
        """All actions as :attr:`Match.history` holds them (``new_game`` between games)."""
        out: list[Action] = []
        for index, game in enumerate(self.games):
            if index:
                out.append(Action(ActionKind.NEW_GAME))
            out.extend(game.actions)
        return out

    def start_state(self) -> GameState:
        if self.start is not None:
            return self.start
        first = self.games[0] if self.games else None
        score = first.score if first else (0, 0)
        return GameState(position=Position.starting(self.rules.variant), match_length=self.length, score=score,
                         crawford=bool(first and first.crawford), jacoby=self.rules.jacoby, beavers=self.rules.beavers,
                         cube_limit=self.rules.cube_limit, status=GameStatus.NONE, variant=self.rules.variant)

    # -- the file formats --------------------------------------------------------------------
    @classmethod
    def from_mat(cls, text: str, *, match: int = 1) -> MatchRecord:
        """Read ``.mat`` text (GNU Backgammon, Jellyfish and the sites' exports, :mod:`.mat`): its
        ``match``-th match, by the first reading of what the file leaves unsaid (the rules, whether
        it starts with the Crawford game) that replays."""
        return _one(mat.read_mats(text), match)

    @classmethod
    def all_from_mat(cls, text: str) -> list[MatchRecord]:
        """Every match in ``.mat`` text (a site's download may hold several), in file order."""
        matches = mat.read_mats(text)
        return [_one(matches, number, told=False) for number in range(1, len(matches) + 1)]

    def mat(self) -> str:
        """The match as ``.mat`` text, laid out as GNU Backgammon exports it."""
        if self.start is not None:
            raise RecordError("game 1", "a .mat file cannot carry a set-up position (it starts every game at the "
                              "opening roll): write SGF instead")
        return mat.write_mat(self)

    @classmethod
    def from_sgf(cls, text: str) -> MatchRecord:
        """Read backgammon SGF (``GM[6]``) as GNU Backgammon writes it, analysis and set-up positions included."""
        return replayed(sgf.read_sgf(text))

    def sgf(self) -> str:
        """The match as SGF, one game tree per game, as GNU Backgammon writes it."""
        return sgf.write_sgf(self)

    @classmethod
    def from_xg(cls, data: bytes) -> MatchRecord:
        """Read eXtreme Gammon's ``.xg`` (or ``.xgp``) file, XG's own analysis kept on each decision
        (:attr:`GameRecord.analysis`)."""
        return replayed(xg.read_xg(data))

    @classmethod
    def read(cls, path: str | Path, *, match: int = 1) -> MatchRecord:
        """A record from a file, its format known by its content (:meth:`from_bytes`); unreadable
        files are RecordErrors naming the file."""
        try:
            with open(path, "rb") as handle:
                data = handle.read()
        except OSError as error:
            raise RecordError(str(path), f"cannot read the file: {error.strerror or error}") from None
        return cls.from_bytes(data, str(path), match=match)

    @classmethod
    def from_bytes(cls, data: bytes, name: str = "", *, match: int = 1) -> MatchRecord:
        """A record from a file's bytes, whatever format it is in: eXtreme Gammon's ``.xg``/``.xgp``
        (by its ``RGMH`` header), SGF (text opening with ``(``) or ``.mat`` and the sites' ``.txt``;
        text in UTF-8, else in Windows-1252 (with a warning). ``match`` picks one of several
        matches in one file. A RecordError names the file (``name``) and the place."""
        try:
            if data.startswith(b"RGMH"):
                return cls.from_xg(data)
            for magic, why in _UNREAD.items():
                if data.startswith(magic):
                    raise RecordError("", why)
            text, warning = _decode(data)
            if text.lstrip().startswith("("):
                record = cls.from_sgf(text)
            else:
                record = cls.from_mat(text, match=match)
        except RecordError as error:
            where = f"{name}: {error.where}" if name and error.where else (name or error.where)
            raise RecordError(where, error.message) from None
        if warning is not None:
            record = dataclasses.replace(record, warnings=(warning, *record.warnings))
        return record


NEWLINE = b"\n"


def _decode(data: bytes) -> tuple[str, RecordWarning | None]:
    """The text of a file: UTF-8 (a byte-order mark dropped), else Windows-1252, the sites'
    other encoding (``Sürmeyan`` stays ``Sürmeyan``), said in a warning."""
    try:
        return data.decode("utf-8").removeprefix("\ufeff"), None
    except UnicodeDecodeError as error:
        where = f"line {data.count(NEWLINE, 0, error.start) + 1}"
    text = data.decode("cp1252", errors="replace")
    return text, RecordWarning(where, "not UTF-8: read as Windows-1252")


def _one(matches: list[list[RecordFields]], number: int, *, told: bool = True) -> MatchRecord:
    """The ``number``-th match of a file (1 the first), by the first of its readings that replays."""
    if not 1 <= number <= len(matches):
        raise RecordError("", f"the file holds {len(matches)} match{'es' if len(matches) > 1 else ''}: "
                          f"there is no match {number}")
    readings = matches[number - 1]
    for attempt, fields in enumerate(readings):
        try:
            record = replayed(fields)
        except RecordError:
            if attempt + 1 == len(readings):
                raise
            continue
        if told and len(matches) > 1:
            record = dataclasses.replace(record, warnings=(RecordWarning(
                "", f"the file holds {len(matches)} matches: this is match {number}"), *record.warnings))
        return record
    raise AssertionError("a .mat file always has a reading")


# -- assembling and replaying ------------------------------------------------------------------
def replayed(fields: RecordFields) -> MatchRecord:
    """The record of what a reader found, every game replayed (:func:`build`)."""
    return build(fields.white, fields.black, fields.length, fields.rules, fields.games,
                 start_score=fields.start_score, start_crawford=fields.start_crawford, metadata=fields.metadata,
                 notes=fields.notes, properties=fields.properties, moves=fields.moves, warnings=fields.warnings,
                 analysis=fields.analysis, setup=fields.setup)


def build(
    white: str,
    black: str,
    length: int,
    rules: Rules,
    games: Iterable[GameInput],
    *,
    start_score: tuple[int, int] = (0, 0),
    start_crawford: bool = False,
    metadata: Mapping[str, str] | None = None,
    notes: Sequence[Mapping[int, Properties]] = (),
    properties: Sequence[Properties] = (),
    moves: Sequence[Sequence[int]] = (),
    warnings: Sequence[RecordWarning] = (),
    analysis: Sequence[Mapping[int, DecisionAnalysis]] = (),
    setup: GameState | None = None,
) -> MatchRecord:
    """Replay games read from a file (or a Match) and make the record.

    Each game is its declared starting score (None: whatever the games before left), its
    actions, and its declared result (winner, points; None: as the play ends it). A game that
    the play leaves unfinished but that declares a winner ended by a resignation the file does
    not write (GNU Backgammon writes none): the loser resigns what the points are worth and the
    winner accepts. ``moves`` give the file's move number of each action, for errors; ``setup``
    the set-up position the first game starts from (None: the opening roll).

    A declared result the play cannot give is refused, but for the caps sites write: points
    declared below what the play or a resignation gives, but enough for the winner to win the
    match (the last game's value capped at what the winner needed), or above what any
    resignation gives (``Wins 2008 point``) -- each read as the play ends, with a warning.
    """
    told = Warnings()
    told.extend(warnings)
    if setup is None:
        try:
            state = GameState(position=Position.starting(rules.variant), match_length=length, score=start_score,
                              crawford=start_crawford, jacoby=rules.jacoby, beavers=rules.beavers,
                              cube_limit=rules.cube_limit, status=GameStatus.NONE, variant=rules.variant)
        except InvalidPositionError as error:
            raise RecordError("game 1", f"cannot start at {_score_text(start_score, white, black)}: {error}") from None
    else:
        state = setup
    match = Match.from_state(state, crawford=rules.crawford)
    records: list[GameRecord] = []
    for number, (score, actions, declared) in enumerate(games, 1):
        if number > 1:
            try:
                match.new_game()
            except GammonError as error:
                raise RecordError(f"game {number}", f"cannot start: {error}") from None
        at = match.state
        if score is not None and tuple(score) != tuple(at.score):
            raise RecordError(f"game {number}", f"the score is {_score_text(score, white, black)} in the file, "
                              f"but the games before leave it at {_score_text(at.score, white, black)}")
        game_moves = list(moves[number - 1]) if number - 1 < len(moves) else []
        done: list[Action] = []
        for index, item in enumerate(actions):
            try:
                if isinstance(item, Action):
                    match.apply(item)
                    done.append(item)
                else:  # (colour, move text) read from a file: the referee finds the play it means
                    color, text = item
                    played = match.play(_as_written(match, text), color)
                    done.append(Action(ActionKind.PLAY, color, play=played))  # as history[-1], without copying it
            except GammonError as error:
                move = game_moves[index] if index < len(game_moves) else len(done) // 2 + 1
                what = f"{item[0].name.lower()} play {item[1] or '(no move)'}" if isinstance(item, tuple) else str(item)
                if done and done[-1].kind == ActionKind.BEAVER and isinstance(item, Action) and item.kind in (
                        ActionKind.BEAVER, ActionKind.DOUBLE):
                    what += " (a beaver beavered, GNU Backgammon's raccoon, is beyond gammon's rules: one beaver a double)"
                raise RecordError(f"game {number}, move {move}", f"{what} is not allowed: {error}"
                                  + _legal_hint(match, str(error))) from None
        if declared is not None:
            done += _finish(match, declared, number, started=bool(done), before=at.score, told=told)
        records.append(GameRecord(
            score=at.score, actions=tuple(done), result=match.result, crawford=at.crawford,
            notes=dict(notes[number - 1]) if number - 1 < len(notes) else {},
            properties=properties[number - 1] if number - 1 < len(properties) else (),
            analysis=dict(analysis[number - 1]) if number - 1 < len(analysis) else {},
        ))
    return MatchRecord(white, black, length, tuple(records), rules, dict(metadata or {}), start=setup,
                       warnings=told.done())


def _finish(match: Match, declared: tuple[Color, int], number: int, started: bool, before: Sequence[int],
            told: Warnings) -> list[Action]:
    """Check a declared result against the play, or end the game by the resignation it implies."""
    winner, points = declared
    where = f"game {number}"
    result = match.result
    # the declared points win the match for the winner: a site may have written only what was needed
    enough = match.length > 0 and before[winner] + points >= match.length
    if result is not None:
        if result.winner == winner and result.points == points:
            return []
        if result.winner == winner and points < result.points and enough:
            told.add(where, f"the file says {winner.name.lower()} wins {points}, what won the match; the play "
                     f"ends with {result}: read as the play ends", "capped")
            return []
        raise RecordError(where, f"the file says {winner.name.lower()} wins {points}, but the play ends "
                          f"with {result}")
    loser = winner.other
    opening: list[Action] = []
    if match.state.status == GameStatus.NONE and not started:
        # resigned before its first play: no file writes a row for an opening roll nobody played
        # (GNU Backgammon neither), so the file cannot say it. Read as one the resigner won, 2-1;
        # written back, it is again no row.
        opening = [Action(ActionKind.OPENING_ROLL, loser, dice=(2, 1))]
        match.apply(opening[0])
    state = match.state
    if state.status != GameStatus.PLAYING or match.to_act != loser or state.double_offered:
        raise RecordError(where, f"the file says {winner.name.lower()} wins {points} points, but the game is not "
                          f"over and {loser.name.lower()} cannot resign now")
    if state.resignation is not None:
        raise RecordError(where, "a resignation is left unanswered")
    cube = CubeState(state.cube, state.cube_owner)
    given = {kind: points_won(WinKind(int(kind)), cube, match.jacoby) for kind in Resignation}
    kind = next((k for k, p in given.items() if p == points), None)
    if kind is None and enough:  # capped: the least resignation that wins the match
        kind = next((k for k, p in given.items() if before[winner] + p >= match.length), None)
        if kind is not None:
            told.add(where, f"the file says {winner.name.lower()} wins {points}, what won the match: read as a "
                     f"resignation of a {_RESIGNED[kind]} ({given[kind]} points)", "capped")
    if kind is None and points > max(given.values()):
        kind = Resignation.BACKGAMMON
        told.add(where, f"the file says {winner.name.lower()} wins {points} points, more than any resignation "
                 f"gives with the cube at {cube.value}: read as a resignation of a backgammon "
                 f"({given[kind]} points)", "too many")
    if kind is None:
        raise RecordError(where, f"{winner.name.lower()} wins {points} points, which no resignation gives "
                          f"with the cube at {cube.value}")
    actions = [Action(ActionKind.RESIGN, loser, resignation=kind), Action(ActionKind.ACCEPT, winner)]
    for action in actions:
        match.apply(action)
    return opening + actions


_RESIGNED = {Resignation.SINGLE: "single game", Resignation.GAMMON: "gammon", Resignation.BACKGAMMON: "backgammon"}


def _as_written(match: Match, text: str) -> Play | str:
    """The play as the file's steps give it (their order kept: ``8/7 7/4*``), or the text itself when
    it is a short form (``24/14``, ``13/10(2)``) that only the referee's move reader resolves."""
    steps = []
    for word in text.split():
        source, _, target = word.rstrip("*").partition("/")
        if "(" in target or not target or len(source) > 3 or len(target) > 3:
            return text  # no point has a longer name: the referee's reader says what it is
        steps.append(Move(BAR if source == "bar" else int(source), OFF if target == "off" else int(target)))
    play = Play(tuple(steps))
    try:
        match.legal_plays.index(play)
    except GammonError:
        return text or play
    return play


def _legal_hint(match: Match, said: str) -> str:
    """The legal plays, when the dice are rolled and the referee's message does not list them already."""
    if "legal" in said:
        return ""
    try:
        legal = match.legal_plays
    except GammonError:
        return ""
    shown = ", ".join(str(p) or "no move" for p in list(legal)[:12])
    return f" (legal with {legal.dice[0]}-{legal.dice[1]}: {shown}{' ...' if len(legal) > 12 else ''})"


def _score_text(score: Sequence[int], white: str, black: str) -> str:
    return f"{white} {score[Color.WHITE]}, {black} {score[Color.BLACK]}"


def _replay(record: MatchRecord, dice: DiceSource | None) -> Match:
    match = Match.from_state(record.start_state(), dice=dice, crawford=record.rules.crawford)
    for action in record.history():
        match.apply(action)
    return match
