"""What answers ``gammon engine``'s searches: gammon's own players, or an external engine.

:class:`LocalBackend` runs a :class:`~gammon.bots.Bot`, deepening one ply at a time so that
``stop`` finds an answer ready and interrupts the depth in progress. :class:`EngineBackend`
forwards to an engine client (GNU Backgammon's adapter, or any UBGI engine), whose every
request is answered in one piece and cannot be stopped: it asks at 0 ply first, then at
the full depth, and the server keeps gammon's own 0-ply answer (:func:`standby_backend`)
ready until the first result comes.
"""

from __future__ import annotations

import dataclasses
import threading
import zlib
from collections.abc import Callable
from typing import Protocol

import numpy as np

from ..bots import Bot, PubevalEvaluator
from ..players import load_player, parse_player
from ..bots.search import SearchInterrupted
from ..cube.context import CubeContext
from ..players.engine import fitted_seed, open_engine, option_of
from ..engine.results import Limit
from ..errors import UnsupportedFeatureError
from ..evaluation import CubeDecision, Hint
from ..state import GameState

#: ``report(ply, hints, choice)``: a completed depth, its ranked plays and the index of the chosen one.
Report = Callable[[int, list[Hint], int], None]


class StopSignal(threading.Event):
    """Set by ``stop`` (or the end of ``movetime``): finish after the current depth."""


class Backend(Protocol):
    #: Whether ``stop`` ends its searches (gammon's own) or not (an external engine's requests).
    stoppable: bool

    def reseed(self, seed: int, state: GameState, deterministic: bool, number: int) -> None: ...

    def analyse(self, state: GameState, depth: int, multipv: int, cubeful: bool, stop: StopSignal,
                report: Report) -> list[Hint]: ...

    def cube(self, state: GameState, depth: int, cubeful: bool, stop: StopSignal) -> CubeDecision: ...

    def evaluate(self, state: GameState, depth: int, cubeful: bool) -> dict[str, float]: ...

    def threads(self, count: int) -> None: ...

    def warm(self, depth: int) -> None: ...

    def close(self) -> None: ...


#: What a warm-up asks: a roll of few plays and a cube question, so every kernel a search
#: and a cube decision use is compiled, quickly once it is.
_WARM_UP = GameState(dice=(2, 1))


def _standard_only(state: GameState, what: str) -> None:
    """Refuse a rule variant (BPN's flags ``n``, ``t``) to what plays the standard game only."""
    if not state.variant.standard:
        raise UnsupportedFeatureError("unsupported_feature", f"{what} plays the standard game only, not {state.variant}")


class LocalBackend:
    """One of gammon's players (``nn``, ``pubeval:1:advanced``, ...)."""

    stoppable = True

    def __init__(self, player: Bot) -> None:
        self.player = player

    def reseed(self, seed: int, state: GameState, deterministic: bool, number: int) -> None:
        """Deterministic: the noise depends on the seed and the position only; else on the go's number too."""
        text = f"{state.gnubg_id()} {state.dice}".encode()
        extra = [] if deterministic else [number]
        self.player.reseed(np.random.SeedSequence([seed, zlib.crc32(text), *extra]))

    def analyse(self, state: GameState, depth: int, multipv: int, cubeful: bool, stop: StopSignal,
                report: Report) -> list[Hint]:
        """Deepen one ply at a time; ``stop`` interrupts the depth in progress (0 ply always completes)."""
        assert state.dice is not None
        self.player.variant = state.variant  # a BPN with variant flags: the search plays by them
        board = state.position.array()
        context = CubeContext.from_state(state) if cubeful else None
        hints: list[Hint] = []
        search = self.player.search
        for ply in range(depth + 1):
            if ply and stop.is_set():
                break
            search.interrupt = stop.is_set if ply else None
            try:
                # Several plays wanted: every candidate the filters pass gets the full depth, as in hints.
                analysis = self.player.analyse(board, *state.dice, full=multipv > 1, context=context, ply=ply)
            except SearchInterrupted:
                break
            finally:
                search.interrupt = None
            hints = analysis.hints(cubeful=context is not None)
            chosen = self.player.choose_index(analysis)
            report(ply, hints, int(np.flatnonzero(analysis.ranking() == chosen)[0]))
            if len(hints) == 1:
                break
        return hints

    def rollout(self, state: GameState, trials: int, budget: bool, cubeful: bool, seed: int, stop: StopSignal,
                report: Report) -> list[Hint]:
        """``go ... trials N``: the 0-ply candidates each rolled out N times (``nodes N``, ``budget``:
        N trials shared among them) with 0-ply plays; the 0-ply ranking is reported first, and
        stands if ``stop`` comes during the rollouts."""
        from ..rollout.player import RolloutPlayer

        assert state.dice is not None
        _standard_only(state, "rollouts")
        context = CubeContext.from_state(state) if cubeful else None
        board = state.position.array()
        fast = Bot(self.player.evaluator, name=self.player.evaluator.name)
        analysis = fast.analyse(board, *state.dice, context=context)
        hints = analysis.hints(cubeful=context is not None)
        report(0, hints, 0)
        if len(hints) == 1:
            return hints
        each = max(2, trials // len(fast.search.filters[0].select(analysis.equities())) if budget else trials)
        try:
            hints = RolloutPlayer(fast, each, seed).ranked(board, *state.dice, context, stop.is_set)[0]
        except SearchInterrupted:
            return hints
        report(0, hints, 0)
        return hints

    def cube(self, state: GameState, depth: int, cubeful: bool, stop: StopSignal) -> CubeDecision:
        """The decision at the deepest ply reached before ``stop`` (0 ply always completes), as
        the answer to the question the state asks (``offered``: take or drop)."""
        self.player.variant = state.variant
        context = CubeContext.from_state(state)
        board = state.position.array()
        search = self.player.search
        decision, reached = self.player.cubeful.decide(board, context, 0), 0
        for ply in range(1, depth + 1):
            if stop.is_set():
                break
            search.interrupt = stop.is_set
            try:
                decision, reached = self.player.cubeful.decide(board, context, ply), ply
            except SearchInterrupted:
                break
            finally:
                search.interrupt = None
        assert decision.double_take is not None and decision.double_pass is not None
        if state.double_offered:
            info: dict[str, object] = {"eq": -min(decision.double_take, decision.double_pass)}  # the taker's view
        else:
            info = {"eq": decision.best}
        if decision.mwc is not None:
            info["mwc"] = decision.mwc[1 if decision.double else 0]
        return dataclasses.replace(decision, offered=state.double_offered, depth=reached, info=info)

    def evaluate(self, state: GameState, depth: int, cubeful: bool) -> dict[str, float]:
        self.player.variant = state.variant
        context = CubeContext.from_state(state)
        value, probabilities = self.player.cubeful.value(state.position.array(), context, depth)
        p = probabilities
        equity = float(context.normalise(value)) if cubeful else float(
            2 * p[0] - 1 + p[1] + p[2] - p[3] - p[4])
        out = {"eq": equity}
        if not context.is_money:
            out["mwc"] = float(value)
        out.update(pwin=float(p[0]), pgammon=float(p[1]), pbg=float(p[2]),
                   plose_gammon=float(p[3]), plose_bg=float(p[4]))
        return out

    def threads(self, count: int) -> None:
        """gammon's search runs on one thread."""

    def warm(self, depth: int) -> None:
        """Search a play and a cube decision at ``depth`` once, to compile the kernels they run
        (about 14 s on an empty cache: better before ``readyok`` than in the first search)."""
        quiet = StopSignal()
        self.analyse(_WARM_UP, depth, 1, True, quiet, lambda ply, hints, choice: None)
        self.cube(_WARM_UP.replace(dice=None), depth, True, quiet)

    def close(self) -> None:
        pass


class EngineBackend:
    """An external engine behind gammon's client API (GNU Backgammon's adapter, a UBGI engine).

    Its requests cannot be stopped, so a search asks at 0 ply first (quick), then, unless
    ``stop`` has come meanwhile, at the full depth.
    """

    stoppable = False

    def __init__(self, engine: object) -> None:
        self.engine = engine
        self._mode: str | None = None  # the EvalMode and Seed last sent
        self._seed: int | None = None

    def reseed(self, seed: int, state: GameState, deterministic: bool, number: int) -> None:
        """The seed passed on, if the engine takes one (a refusal is not asked again)."""
        option = option_of(self.engine, "Seed")
        if seed != self._seed and option is not None:
            self.engine.try_configure("Seed", fitted_seed(option, seed))
        self._seed = seed

    def analyse(self, state: GameState, depth: int, multipv: int, cubeful: bool, stop: StopSignal,
                report: Report) -> list[Hint]:
        assert state.dice is not None
        _standard_only(state, "an external engine")
        mode = "cubeful" if cubeful else "cubeless"
        if mode != self._mode:
            self.engine.try_configure("EvalMode", mode)  # one that refuses plays by its own mode
        self._mode = mode
        hints: list[Hint] = []
        for ply in sorted({0, depth}):
            if ply and stop.is_set():
                break
            hints = self.engine.analyse(state, state.dice, multipv=multipv, limit=Limit(depth=ply))
            if not hints:
                break
            report(hints[0].ply, hints, 0)
            if len(state.position.legal_plays(*state.dice)) == 1:
                break  # a forced play: nothing deeper to ask
        return hints

    def cube(self, state: GameState, depth: int, cubeful: bool, stop: StopSignal) -> CubeDecision:
        _standard_only(state, "an external engine")
        return self.engine.cube(state, Limit(depth=depth))

    def evaluate(self, state: GameState, depth: int, cubeful: bool) -> dict[str, float]:
        raise UnsupportedFeatureError("unsupported_feature", "eval is not available from an external engine")

    def threads(self, count: int) -> None:
        """Passed on to an engine with a ``Threads`` option of its own (GNU Backgammon has one)."""
        option = option_of(self.engine, "Threads")
        if option is not None:
            self.engine.try_configure(option.name, max(option.min or 1, min(count, option.max or count)))

    def warm(self, depth: int) -> None:
        """Nothing to do here: the engine was ready (``readyok``) before its client returned."""

    def close(self) -> None:
        self.engine.close()


def backend_for(name: str, ply: int) -> Backend:
    """The backend of a player name: ``nn:2``, ``gnubg:2`` or ``ubgi:CMD``."""
    spec = parse_player(name)
    if spec.external:
        return EngineBackend(open_engine(spec))
    return LocalBackend(load_player(spec))


def standby_backend() -> LocalBackend:
    """gammon's quickest player (pubeval, 0 ply, no tables to load): the answer that stands by
    while an external engine, which cannot stop, works on its own."""
    return LocalBackend(Bot(PubevalEvaluator(), name="pubeval"))
