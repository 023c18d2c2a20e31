"""Players by name: ``NAME[:PLY][:LEVEL]``, the same text in duels, games, hints and engines.

=================  ==========================================================
``random``         a uniformly random legal play
``pubeval``        Tesauro's public benchmark evaluator (pure: no bear-off tables)
``simple``         the article's trained heuristic, exact bear-off tables when built
``nn``             the neural net (registered by its own module when available)
=================  ==========================================================

External engines are players too (:mod:`gammon.engine.players`): ``ubgi:CMD`` runs any
UBGI engine command line, ``gnubg:PLY`` GNU Backgammon (``gnubg -t``) at 0-3 ply.

``PLY`` (0-3, default 0) is the search depth: ``pubeval:1`` is pubeval with 1-ply search.
``LEVEL`` makes the engine beatable by people, as GNU Backgammon's presets do, by adding
Gaussian noise of the given standard deviation to each play's equity before choosing:

================  =========  =============================================
``beginner``      0.060      big, frequent blunders
``casual``        0.050
``intermediate``  0.040      mistakes a club player would notice
``advanced``      0.015      occasional small errors
``expert``        0          no noise (the default)
================  =========  =============================================

So ``simple:beginner``, ``pubeval:1:advanced``. What a level costs depends on the
evaluator's equity scale: against noise-free ``pubeval`` (1000 games, seed 1) the levels
lose 1.55, 1.01 and 0.28 points per game. Noise and the random player draw from a seeded
generator (:meth:`Player.reseed`), so a game replays exactly.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..errors import InvalidPlayerError
from ..play import LegalPlays, Play
from ..position import Position
from ..state import GameState
from ..cube.context import CubeContext
from ..evaluation import CubeDecision, Response, equities
from .cubeful import HOPELESS, CubefulSearch
from .evaluator import CompositeEvaluator, Evaluator, load_bearoff
from .search import DEFAULT_FILTERS, MAX_PLY, Analysis, MoveFilter, Search

#: Equity noise (standard deviation) of each level; GNU Backgammon's preset values.
LEVELS: dict[str, float] = {"beginner": 0.060, "casual": 0.050, "intermediate": 0.040, "advanced": 0.015, "expert": 0.0}


def _random() -> Evaluator:
    from .random_eval import RandomEvaluator

    return RandomEvaluator()


def _pubeval() -> Evaluator:
    from .pubeval import PubevalEvaluator

    return PubevalEvaluator()


def _simple() -> Evaluator:
    from .simple import SimpleEvaluator

    return CompositeEvaluator(SimpleEvaluator(), load_bearoff())


def _nn() -> Evaluator:
    from ..nn.evaluator import NetworkFileError, nn_evaluator

    try:
        return nn_evaluator()
    except NetworkFileError as error:
        raise InvalidPlayerError(f"player 'nn': {error}") from None


_EVALUATORS: dict[str, Callable[[], Evaluator]] = {"random": _random, "pubeval": _pubeval, "simple": _simple, "nn": _nn}
#: Names promised by later work, so the error can say so instead of "unknown".
_PENDING: dict[str, str] = {}


#: Player kinds played by an external engine process (see :mod:`gammon.engine.players`).
EXTERNAL_PLAYERS = ("ubgi", "gnubg")


def register_evaluator(name: str, factory: Callable[[], Evaluator]) -> None:
    """Make ``name`` a player name (how the neural net plugs in as ``nn``)."""
    if not name.isidentifier():
        raise ValueError(f"an evaluator name is a plain word, got {name!r}")
    _EVALUATORS[name] = factory


def player_names() -> list[str]:
    return sorted([*_EVALUATORS, *EXTERNAL_PLAYERS])


@dataclass(frozen=True, slots=True)
class PlayerSpec:
    """A parsed player name; ``str()`` gives the canonical text back."""

    name: str
    ply: int = 0
    level: str = "expert"
    command: str = ""  #: the engine command line of a ``ubgi:CMD`` player

    @property
    def noise(self) -> float:
        return LEVELS[self.level]

    @property
    def external(self) -> bool:
        """Whether an external engine process plays (``ubgi:CMD``, ``gnubg:PLY``)."""
        return self.name in EXTERNAL_PLAYERS

    def __str__(self) -> str:
        if self.command:
            return f"{self.name}:{self.command}"
        if self.external:
            return f"{self.name}:{self.ply}"  # gnubg:0, not a bare gnubg that hides its depth
        text = self.name if self.ply == 0 else f"{self.name}:{self.ply}"
        return text if self.level == "expert" else f"{text}:{self.level}"


def parse_player(text: str) -> PlayerSpec:
    """Read ``NAME[:PLY][:LEVEL]``; :class:`~gammon.errors.InvalidPlayerError` names what is wrong.

    >>> parse_player("pubeval:1")
    PlayerSpec(name='pubeval', ply=1, level='expert', command='')
    >>> parse_player("ubgi:gammon engine --player pubeval").command
    'gammon engine --player pubeval'
    >>> str(parse_player("simple:0:beginner"))
    'simple:beginner'
    """
    parts = text.strip().split(":")
    name = parts[0].lower()
    if name == "ubgi":
        command = text.strip()[len("ubgi:"):].strip()
        if not command:
            raise InvalidPlayerError(f"bad player {text!r}: expected ubgi:COMMAND, e.g. 'ubgi:gammon engine'")
        return PlayerSpec("ubgi", command=command)
    if not name:
        raise InvalidPlayerError(f"bad player {text!r}: expected NAME[:PLY][:LEVEL], e.g. 'pubeval:1'")
    if name not in _EVALUATORS and name not in EXTERNAL_PLAYERS:
        if name in _PENDING:
            raise InvalidPlayerError(f"player {name!r}: {_PENDING[name]}")
        raise InvalidPlayerError(f"unknown player {name!r} in {text!r}: expected one of {', '.join(player_names())}")
    ply: int | None = None
    level: str | None = None
    for part in parts[1:]:
        word = part.lower()
        if word.isdigit():
            if ply is not None:
                raise InvalidPlayerError(f"bad player {text!r}: two plies given")
            ply = int(word)
            if not 0 <= ply <= MAX_PLY:
                raise InvalidPlayerError(f"bad player {text!r}: ply must be 0-{MAX_PLY}, got {ply}")
        elif word in LEVELS:
            if level is not None:
                raise InvalidPlayerError(f"bad player {text!r}: two levels given")
            level = word
        else:
            raise InvalidPlayerError(
                f"bad player {text!r}: {part!r} is neither a ply (0-{MAX_PLY}) nor a level ({', '.join(LEVELS)})"
            )
    if name in EXTERNAL_PLAYERS and level is not None:
        raise InvalidPlayerError(f"bad player {text!r}: an external engine has no noise level")
    return PlayerSpec(name, ply or 0, level or "expert")


class Player:
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
    ) -> None:
        if not 0 <= ply <= MAX_PLY:
            raise InvalidPlayerError(f"ply must be 0-{MAX_PLY}, got {ply}")
        if noise < 0:
            raise InvalidPlayerError(f"noise must be >= 0, got {noise}")
        self.evaluator = evaluator
        self.ply = ply
        self.noise = noise
        self.name = name or (evaluator.name if ply == 0 else f"{evaluator.name}:{ply}")
        self.search = Search(evaluator, filters)
        self._cubeful: CubefulSearch | None = None
        self._static_key: bytes | None = None
        self._static_value = np.zeros(5)
        self.reseed(seed)

    @classmethod
    def from_name(cls, text: str | PlayerSpec, seed: int = 0) -> Player:
        """A player from ``NAME[:PLY][:LEVEL]`` (see the module docstring); an
        :class:`~gammon.engine.players.EnginePlayer` for ``ubgi:CMD`` and ``gnubg:PLY``."""
        spec = text if isinstance(text, PlayerSpec) else parse_player(text)
        if spec.external:
            from ..engine.players import EnginePlayer

            return EnginePlayer(spec)  # type: ignore[return-value]  # the same interface
        return cls(_EVALUATORS[spec.name](), spec.ply, spec.noise, seed, str(spec))

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

    def choose_board(self, board: np.ndarray, d1: int, d2: int, context: CubeContext | None = None) -> np.ndarray:
        """The board after the chosen play (mover's view): what duels need."""
        analysis = self.analyse(board, d1, d2, context=context)
        return analysis.boards[self.choose_index(analysis)]

    def choose_play(self, position: Position, d1: int, d2: int) -> Play:
        """The play this player makes in ``position`` with the roll ``d1``-``d2``."""
        analysis = self.analyse(position.array(), d1, d2)
        index = self.choose_index(analysis)
        return Play.from_array(analysis.moves[index], int(analysis.counts[index]))

    def __call__(self, state: object, legal_plays: LegalPlays) -> Play:
        """The terminal game's opponent interface: ``choose(state, legal_plays) -> Play``."""
        d1, d2 = legal_plays.dice
        context = CubeContext.from_state(state) if isinstance(state, GameState) else None
        analysis = self.analyse(legal_plays.position.array(), d1, d2, context=context)
        index = self.choose_index(analysis)
        if len(legal_plays) != len(analysis.plies):  # both come from movegen.generate
            raise RuntimeError("legal plays and search disagree on the number of plays")
        return legal_plays[index]

    def __repr__(self) -> str:
        return f"Player({self.name!r})"
