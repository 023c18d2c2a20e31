"""What the engine client asks with and gets back: the state asked about, limits, plays.

Ranked plays and cube answers are the core's :class:`~gammon.evaluation.Hint` and
:class:`~gammon.evaluation.CubeDecision`, whoever evaluates.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..play import Play
from ..position import Position
from ..state import GameState


def as_state(position: GameState | Position) -> GameState:
    """What an engine is asked about: a bare Position is a money game with the cube centred."""
    if isinstance(position, GameState):
        return position
    if isinstance(position, Position):
        return GameState(position=position)
    raise TypeError(f"expected a GameState or a Position, got {type(position).__name__}")


def state_and_dice(position: GameState | Position, dice: tuple[int, int] | None) -> tuple[GameState, tuple[int, int]]:
    """The state asked about and the roll to play: ``dice``, else the state's own (ValueError if neither)."""
    state = as_state(position)
    dice = dice if dice is not None else state.dice
    if dice is None:
        raise ValueError("no dice: give dice=(d1, d2) or a state with dice")
    if len(dice) != 2 or not all(isinstance(d, int) and 1 <= d <= 6 for d in dice):
        raise ValueError(f"dice must be two values 1-6, got {dice!r}")
    return state, (int(dice[0]), int(dice[1]))


@dataclass(frozen=True, slots=True)
class Limit:
    """How long or deep an engine may think, as ``go`` takes it; ``None`` leaves it to the engine.

    ``time`` is seconds (sent as ``movetime`` in ms), ``depth`` plies, ``nodes`` positions
    evaluated, ``trials`` rollout games.

    >>> Limit(time=0.5).go_arguments()
    'movetime 500'
    """

    time: float | None = None
    depth: int | None = None
    nodes: int | None = None
    trials: int | None = None

    def go_arguments(self) -> str:
        parts = []
        if self.time is not None:
            parts.append(f"movetime {max(1, round(self.time * 1000))}")
        for name in ("depth", "nodes", "trials"):
            value = getattr(self, name)
            if value is not None:
                parts.append(f"{name} {int(value)}")
        return " ".join(parts)


@dataclass(frozen=True, slots=True)
class PlayResult:
    """The engine's play for a roll (an empty :class:`Play` when the roll cannot be played).

    ``info`` holds the last ``info`` line's values before the answer (``eq``, ``pwin``,
    ``depth``, ...), numbers as floats or ints.
    """

    play: Play
    info: dict[str, object] = field(default_factory=dict)
