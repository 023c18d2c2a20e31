"""Players by name: ``NAME[:PLY][:LEVEL]``, the same text in duels, games, hints and engines.

=================  ==========================================================
``random``         a uniformly random legal play
``pubeval``        Tesauro's public benchmark evaluator (pure: no bear-off tables)
``simple``         the article's trained heuristic, exact bear-off tables when built
``untrained``      the same heuristic before training (pips and blocks only)
``nn``             gammon's neural net, exact bear-off tables when built
``ubgi:CMD``       any UBGI engine, started from the command line ``CMD``
``gnubg:PLY``      GNU Backgammon's command-line program (``gnubg -t``) at 0-3 ply
``rollout:N``      each candidate play rolled out N times (``rollout:N:PLAYER``: with
                   PLAYER's plays and evaluator, default ``nn``; :mod:`gammon.rollout`)
=================  ==========================================================

``PLY`` (0-3, default 0) is the search depth: ``pubeval:1`` is pubeval with 1-ply search.
``LEVEL`` (:data:`gammon.bots.LEVELS`: ``beginner``, ``casual``, ``intermediate``,
``advanced``, ``expert``) adds noise that makes a bot beatable by people:
``simple:beginner``, ``pubeval:1:advanced``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..bots import LEVELS, MAX_PLY, Bot, CompositeEvaluator, Evaluator, load_bearoff
from ..errors import InvalidPlayerError
from ..notation import whole_number
from ..variant import STANDARD, Variant
from .engine import EnginePlayer
from .protocol import Player


def _random() -> Evaluator:
    from ..bots.random_eval import RandomEvaluator

    return RandomEvaluator()


def _pubeval() -> Evaluator:
    from ..bots.pubeval import PubevalEvaluator

    return PubevalEvaluator()


def _simple() -> Evaluator:
    from ..bots.simple import SimpleEvaluator

    return CompositeEvaluator(SimpleEvaluator(), load_bearoff())


def _untrained() -> Evaluator:
    """The article's heuristic before training (pips and blocks only), with the same bear-off
    tables as ``simple``: the "untrained AI" of ../shared/seeds/003's rule experiment."""
    from ..bots.simple import SimpleEvaluator, SimpleWeights

    return CompositeEvaluator(SimpleEvaluator(SimpleWeights()), load_bearoff())


def _nn() -> Evaluator:
    from ..nn.evaluator import nn_evaluator
    from ..nn.network import NetworkFileError

    try:
        return nn_evaluator()
    except NetworkFileError as error:
        raise InvalidPlayerError(f"player 'nn': {error}") from None


_EVALUATORS: dict[str, Callable[[], Evaluator]] = {
    "random": _random, "pubeval": _pubeval, "simple": _simple, "untrained": _untrained, "nn": _nn,
}

#: Player kinds played by an external engine process (:class:`~gammon.players.EnginePlayer`).
EXTERNAL_PLAYERS = ("ubgi", "gnubg")
#: The player whose plays are rolled out (:class:`gammon.rollout.RolloutPlayer`), and its default inner player.
ROLLOUT = "rollout"
ROLLOUT_INNER = "nn"


def register_evaluator(name: str, factory: Callable[[], Evaluator]) -> None:
    """Make ``name`` a player name whose bots evaluate with ``factory()``."""
    if not name.isidentifier():
        raise ValueError(f"an evaluator name is a plain word, got {name!r}")
    if name in EXTERNAL_PLAYERS or name == ROLLOUT:
        raise ValueError(f"{name!r} names external engines or rollouts")
    _EVALUATORS[name] = factory


def player_names() -> list[str]:
    return sorted([*_EVALUATORS, *EXTERNAL_PLAYERS, ROLLOUT])


@dataclass(frozen=True, slots=True)
class PlayerSpec:
    """A parsed player name; ``str()`` gives the canonical text back."""

    name: str
    ply: int = 0
    level: str = "expert"
    command: str = ""  #: the engine command line of a ``ubgi:CMD`` player
    trials: int = 0  #: a ``rollout:N`` player's trials per candidate play
    inner: str = ""  #: a ``rollout:N:PLAYER`` player's PLAYER

    @property
    def noise(self) -> float:
        return LEVELS[self.level]

    @property
    def external(self) -> bool:
        """Whether an external engine process plays (``ubgi:CMD``, ``gnubg:PLY``)."""
        return self.name in EXTERNAL_PLAYERS

    def __str__(self) -> str:
        if self.name == ROLLOUT:
            return f"{ROLLOUT}:{self.trials}" + ("" if self.inner == ROLLOUT_INNER else f":{self.inner}")
        if self.command:
            return f"{self.name}:{self.command}"
        if self.external:
            return f"{self.name}:{self.ply}"  # gnubg:0, not a bare gnubg that hides its depth
        text = self.name if self.ply == 0 else f"{self.name}:{self.ply}"
        return text if self.level == "expert" else f"{text}:{self.level}"


def parse_player(text: str) -> PlayerSpec:
    """Read ``NAME[:PLY][:LEVEL]``; :class:`~gammon.errors.InvalidPlayerError` names what is wrong.

    >>> parse_player("pubeval:1")
    PlayerSpec(name='pubeval', ply=1, level='expert', command='', trials=0, inner='')
    >>> parse_player("ubgi:gammon engine --player pubeval").command
    'gammon engine --player pubeval'
    >>> str(parse_player("simple:0:beginner"))
    'simple:beginner'
    >>> parse_player("rollout:36:pubeval").trials
    36
    """
    parts = text.strip().split(":")
    name = parts[0].lower()
    if name == "ubgi":
        command = text.strip()[len("ubgi:"):].strip()
        if not command:
            raise InvalidPlayerError(f"bad player {text!r}: expected ubgi:COMMAND, e.g. 'ubgi:gammon engine'")
        return PlayerSpec("ubgi", command=command)
    if name == ROLLOUT:
        return _parse_rollout(text, parts)
    if not name:
        raise InvalidPlayerError(f"bad player {text!r}: expected NAME[:PLY][:LEVEL], e.g. 'pubeval:1'")
    if name not in _EVALUATORS and name not in EXTERNAL_PLAYERS:
        raise InvalidPlayerError(f"unknown player {name!r} in {text!r}: expected one of {', '.join(player_names())}")
    ply: int | None = None
    level: str | None = None
    for part in parts[1:]:
        word = part.strip().lower()
        if word.isascii() and word.isdigit():
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


def _parse_rollout(text: str, parts: list[str]) -> PlayerSpec:
    """``rollout:TRIALS[:PLAYER]``: PLAYER is one of gammon's own (an evaluator to roll out with)."""
    trials = whole_number(parts[1].strip()) if len(parts) > 1 else None
    if trials is None or trials < 2:
        raise InvalidPlayerError(f"bad player {text!r}: expected rollout:TRIALS[:PLAYER] with TRIALS a whole number >= 2, "
                                 "e.g. 'rollout:36' or 'rollout:36:pubeval'")
    try:
        inner = parse_player(":".join(parts[2:]) if len(parts) > 2 else ROLLOUT_INNER)
    except InvalidPlayerError as error:
        raise InvalidPlayerError(f"bad player {text!r}: its PLAYER: {error}") from None
    if inner.external or inner.name == ROLLOUT:
        raise InvalidPlayerError(f"bad player {text!r}: rollouts play with one of gammon's own players "
                                 f"({', '.join(_EVALUATORS)}), not {str(inner)!r}")
    return PlayerSpec(ROLLOUT, trials=trials, inner=str(inner))


def check_variant(spec: PlayerSpec, variant: Variant) -> None:
    """Refuse a variant to a player that plays the standard game only (an external engine,
    rollouts), before anything is started."""
    if spec.external or spec.name == ROLLOUT:
        variant.require_standard(str(spec))


def load_player(text: str | PlayerSpec, seed: int = 0, variant: Variant = STANDARD) -> Player:
    """The player a name gives (see the module docstring): a :class:`~gammon.bots.Bot` for
    gammon's own evaluators, an :class:`EnginePlayer` for ``ubgi:CMD`` and ``gnubg:PLY``.

    >>> from gammon import Position
    >>> load_player("pubeval").choose_play(Position(), 3, 1).ubgi()
    '8/5 6/5'
    """
    spec = text if isinstance(text, PlayerSpec) else parse_player(text)
    check_variant(spec, variant)
    if spec.external:
        return EnginePlayer(spec)
    if spec.name == ROLLOUT:
        from ..rollout.player import RolloutPlayer

        inner = load_player(spec.inner, seed)
        assert isinstance(inner, Bot)
        return RolloutPlayer(inner, spec.trials, seed, name=str(spec))
    return Bot(_EVALUATORS[spec.name](), spec.ply, spec.noise, seed, str(spec), variant=variant)
