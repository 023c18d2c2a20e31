"""gammon's own player: an evaluator, a search depth and optional noise.

``LEVEL`` makes the bot beatable by people, as GNU Backgammon's presets do, by adding
Gaussian noise of the given standard deviation to each play's equity before choosing:

================  =========  =============================================
``beginner``      0.060      big, frequent blunders
``casual``        0.050
``intermediate``  0.040      mistakes a club player would notice
``advanced``      0.015      occasional small errors
``expert``        0          no noise (the default)
================  =========  =============================================

What a level costs depends on the evaluator's equity scale: against noise-free
``pubeval`` (1000 games, seed 1) the levels lose 1.55, 1.01 and 0.28 points per game.
Noise and the random player draw from a seeded generator (:meth:`Bot.reseed`), so a game
replays exactly. Players by name (``pubeval:1:advanced``) are :mod:`gammon.players`'.
"""

from __future__ import annotations

import numpy as np

from ..errors import InvalidPlayerError
from ..play import Play
from ..position import LegalPlays, Position
from ..state import GameState
from ..variant import STANDARD, Variant
from ..cube.context import CubeContext
from ..evaluation import CubeDecision, Hint, Response, equities
from .chooser import Chooser
from .cubeful import HOPELESS, CubefulSearch
from .evaluator import CompositeEvaluator, Evaluator
from .search import DEFAULT_FILTERS, MAX_PLY, Analysis, MoveFilter, Search

#: Equity noise (standard deviation) of each level; GNU Backgammon's preset values.
LEVELS: dict[str, float] = {"beginner": 0.060, "casual": 0.050, "intermediate": 0.040, "advanced": 0.015, "expert": 0.0}


class Bot:
    """Chooses plays with an evaluator, a search depth and optional noise.

    Callable as ``player(state, legal_plays) -> Play``, the opponent interface of the
    terminal game; :meth:`choose_play` is the plain form.
    """

    def __init__(
        self,
        evaluator: Evaluator,
        ply: int = 0,
        noise: float = 0.0,
        seed: int = 0,
        name: str | None = None,
        filters: tuple[MoveFilter, ...] = DEFAULT_FILTERS,
        variant: Variant = STANDARD,
    ) -> None:
        if not 0 <= ply <= MAX_PLY:
            raise InvalidPlayerError(f"ply must be 0-{MAX_PLY}, got {ply}")
        if noise < 0:
            raise InvalidPlayerError(f"noise must be >= 0, got {noise}")
        self.evaluator = evaluator
        self.ply = ply
        self.noise = noise
        self.name = name or (evaluator.name if ply == 0 else f"{evaluator.name}:{ply}")
        self.search = Search(evaluator, filters, variant=variant)
        self._cubeful: CubefulSearch | None = None
        self._static_key: bytes | None = None
        self._static_value = np.zeros(5)
        self.reseed(seed)
        #: The compiled choice, for a noise-free 0-ply bot whose evaluator has a compiled form: made
        #: at its first choice (its code and tables loaded then, once), so a bot built only to
        #: analyse or hint never compiles it. False: none for this bot.
        self._chooser: Chooser | bool | None = None if ply == 0 and noise == 0.0 else False

    def reseed(self, seed: int | np.random.SeedSequence) -> None:
        """Restart the noise (and a random evaluator's) generator: same seed, same choices."""
        sequence = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)
        noise_seed, evaluator_seed = sequence.spawn(2)
        self._rng = np.random.default_rng(noise_seed)
        self._static_key = None  # a random evaluator's last answer must not outlive its seed
        reseed = getattr(self.evaluator, "reseed", None)
        if reseed is not None:
            reseed(evaluator_seed)

    @property
    def variant(self) -> Variant:
        """The rules this bot plays by (its search generates plays and replies by them)."""
        return self.search.variant

    @variant.setter
    def variant(self, variant: Variant) -> None:
        if variant != self.search.variant:
            self.search.variant = variant
            self.search.clear_cache()
            self._cubeful = None
            self._static_key = None

    @property
    def cubeful(self) -> CubefulSearch:
        """The cubeful search over this player's evaluator (cube decisions, play by cubeful equity)."""
        if self._cubeful is None:
            self._cubeful = CubefulSearch(self.search)
        return self._cubeful

    def analyse(self, board: np.ndarray, d1: int, d2: int, full: bool = False,
                context: CubeContext | None = None, ply: int | None = None) -> Analysis:
        """Every play of a kernel board (side to move) scored at this player's depth (or ``ply``),
        noise-free: by cubeless equity, or with a cube ``context`` (the mover's) by cubeful equity / MWC."""
        ply = self.ply if ply is None else ply
        if context is not None:
            return self.cubeful.analyse(board, d1, d2, context, ply, full)
        return self.search.analyse(board, d1, d2, ply, full)

    def cube_decision(self, board: np.ndarray, context: CubeContext) -> CubeDecision:
        """The cube decision of the side on roll of a kernel ``board`` at this player's depth."""
        return self.cubeful.decide(board, context, self.ply)

    # -- the questions a game asks a player (the same for external engines) -------------------
    def _static(self, board: np.ndarray) -> np.ndarray:
        """0-ply probabilities of the side on roll, kept for the next question on the same board."""
        key = board.tobytes()
        if self._static_key != key:
            self._static_key, self._static_value = key, self.cubeful.static(board)
        return self._static_value

    def should_double(self, board: np.ndarray, context: CubeContext) -> bool:
        """Whether the side on roll of ``board`` doubles (or redoubles) now."""
        if not context.can_double:
            return False
        # Money play without the Jacoby rule: a side whose cubeless equity E is not positive
        # never gains by doubling. Doubled and taken, it is worth twice its equity with the cube
        # across, at most E <= 0; not doubling keeps at least that. Exact for Janowski's
        # formulas at 0 ply, a screen deeper.
        if context.is_money and not context.jacoby and equities(self._static(board)[None, :])[0] <= 0.0:
            return False
        return self.cube_decision(board, context).double

    def answer_double(self, board: np.ndarray, context: CubeContext) -> Response:
        """Take, pass or beaver a double from the side on roll of ``board`` (``context`` is the doubler's)."""
        return self.cube_decision(board, context).response

    def offer_resignation(self, board: np.ndarray, context: CubeContext) -> int | None:
        """Points (1-3, times the cube) the side on roll of ``board`` resigns now, or None to play on."""
        if self._static(board)[0] > HOPELESS:
            return None
        return self.cubeful.offer_resignation(board, context, self.ply)

    def accept_resignation(self, board: np.ndarray, context: CubeContext, points: int) -> bool:
        """Whether to accept the resignation of ``points`` by the side on roll of ``board`` (its ``context``)."""
        return self.cubeful.accept_resignation(board, context, points, self.ply)

    def close(self) -> None:
        """Nothing to release (an external engine's player stops its process here)."""

    def choose_index(self, analysis: Analysis) -> int:
        """The play chosen from an analysis: the best, unless noise says otherwise."""
        if self.noise == 0.0 or len(analysis.plies) == 1:
            return analysis.best()
        noisy = analysis.equities() + self._rng.normal(0.0, self.noise, len(analysis.plies))
        deepest = analysis.plies == analysis.plies.max()
        noisy[~deepest] = -np.inf
        return int(np.argmax(noisy))

    def _compiled(self, context: CubeContext | None) -> Chooser | None:
        """The compiled chooser where it makes this choice: cubeless, and no two-move doubles
        (it generates the plays of the standard rules)."""
        if self._chooser is False or context is not None or self.search.variant.two_move_doubles:
            return None
        if self._chooser is None:
            compiled = self.evaluator.kernel()
            bearoff = self.evaluator.bearoff if isinstance(self.evaluator, CompositeEvaluator) else None
            self._chooser = False if compiled is None else Chooser(compiled, bearoff)
            return self._compiled(context)
        assert isinstance(self._chooser, Chooser)
        return self._chooser

    def choose_board(self, board: np.ndarray, d1: int, d2: int, context: CubeContext | None = None) -> np.ndarray:
        """The board after the chosen play (mover's view): what duels need."""
        chooser = self._compiled(context)
        if chooser is not None:
            return chooser.choose_board(_writable(board), d1, d2)
        analysis = self.analyse(board, d1, d2, context=context)
        return analysis.boards[self.choose_index(analysis)]

    def choose_play(self, position: Position, d1: int, d2: int) -> Play:
        """The play this player makes in ``position`` with the roll ``d1``-``d2``."""
        chooser = self._compiled(None)
        if chooser is not None:
            return Play.from_array(*chooser.choose_moves(position.array(), d1, d2))
        analysis = self.analyse(position.array(), d1, d2)
        index = self.choose_index(analysis)
        return Play.from_array(analysis.moves[index], int(analysis.counts[index]))

    def hints(self, position: Position | GameState, d1: int, d2: int) -> list[Hint]:
        """Every legal play ranked at this bot's depth, noise-free: by cubeful equity (money) or
        match winning chance (match) in a :class:`GameState`'s cube context and rules, else cubeless
        by this bot's rules."""
        context = CubeContext.from_state(position) if isinstance(position, GameState) else None
        if isinstance(position, GameState):
            self.variant = position.variant
            position = position.position
        return self.analyse(position.array(), d1, d2, full=True, context=context).hints(cubeful=context is not None)

    def __call__(self, state: object, legal_plays: LegalPlays) -> Play:
        """The terminal game's opponent interface: ``choose(state, legal_plays) -> Play``."""
        d1, d2 = legal_plays.dice
        self.variant = legal_plays.variant
        context = CubeContext.from_state(state) if isinstance(state, GameState) else None
        analysis = self.analyse(legal_plays.position.array(), d1, d2, context=context)
        index = self.choose_index(analysis)
        if len(legal_plays) != len(analysis.plies):  # both come from movegen.generate
            raise RuntimeError("legal plays and search disagree on the number of plays")
        return legal_plays[index]

    def __repr__(self) -> str:
        return f"Bot({self.name!r})"


def _writable(board: np.ndarray) -> np.ndarray:
    """``board`` as the compiled chooser takes it: a writable, contiguous int8 array (a copy only
    where it is not one already)."""
    if board.dtype == np.int8 and board.flags.c_contiguous and board.flags.writeable:
        return board
    return np.array(board, np.int8)
