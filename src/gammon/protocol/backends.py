"""What answers ``gammon engine``'s searches: gammon's own players, or an external engine.

:class:`LocalBackend` runs a :class:`~gammon.bots.Bot`, deepening one ply at a
time so that ``stop`` finds an answer ready; :class:`EngineBackend` forwards to an engine
client (GNU Backgammon's adapter, or any UBGI engine), which answers in one piece.
"""

from __future__ import annotations

import threading
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from ..evaluation import Hint, Response
from ..bots import Bot
from ..players import load_player, parse_player
from ..bots.search import SearchInterrupted
from ..cube.context import CubeContext
from ..players.engine import has_option, open_engine
from ..engine.results import Limit
from ..errors import UnsupportedFeatureError
from ..state import GameState

#: ``report(ply, hints, choice)``: a completed depth, its ranked plays and the index of the chosen one.
Report = Callable[[int, list[Hint], int], None]


class StopSignal(threading.Event):
    """Set by ``stop`` (or the end of ``movetime``): finish after the current depth."""


@dataclass(frozen=True, slots=True)
class CubeAnswer:
    """``action`` is double, nodouble, take or drop; ``info`` the equities behind it."""

    action: str
    info: dict[str, float] = field(default_factory=dict)
    depth: int | None = None


class Backend(Protocol):
    def reseed(self, seed: int, state: GameState, deterministic: bool, number: int) -> None: ...

    def analyse(self, state: GameState, depth: int, multipv: int, cubeful: bool, stop: StopSignal,
                report: Report) -> list[Hint]: ...

    def cube(self, state: GameState, depth: int, cubeful: bool, stop: StopSignal) -> CubeAnswer: ...

    def evaluate(self, state: GameState, depth: int, cubeful: bool) -> dict[str, float]: ...

    def threads(self, count: int) -> None: ...

    def close(self) -> None: ...


class LocalBackend:
    """One of gammon's players (``nn``, ``pubeval:1:advanced``, ...)."""

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

    def cube(self, state: GameState, depth: int, cubeful: bool, stop: StopSignal) -> CubeAnswer:
        """The decision at the deepest ply reached before ``stop`` (0 ply always completes)."""
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
        info = {"nd": decision.no_double, "dt": decision.double_take, "dp": decision.double_pass}
        if state.double_offered:
            action = "drop" if decision.response is Response.PASS else "take"
            info["eq"] = -min(decision.double_take, decision.double_pass)  # the taker's view
        else:
            action = "double" if decision.double and context.can_double else "nodouble"
            info["eq"] = decision.best
        if decision.mwc is not None:
            info["mwc"] = decision.mwc[1 if decision.double else 0]
        return CubeAnswer(action, info, reached)

    def evaluate(self, state: GameState, depth: int, cubeful: bool) -> dict[str, float]:
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

    def close(self) -> None:
        pass


class EngineBackend:
    """An external engine behind gammon's client API (GNU Backgammon's adapter, a UBGI engine)."""

    def __init__(self, engine: object) -> None:
        self.engine = engine
        self._mode: str | None = None  # the EvalMode and Seed last sent
        self._seed: int | None = None

    def reseed(self, seed: int, state: GameState, deterministic: bool, number: int) -> None:
        if seed != self._seed and has_option(self.engine, "Seed"):
            self.engine.configure({"Seed": seed})
        self._seed = seed

    def analyse(self, state: GameState, depth: int, multipv: int, cubeful: bool, stop: StopSignal,
                report: Report) -> list[Hint]:
        assert state.dice is not None
        mode = "cubeful" if cubeful else "cubeless"
        if mode != self._mode and has_option(self.engine, "EvalMode"):
            self.engine.configure({"EvalMode": mode})
        self._mode = mode
        hints = self.engine.analyse(state, state.dice, multipv=multipv, limit=Limit(depth=depth))
        if hints:
            report(hints[0].ply, hints, 0)
        return hints

    def cube(self, state: GameState, depth: int, cubeful: bool, stop: StopSignal) -> CubeAnswer:
        result = self.engine.cube(state, Limit(depth=depth))
        info = {k: float(v) for k, v in result.info.items() if isinstance(v, (int, float))}
        return CubeAnswer(result.action, info, None)

    def evaluate(self, state: GameState, depth: int, cubeful: bool) -> dict[str, float]:
        raise UnsupportedFeatureError("unsupported_feature", "eval is not available from an external engine")

    def threads(self, count: int) -> None:
        """Passed on to an engine with a ``Threads`` option of its own (GNU Backgammon has one)."""
        option = self.engine.options.get("Threads")
        if option is not None:
            self.engine.configure({"Threads": max(option.min or 1, min(count, option.max or count))})

    def close(self) -> None:
        self.engine.close()


def backend_for(name: str, ply: int) -> Backend:
    """The backend of a player name: ``nn:2``, ``gnubg:2`` or ``ubgi:CMD``."""
    spec = parse_player(name)
    if spec.external:
        return EngineBackend(open_engine(spec))
    return LocalBackend(load_player(spec))
