"""Every decision of a match record judged by a player: errors, marks, ratings and luck.

The analyst is any player (:func:`gammon.players.load_player`: gammon's net, an external
UBGI engine, GNU Backgammon), asked through the players layer only: :func:`~gammon.players.hint`
ranks the plays of each roll by cubeful equity at the match score, and
:func:`~gammon.players.cube_hint` gives the no double / double take / double pass equities of
each turn where the side on roll could double. Everything is in equity per cube, GNU
Backgammon's "EMG" (in a match: the match winning chances turned into a money-like equity,
+1 winning the cube's value, -1 losing it), so an error at 2-away/2-away weighs like one in
money play.

Marks follow GNU Backgammon 1.07's default analysis thresholds: an error above 0.03 EMG is
*doubtful*, above 0.06 an *error* (gnubg's "bad"), above 0.12 a *blunder* ("very bad"). The
error rate is the error per decision in thousandths (mEMG), over the unforced checker plays
and the cube decisions that were close or taken (a double, any take or pass, and a turn whose
double would have cost under 0.16); the rating is GNU Backgammon's ladder for the overall rate
per decision: under 2 mEMG Supernatural, 5 World class, 8 Expert, 12 Advanced, 18
Intermediate, 26 Casual player, 35 Beginner, else Awful!.

Luck is judged as GNU Backgammon judges it, by a fast player of its own (``luck``, default
gammon's net at 0 ply, as gnubg uses its 0-ply evaluation): what the roll's best play is worth
less what the side on roll could expect before rolling, the average of the best plays of all
36 rolls (of the 30 non-doubles for the opening roll). The luck-adjusted result is the result
less the luck (a match: the match winning chance above 50%; money: points).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from .. import compiled
from ..cube.context import CubeContext
from ..cube.met import equity_to_mwc
from ..errors import GammonError, InvalidPlayerError
from ..evaluation import CubeDecision, Hint
from ..match import ActionKind, Match
from ..play import Play
from ..players import Player, check_variant, cube_hint, hint, load_player, parse_player
from ..position import Color
from ..record import MatchRecord
from ..state import GameState
from ..workers import Workers, available_cores

__all__ = [
    "CLOSE_CUBE",
    "DEFAULT_ANALYST",
    "RATINGS",
    "THRESHOLDS",
    "Analysis",
    "AnalysisError",
    "Decision",
    "PlayerSummary",
    "analyse",
    "mark",
    "rating",
]

#: The default analyst: gammon's net at 0 ply, fast enough for a match in seconds.
DEFAULT_ANALYST = "nn:0"
#: GNU Backgammon 1.07's default thresholds (EMG): the mark for an error above each.
THRESHOLDS: tuple[tuple[float, str], ...] = ((0.12, "blunder"), (0.06, "error"), (0.03, "doubtful"))
#: GNU Backgammon's rating ladder: the label for an error rate per decision (EMG) below each.
RATINGS: tuple[tuple[float, str], ...] = (
    (0.002, "Supernatural"), (0.005, "World class"), (0.008, "Expert"), (0.012, "Advanced"),
    (0.018, "Intermediate"), (0.026, "Casual player"), (0.035, "Beginner"))
#: A turn with the cube available counts as a cube decision when doubling would cost less than this.
CLOSE_CUBE = 0.16
_BEST_SHOWN = 5


class AnalysisError(GammonError):
    """An analysis that cannot be made (an analyst that fails, a record with nothing to judge)."""


def mark(error: float) -> str | None:
    """``blunder``, ``error``, ``doubtful`` or None for an error in EMG (thresholds: :data:`THRESHOLDS`)."""
    return next((label for threshold, label in THRESHOLDS if error > threshold), None)


def rating(rate: float) -> str:
    """GNU Backgammon's label for an error rate per decision in EMG (not mEMG)."""
    return next((label for threshold, label in RATINGS if rate < threshold), "Awful!")


@dataclass(frozen=True, slots=True)
class Decision:
    """One judged decision: a checker play (``kind`` "checker") or a cube action ("cube").

    ``move`` is the row of the ``.mat`` file; ``error`` is in EMG and never negative;
    ``played`` and ``best`` are words (``8/5 6/5``, ``Double``, ``Take``), ``options`` the
    analyst's best plays or the three cube equities with their values (EMG).
    """

    game: int
    move: int
    color: Color
    player: str
    kind: str
    error: float
    played: str
    best: str
    options: tuple[tuple[str, float], ...]
    state: GameState
    play: Play | None = None
    forced: bool = False

    @property
    def mark(self) -> str | None:
        return mark(self.error)


@dataclass(slots=True)
class PlayerSummary:
    """One side's totals (errors and luck in EMG; ``luck_value`` and ``result`` in MWC for a
    match, points for money)."""

    name: str
    color: Color
    checker_decisions: int = 0
    checker_error: float = 0.0
    cube_decisions: int = 0
    cube_error: float = 0.0
    luck: float = 0.0
    luck_value: float = 0.0
    result: float = 0.0

    @property
    def checker_error_rate(self) -> float:
        """mEMG per unforced checker play."""
        return 1000 * self.checker_error / self.checker_decisions if self.checker_decisions else 0.0

    @property
    def cube_error_rate(self) -> float:
        return 1000 * self.cube_error / self.cube_decisions if self.cube_decisions else 0.0

    @property
    def error_rate(self) -> float:
        """mEMG per decision, checker and cube together, as GNU Backgammon's overall rate."""
        decisions = self.checker_decisions + self.cube_decisions
        return 1000 * (self.checker_error + self.cube_error) / decisions if decisions else 0.0

    @property
    def rating(self) -> str:
        return rating(self.error_rate / 1000)

    @property
    def luck_adjusted(self) -> float:
        return self.result - self.luck_value

    def as_json(self) -> dict[str, float | int]:
        """The ``--json`` contract's fields, exactly."""
        return {
            "checker_decisions": self.checker_decisions,
            "checker_error": round(self.checker_error, 6),
            "checker_error_rate": round(self.checker_error_rate, 3),
            "cube_decisions": self.cube_decisions,
            "cube_error": round(self.cube_error, 6),
            "error_rate": round(self.error_rate, 3),
            "luck": round(self.luck, 6),
        }


@dataclass
class Analysis:
    """A record judged: every decision in order, the two sides' summaries and the match's course
    (after each play: game, move, white's equity per cube and, in a match, white's MWC)."""

    record: MatchRecord
    analyst: str
    decisions: list[Decision]
    players: dict[Color, PlayerSummary]
    course: list[tuple[int, int, float, float | None]] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        """The ``gammon analyse --json`` contract."""
        return {
            "players": {s.name: s.as_json() for s in (self.players[Color.WHITE], self.players[Color.BLACK])},
            "decisions": [
                {"game": d.game, "move": d.move, "player": d.player, "kind": d.kind, "error": round(d.error, 6),
                 "mark": d.mark}
                for d in self.decisions if not d.forced
            ],
        }


# -- the work -------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class _Task:
    kind: str  # "checker" or "cube"
    game: int
    move: int
    color: Color
    state: GameState
    play: Play | None = None
    doubled: bool = False
    response: ActionKind | None = None
    response_move: int = 0
    opening: bool = False


_players: tuple[Player, Player] | None = None  # a worker's analyst and luck player


def _load(name: str, luck: str) -> None:
    global _players
    analyst = load_player(name)
    _players = (analyst, analyst if luck == name else load_player(luck))


def _unload() -> None:
    global _players
    if _players is not None:
        for player in set(_players):
            player.close()
    _players = None


def _judge(task: _Task) -> dict[str, Any]:
    """One task on a worker, with the worker's analyst."""
    assert _players is not None
    return _judge_with(*_players, task)


_ROLLS = [(d1, d2) for d1 in range(1, 7) for d2 in range(1, d1 + 1)]


def _luck(player: Player, task: _Task) -> float:
    """The rolled roll's best play less the average best play of every roll the side could have had."""
    state = task.state
    assert state.dice is not None

    def best(dice: tuple[int, int]) -> float:
        return _equity(hint(state.replace(dice=dice), *dice, player)[0], player)

    high, low = sorted(state.dice, reverse=True)
    rolled = (high, low)
    values = {dice: best(dice) for dice in _ROLLS if not (task.opening and dice[0] == dice[1])}
    weights = {dice: (1 if dice[0] == dice[1] else 2) for dice in values}
    expected = sum(values[d] * weights[d] for d in values) / sum(weights.values())
    return values[rolled] - expected


def _equity(hint: Hint, player: Player) -> float:
    """A hint's equity; an analyst whose engine names plays without evaluating them cannot judge."""
    if hint.equity is None:
        raise AnalysisError(f"{player.name} gives no evaluation of its plays (only its choice): "
                            "analyse needs a player that reports equities")
    return hint.equity


def _judge_with(analyst: Player, luck: Player, task: _Task) -> dict[str, Any]:
    state = task.state
    context = CubeContext.from_state(state)
    win, lose = context.value_of(state.cube), context.value_of(-state.cube)
    scale = state.cube if context.away is None else (win - lose) / 2
    if task.kind == "cube":
        try:
            decision = cube_hint(state, analyst)
        except GammonError as error:
            if task.doubled:
                raise AnalysisError(f"game {task.game}, move {task.move}: the analyst cannot judge the double: {error}") from None
            return {"decision": None, "why": str(error)}  # no decision to the analyst (GNU Backgammon: a dead cube)
        return {"decision": decision, "scale": scale}
    assert state.dice is not None and task.play is not None
    hints = hint(state, *state.dice, analyst)
    _equity(hints[0], analyst)  # an analyst that evaluates nothing says so before anything else
    legal = state.legal_plays()
    chosen = legal.index(task.play)
    played = next((h for h in hints if legal.index(h.play) == chosen), None)
    if played is None:
        raise AnalysisError(f"game {task.game}, move {task.move}: the analyst did not rank the play made")
    best = hints[0]
    played_equity = _equity(played, analyst)
    mwc = None if context.away is None else float(equity_to_mwc(played_equity, win, lose))
    return {
        "best": _equity(best, analyst), "played": played_equity, "played_text": str(legal[chosen]) or "(no move)",
        "best_text": best.play_text(),
        "options": tuple((h.play_text(), _equity(h, analyst)) for h in hints[:_BEST_SHOWN]),
        "forced": len(legal) == 1, "mwc": mwc, "scale": scale, "luck": _luck(luck, task),
    }


def _tasks(record: MatchRecord) -> Iterator[_Task]:
    """The decisions of the record, replaying it through the referee."""
    match = Match.from_state(record.start_state(), crawford=record.rules.crawford)
    for number, game in enumerate(record.games, 1):
        if number > 1:
            match.new_game()
        rows = game.moves()
        actions = game.actions
        for index, action in enumerate(actions):
            state = match.state
            kind, color = action.kind, action.color
            # A turn with a live cube to turn (not one that cannot gain: 2-away holding a 2-cube).
            if kind == ActionKind.ROLL and color is not None and match.can_double(color) \
                    and CubeContext.from_state(state).can_double:
                yield _Task("cube", number, rows[index], color, state)
            elif kind == ActionKind.DOUBLE and color is not None:
                reply = next((i for i in range(index + 1, len(actions))
                              if actions[i].kind in (ActionKind.TAKE, ActionKind.DROP, ActionKind.BEAVER)), None)
                yield _Task("cube", number, rows[index], color, state, doubled=True,
                            response=actions[reply].kind if reply is not None else None,
                            response_move=rows[reply] if reply is not None else 0)
            elif kind == ActionKind.PLAY and color is not None and action.play is not None:
                opening = index > 0 and actions[index - 1].kind == ActionKind.OPENING_ROLL
                yield _Task("checker", number, rows[index], color, state, play=action.play, opening=opening)
            match.apply(action)


def analyse(
    record: MatchRecord,
    player: str | Player = DEFAULT_ANALYST,
    *,
    workers: int | None = None,
    progress: Callable[[Iterator[Any], int], Iterator[Any]] | None = None,
    luck: str = DEFAULT_ANALYST,
) -> Analysis:
    """Judge every decision of ``record`` with ``player`` (a name, or a player to use in this process).

    ``workers`` processes share the work (default: every core when there is enough to share);
    ``progress(results, total)`` wraps the stream of results (a progress bar); ``luck`` names
    the player that judges the dice.
    """
    tasks = list(_tasks(record))
    if not tasks:
        raise AnalysisError("the record has no decision to judge: no play and no cube action")
    variant = record.rules.variant
    for judge in (player, luck):  # before any worker starts: one that cannot play the rules says so
        try:
            if isinstance(judge, str):
                check_variant(parse_player(judge), variant)
            else:
                judge.variant = variant
        except InvalidPlayerError as error:
            raise AnalysisError(f"the record is played by {variant}: {error}") from None
    if isinstance(player, str):
        name = player
        count = workers if workers is not None else (available_cores() if _worth_sharing(name, len(tasks)) else 1)
        if count > 1 and not parse_player(name).external:  # its kernels compiled here, on every core:
            _load(name, luck)  # the workers then load them
            compiled.prepare()
            _unload()
        pool = Workers(count, initializer=_load, initargs=(name, luck))
        try:
            results: Iterator[Any] = pool.imap(_judge, tasks)
            if progress is not None:
                results = progress(results, len(tasks))
            judged = list(results)
        finally:
            pool.close()
            if count == 1:
                _unload()
    else:
        name = getattr(player, "name", type(player).__name__)
        judge = load_player(luck)
        try:
            stream: Iterator[Any] = (_judge_with(player, judge, task) for task in tasks)
            judged = list(progress(stream, len(tasks)) if progress is not None else stream)
        finally:
            judge.close()
    return _summarise(record, name, tasks, judged)


def _worth_sharing(name: str, tasks: int) -> bool:
    """Whether starting workers pays: a deep or external analyst, or a long record (a 0-ply net
    judges a short match faster than processes start)."""
    spec = parse_player(name)
    return spec.ply > 0 or spec.external or tasks >= 150


def _names(record: MatchRecord) -> dict[Color, str]:
    if record.white != record.black:
        return {Color.WHITE: record.white, Color.BLACK: record.black}
    return {Color.WHITE: f"{record.white} (white)", Color.BLACK: f"{record.black} (black)"}


def _summarise(record: MatchRecord, analyst: str, tasks: list[_Task], judged: list[dict[str, Any]]) -> Analysis:
    names = _names(record)
    players = {color: PlayerSummary(names[color], color) for color in Color}
    decisions: list[Decision] = []
    course: list[tuple[int, int, float, float | None]] = []
    for task, result in zip(tasks, judged):
        summary = players[task.color]
        if task.kind == "checker":
            error = max(0.0, result["best"] - result["played"])
            decisions.append(Decision(task.game, task.move, task.color, summary.name, "checker", error,
                                      result["played_text"], result["best_text"], result["options"], task.state,
                                      task.play, result["forced"]))
            if not result["forced"]:
                summary.checker_decisions += 1
                summary.checker_error += error
            summary.luck += result["luck"]
            summary.luck_value += result["luck"] * result["scale"]
            white = result["played"] if task.color == Color.WHITE else -result["played"]
            mwc = result["mwc"]
            if mwc is not None and task.color != Color.WHITE:
                mwc = 1 - mwc
            course.append((task.game, task.move, white, mwc))
            continue
        if result["decision"] is not None:
            decisions += _cube_decisions(task, result["decision"], names)
    for decision in decisions:
        if decision.kind == "cube":
            players[decision.color].cube_decisions += 1
            players[decision.color].cube_error += decision.error
    _results(record, players)
    return Analysis(record, analyst, decisions, players, course)


def _cube_decisions(task: _Task, decision: CubeDecision, names: dict[Color, str]) -> list[Decision]:
    """The doubler's decision (when it counts) and, after a double, the answer's."""
    nd, dt, dp = decision.no_double, decision.double_take, decision.double_pass
    if nd is None or dt is None or dp is None:
        raise AnalysisError(f"game {task.game}, move {task.move}: the analyst gave no cube equities")
    doubling = min(dt, dp)
    best = max(nd, doubling)
    options = (("No double", nd), ("Double, take", dt), ("Double, pass", dp))
    out = []
    error = best - (doubling if task.doubled else nd)
    if task.doubled or doubling >= nd or nd - doubling < CLOSE_CUBE:
        out.append(Decision(task.game, task.move, task.color, names[task.color], "cube", max(0.0, error),
                            "Double" if task.doubled else "No double",
                            "Double" if doubling > nd else "No double", options, task.state))
    if task.doubled and task.response is not None:
        taker = task.color.other
        took = task.response in (ActionKind.TAKE, ActionKind.BEAVER)
        answer = dt if took else dp
        out.append(Decision(task.game, task.response_move, taker, names[taker], "cube", max(0.0, answer - doubling),
                            {ActionKind.TAKE: "Take", ActionKind.BEAVER: "Beaver"}.get(task.response, "Pass"),
                            "Take" if dt <= dp else "Pass", options, task.state))
    return out


def _results(record: MatchRecord, players: dict[Color, PlayerSummary]) -> None:
    """Each side's result: money points won, or in a match +0.5 / -0.5 once it is won."""
    if record.length == 0:
        for game in record.games:
            if game.result is not None:
                players[game.result.winner].result += game.result.points
                players[game.result.winner.other].result -= game.result.points
        return
    score = [0, 0]
    for game in record.games:
        if game.result is not None:
            score[game.result.winner] += game.result.points
    for color in Color:
        if score[color] >= record.length:
            players[color].result, players[color.other].result = 0.5, -0.5
