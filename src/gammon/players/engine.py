"""External engines as players: ``ubgi:CMD`` (any UBGI engine) and ``gnubg:PLY`` (GNU Backgammon).

An :class:`EnginePlayer` answers the questions a game asks a player (a play, double or
not, take or pass) by asking its engine, so duels, ``gammon play`` and ``gammon engine``
take it wherever they take one of gammon's own players. The engine process starts on the
first question (so duel workers each start their own) and stops with :meth:`close`.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from ..evaluation import CubeDecision, Hint, Response
from ..cube.context import CubeContext, Owner
from ..engine.simple import GnubgEngine, SimpleEngine
from ..errors import UnsupportedFeatureError
from ..play import Play
from ..position import Color, LegalPlays, Position
from ..state import GameState
from ..ubgi import Option
from ..variant import STANDARD, Variant

class EngineSpec(Protocol):
    """What names an external engine: ``gnubg:PLY`` or ``ubgi:CMD`` (a parsed
    :class:`~gammon.players.names.PlayerSpec` is one; its ``str()`` is the player's name)."""

    @property
    def name(self) -> str: ...
    @property
    def ply(self) -> int: ...
    @property
    def command(self) -> str: ...


def open_engine(spec: EngineSpec) -> SimpleEngine:
    """Start the engine a player spec names: a :class:`~gammon.engine.SimpleEngine` for
    ``ubgi:CMD``, a :class:`~gammon.engine.GnubgEngine` for ``gnubg:PLY``."""
    if spec.name == "gnubg":
        return GnubgEngine.popen(ply=spec.ply)
    if spec.name == "ubgi":
        return SimpleEngine.popen_ubgi(spec.command)
    raise ValueError(f"{spec} is not an external engine")


def option_of(engine: object, name: str) -> Option | None:
    """An engine client's setting ``name`` (UBGI, any dialect, or GNU Backgammon's), or None."""
    protocol = getattr(engine, "protocol", None)
    if protocol is not None:
        return protocol.option_named(name)
    return getattr(engine, "options", {}).get(name)


def fitted_seed(option: Option, seed: int) -> int:
    """``seed`` brought into the range the engine announces for its seed (many take less than 2³¹)."""
    low = option.min or 0
    if option.max is None or option.max < low:
        return seed
    return low + seed % (option.max - low + 1)


def state_of(board: np.ndarray, context: CubeContext | None = None, *, dice: tuple[int, int] | None = None,
             double_offered: bool = False) -> GameState:
    """The GameState of a kernel ``board`` (side on roll to act) in a cube ``context`` (its view).

    A match context becomes the score that leaves each side its points to go; a 1-point
    match (cube dead) is sent as 1-away/1-away.
    """
    position = Position(board.tolist(), Color.WHITE)
    if context is None:
        return GameState(position=position, dice=dice, double_offered=double_offered)
    owner = {Owner.CENTRED: None, Owner.ME: Color.WHITE, Owner.OPPONENT: Color.BLACK}[context.owner]
    if context.is_money:
        return GameState(position=position, dice=dice, cube=context.cube, cube_owner=owner,
                         double_offered=double_offered, jacoby=context.jacoby, beavers=context.beavers,
                         cube_limit=context.cube_limit)
    me, opponent = context.away
    length = max(me, opponent, 2)
    score = {Color.WHITE: length - me, Color.BLACK: length - opponent}
    return GameState(position=position, dice=dice, cube=context.cube, cube_owner=owner,
                     double_offered=double_offered, score=(score[Color.BLACK], score[Color.WHITE]),
                     match_length=length, crawford=context.crawford)


class EnginePlayer:
    """A player whose decisions come from an external engine process.

    UBGI has no resignations, so an engine player never resigns and refuses resignations
    (the game is played out). An engine that cannot make cube decisions (UBGI compliance
    level 0) never doubles and takes every double. Settings a duel wants but the game can do
    without (a seed, deterministic answers, cubeless plays) are tried; what the engine does
    without is said in :attr:`notes`, one line each, for the duel to report.
    """

    def __init__(self, spec: EngineSpec) -> None:
        self.spec = spec
        self.name = str(spec)
        self.ply = spec.ply
        self._engine = None
        self._cube_supported = True
        self._mode: str | None = None
        self.notes: set[str] = set()
        self._deterministic_asked = False

    @property
    def variant(self) -> Variant:
        """The standard game: an engine is sent positions and dice, and plays a double as four moves."""
        return STANDARD

    @variant.setter
    def variant(self, variant: Variant) -> None:
        variant.require_standard(self.name)

    @property
    def engine(self):
        if self._engine is None:
            self._engine = open_engine(self.spec)
        return self._engine

    def reseed(self, seed: int | np.random.SeedSequence) -> None:
        """Pass a seed on to the engine (its own randomness, if any), with deterministic answers;
        an engine with no seed, or one that refuses it, plays on, and :attr:`notes` says so."""
        sequence = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)
        engine = self.engine
        option = option_of(engine, "Seed")
        value = int(sequence.generate_state(1)[0] & 0x7FFFFFFF)
        if option is not None and engine.try_configure("Seed", fitted_seed(option, value)):
            if not self._deterministic_asked:
                self._deterministic_asked = True
                engine.try_configure("Deterministic", True)  # where it has it: the seed then decides
            return
        if self.spec.name != "ubgi":
            return  # GNU Backgammon's adapter evaluates without noise: the same question, the same answer
        why = (f"it refused {option.name}: {engine.unsupported[option.name]}" if option is not None
               else "it has no Seed setting")
        self.notes.add(f"{self.name} plays without a seed ({why}): its games are not reproducible")

    # -- checker play -------------------------------------------------------------------------
    def _eval_mode(self, cubeful: bool) -> None:
        """Cubeless games ask an engine with an ``EvalMode`` option for cubeless plays; one that
        refuses plays by its own mode, and :attr:`notes` says so."""
        mode = "cubeful" if cubeful else "cubeless"
        if mode != self._mode:
            option = option_of(self.engine, "EvalMode")
            if option is not None and not self.engine.try_configure("EvalMode", mode):
                self.notes.add(f"{self.name} plays by its own evaluation mode, not {mode} "
                               f"(it refused {option.name}: {self.engine.unsupported[option.name]})")
        self._mode = mode

    def choose_board(self, board: np.ndarray, d1: int, d2: int, context: CubeContext | None = None) -> np.ndarray:
        """The board after the engine's play (mover's view)."""
        state = state_of(board, context)
        legal = state.position.legal_plays(d1, d2)
        self._eval_mode(context is not None)
        play = self.engine.play(state, (d1, d2)).play
        return legal.boards()[legal.index(play)]

    def choose_play(self, position: Position, d1: int, d2: int) -> Play:
        """The engine's cubeless play, as :meth:`Player.choose_play` is."""
        self._eval_mode(False)
        return self.engine.play(GameState(position=position), (d1, d2)).play

    def __call__(self, state: object, legal_plays: LegalPlays) -> Play:
        """The terminal game's opponent interface."""
        legal_plays.variant.require_standard(self.name)
        if isinstance(state, GameState):
            asked = state.replace(dice=None, double_offered=False, resignation=None)
        else:
            asked = GameState(position=legal_plays.position)
        self._eval_mode(isinstance(state, GameState))  # as Player.__call__: cubeful in a game with a cube
        play = self.engine.play(asked, legal_plays.dice).play
        return legal_plays[legal_plays.index(play)]

    # -- the cube -----------------------------------------------------------------------------
    def _cube(self, state: GameState) -> bool | None:
        if not self._cube_supported:
            return None
        try:
            result = self.engine.cube(state)
        except UnsupportedFeatureError:
            self._cube_supported = False
            return None
        return result.double if not state.double_offered else result.take

    def should_double(self, board: np.ndarray, context: CubeContext) -> bool:
        if not context.can_double:
            return False
        return bool(self._cube(state_of(board, context)))

    def answer_double(self, board: np.ndarray, context: CubeContext) -> Response:
        take = self._cube(state_of(board, context, double_offered=True))
        return Response.PASS if take is False else Response.TAKE

    def offer_resignation(self, board: np.ndarray, context: CubeContext) -> int | None:
        return None

    def accept_resignation(self, board: np.ndarray, context: CubeContext, points: int) -> bool:
        return False

    def cube_decision(self, board: np.ndarray, context: CubeContext) -> CubeDecision:
        """The engine's cube decision with its equities (no double, double/take, double/pass),
        for engines whose cube answer reports them (gammon's engine, GNU Backgammon)."""
        answer = self.engine.cube(state_of(board, context))
        nd, dt, dp = answer.no_double, answer.double_take, answer.double_pass
        if nd is None or dt is None or dp is None:
            raise UnsupportedFeatureError(
                "unsupported_feature", f"{self.name} gives no cube equities (nd, dt, dp) with its cube answer")
        return CubeDecision.from_equities(nd, dt, dp, available=context.can_double, redouble=context.owner is Owner.ME)

    def hints(self, position: Position | GameState, d1: int, d2: int) -> list[Hint]:
        """Every legal play of the roll as the engine ranks it (as many as it will rank)."""
        state = position if isinstance(position, GameState) else GameState(position=position)
        self.variant = state.variant  # refused unless the standard game
        plays = len(state.position.legal_plays(d1, d2))
        self._eval_mode(True)  # a GameState's hints are cubeful, as gammon's own are
        return self.engine.analyse(state.replace(dice=None), (d1, d2), multipv=plays)

    def close(self) -> None:
        if self._engine is not None:
            self._engine.close()
            self._engine = None

    def __repr__(self) -> str:
        return f"EnginePlayer({self.name!r})"
