"""Every decision of a match record judged by a player: errors, marks, ratings and luck.

The analyst is any player (:func:`gammon.players.load_player`: gammon's net, an external
UBGI engine, GNU Backgammon), asked through the players layer only: :func:`~gammon.players.hint`
ranks the plays of each roll by cubeful equity at the match score, and
:func:`~gammon.players.cube_hint` gives the no double / double take / double pass equities of
each turn where the side on roll could double. Everything is in equity per cube, GNU
Backgammon's "EMG" (in a match: the match winning chances turned into a money-like equity,
+1 winning the cube's value, -1 losing it), so an error at 2-away/2-away weighs like one in
money play.

Each error is also given in match winning chances in a match. The marks, the counting of
decisions, PR, mEMG, ratings, luck rates and the cube breakdown are :mod:`.figures`'; the
analysis is told in a style (``gnubg`` by default here, ``xg`` for ``gammon analyse``), which
sets each decision's mark.

Luck is judged as GNU Backgammon judges it, by a fast player of its own (``luck``, default
gammon's net at 0 ply, as gnubg uses its 0-ply evaluation): what the roll's best play is worth
less what the side on roll could expect before rolling, the average of the best plays of all
36 rolls. The opening roll's expectation is that of the opening itself: each of the 15
non-double rolls, won by either side (so 0 at an even score), as GNU Backgammon judges the
first roll. Forced rolls and dances have their luck too. The luck-adjusted result is the result
less the luck of both sides (a match: the match winning chance above 50%; money: points).

A noisy analyst invents errors: where its own favourite differs from a good play by its noise,
the play is charged. With a ``verify`` player (:func:`deeper`: the analyst one ply deeper) every
decision charged :data:`VERIFY_AT` or more is judged again by it, and its judgement is the one
charged; the decision keeps the first error it was charged (``Decision.verified``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import dataclasses

from .. import compiled
from ..cube.context import CubeContext
from ..cube.met import equity_to_mwc
from ..errors import GammonError, InvalidPlayerError
from ..evaluation import CubeDecision, Hint, Probabilities
from ..match import ActionKind, Match
from ..nn.kinds import WEAK, kind_of
from ..play import Play
from ..players import Player, check_variant, cube_hint, hint, load_player, parse_player
from ..position import Color, Position
from ..record import MatchRecord
from ..state import GameState
from ..workers import Workers, available_cores
from .figures import GNUBG, CubeEquities, PlayerSummary, Style, style_of, summarise

__all__ = [
    "DEFAULT_ANALYST",
    "Analysis",
    "AnalysisError",
    "Candidate",
    "Decision",
    "analyse",
    "deeper",
]

#: The default analyst: gammon's net at 0 ply, fast enough for a match in seconds.
DEFAULT_ANALYST = "nn:0"
#: A decision charged this much (EMG) or more is judged again by the verifier, where there is one.
VERIFY_AT = 0.02
_CANDIDATES = 8  # the analyst's best plays kept with a decision (and the play made, when not among them)


class AnalysisError(GammonError):
    """An analysis that cannot be made (an analyst that fails, a record with nothing to judge)."""


@dataclass(frozen=True, slots=True)
class Candidate:
    """One option of a decision: a play (or a cube action), its equity (EMG, the decider's side),
    the probabilities after it (the decider's; None where unknown) and the depth it was judged at."""

    play: str
    equity: float
    probabilities: Probabilities | None = None
    ply: int | None = None
    judge: str | None = None  #: what judged the position after it (:attr:`gammon.evaluation.Hint.judge`)


@dataclass(frozen=True, slots=True)
class Decision:
    """One judged decision: a checker play (``kind`` "checker") or a cube action ("cube").

    ``move`` is the row of the ``.mat`` file and ``index`` the action's place in its game;
    ``error`` is in EMG and never negative; ``played`` and ``best`` are words (``8/5 6/5``,
    ``Double``, ``Take``); ``candidates`` the analyst's best plays (and the play made), or the
    three cube equities. A checker decision carries its roll's ``luck`` (EMG); a cube decision
    its equities (``cube``). ``stakes`` are the decider's match winning chances of winning and
    of losing the cube's value (None for money); ``mark`` is the analysis's style's.
    """

    game: int
    move: int
    color: Color
    player: str
    kind: str
    error: float
    played: str
    best: str
    candidates: tuple[Candidate, ...]
    state: GameState
    play: Play | None = None
    forced: bool = False
    index: int = 0
    luck: float | None = None
    cube: CubeEquities | None = None
    stakes: tuple[float, float] | None = None
    ply: int | None = None
    probabilities: Probabilities | None = None
    mark: str | None = None
    verified: float | None = None  #: the error the analyst charged before the verifier judged again
    rare_kind: str | None = None  #: the position's rare kind (:func:`gammon.nn.kinds.kind_of`), if any
    weak_judge: bool = False  #: gammon's net judged a kind where its move-error benchmark shows it weak

    @property
    def options(self) -> tuple[tuple[str, float], ...]:
        """The candidates as (words, equity) pairs."""
        return tuple((c.play, c.equity) for c in self.candidates)

    @property
    def scale(self) -> float:
        """What one EMG is worth here: match winning chance in a match, points (the cube) for money."""
        if self.stakes is None:
            return float(self.state.cube)
        win, lose = self.stakes
        return (win - lose) / 2

    @property
    def error_mwc(self) -> float | None:
        """The error in match winning chance (None for money)."""
        return None if self.stakes is None else self.error * self.scale

    def mwc(self, equity: float) -> float | None:
        """An equity of this decision (EMG) as the decider's match winning chance (None for money)."""
        return None if self.stakes is None else float(equity_to_mwc(equity, *self.stakes))

    def counted(self, style: Style) -> bool:
        """Whether it counts among the decider's decisions in ``style`` (:mod:`.figures`)."""
        if self.kind == "checker":
            return not self.forced
        return self.cube is not None and self.cube.counted(style)


@dataclass
class Analysis:
    """A record judged: every decision in order, the two sides' figures and the match's course
    (after each play: game, move, white's equity per cube and, in a match, white's MWC).

    ``style`` tells the marks (:mod:`.figures`); ``source`` is None for gammon's own judgement,
    else the program whose analysis the file carried, shown as it is. Its plain-data view (the
    ``--json`` contract) is :func:`gammon.analysis.views.analysis_json`, apart from the domain.
    """

    record: MatchRecord
    analyst: str
    decisions: list[Decision]
    players: dict[Color, PlayerSummary]
    course: list[tuple[int, int, float, float | None]] = field(default_factory=list)
    style: Style = GNUBG
    source: str | None = None
    verifier: str | None = None  #: the player that judged again the decisions charged VERIFY_AT or more

    def restyled(self, style: str | Style) -> Analysis:
        """The same analysis told in another style (its marks)."""
        chosen = style_of(style)
        decisions = [dataclasses.replace(d, mark=chosen.mark(d.error)) for d in self.decisions]
        return dataclasses.replace(self, decisions=decisions, style=chosen)


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
    index: int = 0
    response_index: int = 0


_players: tuple[Player, Player, Player | None] | None = None  # a worker's analyst, luck player and verifier
_expected: dict[GameState, tuple[float, Probabilities | None]] = {}  # a worker's pre-roll expectations


def _load(name: str, luck: str, verify: str | None = None) -> None:
    global _players
    analyst = load_player(name)
    _players = (analyst, analyst if luck == name else load_player(luck), load_player(verify) if verify else None)
    _expected.clear()


def _unload() -> None:
    global _players
    if _players is not None:
        for player in {p for p in _players if p is not None}:
            player.close()
    _players = None
    _expected.clear()


def _judge(task: _Task) -> dict[str, Any]:
    """One task on a worker, with the worker's analyst."""
    assert _players is not None
    analyst, luck, verifier = _players
    return _judge_with(analyst, luck, task, verifier)


_ROLLS = [(d1, d2) for d1 in range(1, 7) for d2 in range(1, d1 + 1)]


def _best(player: Player, state: GameState, dice: tuple[int, int]) -> Hint:
    return hint(state.replace(dice=dice), *dice, player)[0]


def _pre_roll(player: Player, state: GameState) -> tuple[float, Probabilities | None]:
    """What the side on roll of ``state`` can expect before rolling: the average of the best play
    of every roll (EMG), and the average probabilities after it (kept per state on a worker)."""
    key = state.replace(dice=None)
    found = _expected.get(key)
    if found is not None:
        return found
    total, weights, averaged = 0.0, 0, [0.0] * 5
    known = True
    for dice in _ROLLS:
        weight = 1 if dice[0] == dice[1] else 2
        best = _best(player, key, dice)
        total += _equity(best, player) * weight
        weights += weight
        if best.probabilities is None:
            known = False
        else:
            averaged = [a + p * weight for a, p in zip(averaged, best.probabilities.as_tuple())]
    probabilities = Probabilities(*(min(1.0, max(0.0, a / weights)) for a in averaged)) if known else None
    found = (total / weights, probabilities)
    if len(_expected) > 256:
        _expected.clear()
    _expected[key] = found
    return found


def _opening_expected(player: Player, state: GameState) -> float:
    """The mover's expectation before the opening roll: each of the 15 non-double rolls, won by
    either side (the opponent's best play counted against the mover)."""
    mover = state.position.turn
    theirs = state.replace(position=Position.starting(state.variant, turn=mover.other))
    differences = [_equity(_best(player, state, dice), player) - _equity(_best(player, theirs, dice), player)
                   for dice in _ROLLS if dice[0] != dice[1]]
    return sum(differences) / len(differences) / 2


def _luck(player: Player, task: _Task) -> float:
    """The rolled roll's best play less what the side could expect before rolling."""
    state = task.state
    assert state.dice is not None
    rolled = _equity(_best(player, state, (max(state.dice), min(state.dice))), player)
    expected = _opening_expected(player, state) if task.opening else _pre_roll(player, state)[0]
    return rolled - expected


def _equity(hint: Hint, player: Player) -> float:
    """A hint's equity; an analyst whose engine names plays without evaluating them cannot judge."""
    if hint.equity is None:
        raise AnalysisError(f"{player.name} gives no evaluation of its plays (only its choice): "
                            "analyse needs a player that reports equities")
    return hint.equity


def _stakes(state: GameState) -> tuple[float, float] | None:
    """The side on roll's match winning chances of winning and of losing the cube's value (None: money)."""
    context = CubeContext.from_state(state)
    if context.away is None:
        return None
    return float(context.value_of(state.cube)), float(context.value_of(-state.cube))


def deeper(name: str) -> str | None:
    """The default verifier of an analyst: the same player one ply deeper (None for an engine
    command, rollouts, or an analyst already at the deepest ply)."""
    spec = parse_player(name)
    if spec.command or spec.trials:
        return None
    try:
        return str(parse_player(str(dataclasses.replace(spec, ply=spec.ply + 1))))
    except InvalidPlayerError:
        return None


def _charged(task: _Task, result: dict[str, Any]) -> float:
    """The largest error a judged task charges (the doubler's or the answer's for a cube action)."""
    if task.kind == "checker":
        return result["best"] - result["played"]
    decision = result["decision"]
    if decision is None or None in (decision.no_double, decision.double_take, decision.double_pass):
        return 0.0
    nd, dt, dp = decision.no_double, decision.double_take, decision.double_pass
    errors = [CubeEquities(nd, dt, dp, task.doubled).error()]
    if task.doubled and task.response is not None:
        word = {ActionKind.TAKE: "take", ActionKind.BEAVER: "beaver"}.get(task.response, "pass")
        errors.append(CubeEquities(nd, dt, dp, True, word).error())
    return max(errors)


def _judge_with(analyst: Player, luck: Player, task: _Task, verifier: Player | None = None) -> dict[str, Any]:
    result = _judged(analyst, luck, task)
    first = _charged(task, result)
    if verifier is None or first < VERIFY_AT:
        return result
    again = _judged(verifier, luck, task, known_luck=result.get("luck"))
    if task.kind == "cube" and again["decision"] is None:
        return result
    return {**again, "verified": first}


def _judged(analyst: Player, luck: Player, task: _Task, known_luck: float | None = None) -> dict[str, Any]:
    state = task.state
    stakes = _stakes(state)
    if task.kind == "cube":
        try:
            decision = cube_hint(state, analyst)
        except GammonError as error:
            if task.doubled:
                raise AnalysisError(f"game {task.game}, move {task.move}: the analyst cannot judge the double: {error}") from None
            return {"decision": None, "why": str(error)}  # no decision to the analyst (GNU Backgammon: a dead cube)
        return {"decision": decision, "stakes": stakes, "probabilities": _pre_roll(luck, state)[1],
                "ply": decision.depth if decision.depth is not None else getattr(analyst, "ply", None)}
    assert state.dice is not None and task.play is not None
    hints = hint(state, *state.dice, analyst)
    _equity(hints[0], analyst)  # an analyst that evaluates nothing says so before anything else
    legal = state.legal_plays()
    chosen = legal.index(task.play)
    played = next((h for h in hints if legal.index(h.play) == chosen), None)
    if played is None:
        raise AnalysisError(f"game {task.game}, move {task.move}: the analyst did not rank the play made")
    best = hints[0]
    candidates = [Candidate(h.play_text() or "(no move)", _equity(h, analyst), h.probabilities, h.ply, h.judge)
                  for h in hints[:_CANDIDATES]]
    mine = Candidate(str(legal[chosen]) or "(no move)", _equity(played, analyst), played.probabilities, played.ply,
                     played.judge)
    shown = [mine if c.play == mine.play else c for c in candidates]
    if mine not in shown:
        shown.append(mine)
    return {
        "best": _equity(best, analyst), "played": mine.equity, "played_text": mine.play,
        "best_text": best.play_text() or "(no move)", "candidates": tuple(shown), "forced": len(legal) == 1,
        "stakes": stakes, "luck": _luck(luck, task) if known_luck is None else known_luck, "ply": best.ply,
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
                yield _Task("cube", number, rows[index], color, state, index=index)
            elif kind == ActionKind.DOUBLE and color is not None:
                reply = next((i for i in range(index + 1, len(actions))
                              if actions[i].kind in (ActionKind.TAKE, ActionKind.DROP, ActionKind.BEAVER)), None)
                yield _Task("cube", number, rows[index], color, state, doubled=True,
                            response=actions[reply].kind if reply is not None else None,
                            response_move=rows[reply] if reply is not None else 0, index=index,
                            response_index=reply if reply is not None else index)
            elif kind == ActionKind.PLAY and color is not None and action.play is not None:
                opening = index > 0 and actions[index - 1].kind == ActionKind.OPENING_ROLL
                yield _Task("checker", number, rows[index], color, state, play=action.play, opening=opening,
                            index=index)
            match.apply(action)


def analyse(
    record: MatchRecord,
    player: str | Player = DEFAULT_ANALYST,
    *,
    workers: int | None = None,
    progress: Callable[[Iterator[Any], int], Iterator[Any]] | None = None,
    luck: str = DEFAULT_ANALYST,
    style: str | Style = GNUBG,
    verify: str | None = None,
) -> Analysis:
    """Judge every decision of ``record`` with ``player`` (a name, or a player to use in this process).

    ``workers`` processes share the work (default: every core when there is enough to share);
    ``progress(results, total)`` wraps the stream of results (a progress bar); ``luck`` names
    the player that judges the dice; ``style`` the marks (``gnubg``, as the site shows them, or ``xg``);
    ``verify`` the player that judges again every decision charged :data:`VERIFY_AT` or more.
    """
    tasks = list(_tasks(record))
    if not tasks:
        raise AnalysisError("the record has no decision to judge: no play and no cube action")
    variant = record.rules.variant
    for judge in (player, luck, *((verify,) if verify else ())):  # before any worker starts: one that
        # cannot play the rules says so
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
            _load(name, luck, verify)  # the workers then load them
            compiled.prepare()
            _unload()
        pool = Workers(count, initializer=_load, initargs=(name, luck, verify))
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
        verifier = load_player(verify) if verify else None
        try:
            stream: Iterator[Any] = (_judge_with(player, judge, task, verifier) for task in tasks)
            judged = list(progress(stream, len(tasks)) if progress is not None else stream)
        finally:
            judge.close()
            if verifier is not None:
                verifier.close()
    return dataclasses.replace(summarised(record, name, tasks, judged, style=style_of(style)), verifier=verify)


def _worth_sharing(name: str, tasks: int) -> bool:
    """Whether starting workers pays: a deep or external analyst, or a long record (a 0-ply net
    judges a short match faster than processes start)."""
    spec = parse_player(name)
    return spec.ply > 0 or spec.external or tasks >= 150


def _names(record: MatchRecord) -> dict[Color, str]:
    if record.white != record.black:
        return {Color.WHITE: record.white, Color.BLACK: record.black}
    return {Color.WHITE: f"{record.white} (white)", Color.BLACK: f"{record.black} (black)"}


def summarised(record: MatchRecord, analyst: str, tasks: list[_Task], judged: list[dict[str, Any]], *,
               style: Style = GNUBG, source: str | None = None) -> Analysis:
    """The analysis of judged tasks: decisions in order, each side's figures, the course."""
    names = _names(record)
    decisions: list[Decision] = []
    course: list[tuple[int, int, float, float | None]] = []
    nets = _judged_by_net(analyst)
    for task, result in zip(tasks, judged):
        rare = kind_of(task.state.position.array())
        known = {"rare_kind": rare, "weak_judge": nets and rare in WEAK}
        if task.kind == "checker":
            error = max(0.0, result["best"] - result["played"])
            decision = Decision(task.game, task.move, task.color, names[task.color], "checker", error,
                                result["played_text"], result["best_text"], result["candidates"], task.state,
                                task.play, result["forced"], task.index, result["luck"], None, result["stakes"],
                                result.get("ply"), mark=style.mark(error), verified=result.get("verified"), **known)
            decisions.append(decision)
            white = result["played"] if task.color == Color.WHITE else -result["played"]
            mwc = decision.mwc(result["played"])
            if mwc is not None and task.color != Color.WHITE:
                mwc = 1 - mwc
            course.append((task.game, task.move, white, mwc))
            continue
        if result["decision"] is not None:
            decisions += [dataclasses.replace(d, **known)
                          for d in _cube_decisions(task, result["decision"], names, result, style)]
    return Analysis(record, analyst, decisions, summarise(decisions, names, _results(record)), course, style, source)


def _judged_by_net(analyst: str) -> bool:
    """Whether the analyst is gammon's net (whose weak kinds :data:`gammon.nn.kinds.WEAK` names)."""
    try:
        return parse_player(analyst).name == "nn"
    except InvalidPlayerError:
        return False


def _cube_decisions(task: _Task, decision: CubeDecision, names: dict[Color, str], result: dict[str, Any],
                    style: Style) -> list[Decision]:
    """The doubler's decision (when GNU Backgammon counts it: close or actual) and, after a
    double, the answer's."""
    nd, dt, dp = decision.no_double, decision.double_take, decision.double_pass
    if nd is None or dt is None or dp is None:
        raise AnalysisError(f"game {task.game}, move {task.move}: the analyst gave no cube equities")
    ply = result.get("ply")
    candidates = tuple(Candidate(text, value, None, ply)
                       for text, value in (("No double", nd), ("Double, take", dt), ("Double, pass", dp)))
    common: dict[str, Any] = {"candidates": candidates, "state": task.state, "stakes": result.get("stakes"),
                              "ply": ply, "probabilities": result.get("probabilities"), "verified": result.get("verified")}
    doubler = CubeEquities(nd, dt, dp, task.doubled)
    out = []
    if doubler.counted(GNUBG):  # a clear no double is no decision (and no error) in either style
        error = doubler.error()
        out.append(Decision(task.game, task.move, task.color, names[task.color], "cube", error,
                            "Double" if task.doubled else "No double",
                            "Double" if doubler.doubling > nd else "No double", index=task.index, cube=doubler,
                            mark=style.mark(error), **common))
    if task.doubled and task.response is not None:
        taker = task.color.other
        word = {ActionKind.TAKE: "take", ActionKind.BEAVER: "beaver"}.get(task.response, "pass")
        answer = CubeEquities(nd, dt, dp, True, word)
        error = answer.error()
        answers = (Candidate("Take", -dt, None, ply), Candidate("Pass", -dp, None, ply))  # the taker's side
        out.append(Decision(task.game, task.response_move, taker, names[taker], "cube", error, word.capitalize(),
                            "Take" if dt <= dp else "Pass", index=task.response_index, cube=answer,
                            mark=style.mark(error), **{**common, "candidates": answers}))
    return out


def _results(record: MatchRecord) -> dict[Color, float]:
    """Each side's result: money points won, or in a match +0.5 / -0.5 once it is won."""
    results = {Color.WHITE: 0.0, Color.BLACK: 0.0}
    if record.length == 0:
        for game in record.games:
            if game.result is not None:
                results[game.result.winner] += game.result.points
                results[game.result.winner.other] -= game.result.points
        return results
    score = [0, 0]
    for game in record.games:
        if game.result is not None:
            score[game.result.winner] += game.result.points
    for color in Color:
        if score[color] >= record.length:
            results[color], results[color.other] = 0.5, -0.5
    return results
