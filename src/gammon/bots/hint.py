"""Hints: every legal play of a roll ranked, with its equity, probabilities and loss against the best."""

from __future__ import annotations

from dataclasses import dataclass

from ..play import Play
from ..position import Position
from .players import Player
from .probabilities import Probabilities

#: The strongest player available until the neural net arrives.
DEFAULT_HINT_PLAYER = "pubeval:2"


@dataclass(frozen=True, slots=True)
class Hint:
    """One ranked play. ``probabilities`` are the mover's after the play, computed at ``ply``."""

    rank: int
    play: Play
    probabilities: Probabilities
    ply: int
    loss: float

    @property
    def equity(self) -> float:
        return self.probabilities.equity

    def play_text(self) -> str:
        return play_text(self.play)

    def as_dict(self) -> dict[str, object]:
        return {
            "rank": self.rank,
            "play": self.play_text(),
            "equity": round(self.equity, 6),
            "loss": round(self.loss, 6),
            "ply": self.ply,
            "probabilities": {k: round(v, 6) for k, v in self.probabilities.as_dict().items()},
        }


def play_text(play: Play) -> str:
    """Standard move text, or the long form while the move-text notation is not there."""
    try:
        text = str(play)
    except ImportError:
        text = play.ubgi()
    return text or "(no move)"


def hint(position: Position, d1: int, d2: int, player: str | Player = DEFAULT_HINT_PLAYER) -> list[Hint]:
    """Every legal play for the side to act, best first (deeper evaluations rank first).

    >>> hints = hint(Position(), 3, 1, "pubeval")
    >>> hints[0].play_text(), hints[0].loss
    ('8/5 6/5', 0.0)
    """
    chooser = player if isinstance(player, Player) else Player.from_name(player)
    analysis = chooser.analyse(position.array(), d1, d2, full=True)
    equities = analysis.equities()
    order = analysis.ranking()
    best = equities[order[0]]
    hints = []
    for rank, index in enumerate(order, start=1):
        play = Play.from_array(analysis.moves[index], int(analysis.counts[index]))
        hints.append(
            Hint(rank, play, analysis.probabilities_of(int(index)), int(analysis.plies[index]), float(best - equities[index]))
        )
    return hints
