"""A match as data: players, length, rules and games of :class:`~gammon.match.Action`.

The record holds what happened, never a second copy of the rules: every game is replayed
through :class:`~gammon.match.Match` when a record is made, so a record that exists is legal,
and each game's result is the referee's.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from ..dice import DiceSource
from ..errors import GammonError, InvalidPositionError
from ..match import Action, ActionKind, Match
from ..play import BAR, OFF, Move, Play
from ..position import Color, Position
from ..referee import CubeState, WinKind, points_won
from ..state import GameState, GameStatus, Resignation
from . import mat, sgf
from .fields import GameInput, GameRecord, Properties, RecordError, RecordFields, Rules

__all__ = ["GameRecord", "MatchRecord", "Properties", "RecordError", "Rules", "build", "replayed"]

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
        first = self.games[0] if self.games else None
        score = first.score if first else (0, 0)
        return GameState(position=Position.starting(self.rules.variant), match_length=self.length, score=score,
                         crawford=bool(first and first.crawford), jacoby=self.rules.jacoby, beavers=self.rules.beavers,
                         cube_limit=self.rules.cube_limit, status=GameStatus.NONE, variant=self.rules.variant)

    # -- the file formats --------------------------------------------------------------------
    @classmethod
    def from_mat(cls, text: str) -> MatchRecord:
        """Read GNU Backgammon/Jellyfish ``.mat`` text: the first reading of what the file leaves
        unsaid (the rules, whether it starts with the Crawford game) that replays."""
        readings = mat.read_mat(text)
        for attempt, fields in enumerate(readings):
            try:
                return replayed(fields)
            except RecordError:
                if attempt + 1 == len(readings):
                    raise
        raise AssertionError("a .mat file always has a reading")

    def mat(self) -> str:
        """The match as ``.mat`` text, laid out as GNU Backgammon exports it."""
        return mat.write_mat(self)

    @classmethod
    def from_sgf(cls, text: str) -> MatchRecord:
        """Read backgammon SGF (``GM[6]``) as GNU Backgammon writes it, analysis included."""
        return replayed(sgf.read_sgf(text))

    def sgf(self) -> str:
        """The match as SGF, one game tree per game, as GNU Backgammon writes it."""
        return sgf.write_sgf(self)

    @classmethod
    def read(cls, path: str) -> MatchRecord:
        """A record from a file, ``.mat`` or SGF by its content; unreadable files are RecordErrors."""
        try:
            with open(path, "rb") as handle:
                data = handle.read()
        except OSError as error:
            raise RecordError(str(path), f"cannot read the file: {error.strerror or error}") from None
        text = data.decode("utf-8", errors="replace")
        try:
            return cls.from_sgf(text) if text.lstrip().startswith("(") else cls.from_mat(text)
        except RecordError as error:
            raise RecordError(f"{path}: {error.where}" if error.where else str(path), error.message) from None


# -- assembling and replaying ------------------------------------------------------------------
def replayed(fields: RecordFields) -> MatchRecord:
    """The record of what a reader found, every game replayed (:func:`build`)."""
    return build(fields.white, fields.black, fields.length, fields.rules, fields.games,
                 start_score=fields.start_score, start_crawford=fields.start_crawford, metadata=fields.metadata,
                 notes=fields.notes, properties=fields.properties, moves=fields.moves)


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
) -> MatchRecord:
    """Replay games read from a file (or a Match) and make the record.

    Each game is its declared starting score (None: whatever the games before left), its
    actions, and its declared result (winner, points; None: as the play ends it). A game that
    the play leaves unfinished but that declares a winner ended by a resignation the file does
    not write (GNU Backgammon writes none): the loser resigns what the points are worth and the
    winner accepts. ``moves`` give the file's move number of each action, for errors.
    """
    try:
        state = GameState(position=Position.starting(rules.variant), match_length=length, score=start_score,
                          crawford=start_crawford, jacoby=rules.jacoby, beavers=rules.beavers,
                          cube_limit=rules.cube_limit, status=GameStatus.NONE, variant=rules.variant)
    except InvalidPositionError as error:
        raise RecordError("game 1", f"cannot start at {_score_text(start_score, white, black)}: {error}") from None
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
            done += _finish(match, declared, number, started=bool(done))
        records.append(GameRecord(
            score=at.score, actions=tuple(done), result=match.result, crawford=at.crawford,
            notes=dict(notes[number - 1]) if number - 1 < len(notes) else {},
            properties=properties[number - 1] if number - 1 < len(properties) else (),
        ))
    return MatchRecord(white, black, length, tuple(records), rules, dict(metadata or {}))


def _finish(match: Match, declared: tuple[Color, int], number: int, started: bool) -> list[Action]:
    """Check a declared result against the play, or end the game by the resignation it implies."""
    winner, points = declared
    where = f"game {number}"
    result = match.result
    if result is not None:
        if result.winner != winner or result.points != points:
            raise RecordError(where, f"the file says {winner.name.lower()} wins {points}, but the play ends "
                              f"with {result}")
        return []
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
    for kind in Resignation:
        if points_won(WinKind(int(kind)), cube, match.jacoby) == points:
            actions = [Action(ActionKind.RESIGN, loser, resignation=kind), Action(ActionKind.ACCEPT, winner)]
            for action in actions:
                match.apply(action)
            return opening + actions
    raise RecordError(where, f"{winner.name.lower()} wins {points} points, which no resignation gives "
                      f"with the cube at {cube.value}")


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
