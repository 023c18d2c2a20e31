"""Kinds of position that TD self-play rarely reaches and a net therefore judges worst.

Each kind is a predicate on the side on roll's board (before the roll, as
:func:`gammon.movegen.generate` takes it) that holds when either side is in that kind of game:
the move-error benchmark (bench/move_error.py) draws its decisions from them, the distillation
data set (:mod:`gammon.train.distill`) adds them to the net's ordinary self-play for coverage,
and an analysis marks the decisions of the kinds where the benchmark shows the net weakest
(:data:`WEAK`).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .. import movegen
from ..bots.evaluator import CONTACT, pip_counts
from .network import CRASHED_NET, net_of


def _longest_prime(board: np.ndarray) -> int:
    """The side on roll's longest run of made points (two checkers or more) on points 1-24."""
    best = run = 0
    for point in range(1, 25):
        run = run + 1 if board[point] >= 2 else 0
        best = max(best, run)
    return best


def _either(test: Callable[[np.ndarray], bool]) -> Callable[[np.ndarray], bool]:
    """A predicate that holds when ``test`` holds for the side on roll or for the other side."""
    def both(board: np.ndarray) -> bool:
        return test(board) or test(movegen.flip_board(board))
    both.__doc__ = test.__doc__
    return both


def _contact(board: np.ndarray) -> bool:
    return movegen.board_class(board) == CONTACT


def crashed(board: np.ndarray) -> bool:
    """Contact where a side has crashed (few checkers left in play): the crashed net's positions."""
    return bool(net_of(movegen.flip_board(board)) == CRASHED_NET)


def _backgame(board: np.ndarray) -> bool:
    """The side on roll holds two points or more in the other's home board and trails by 50 pips or more."""
    held = int((board[19:25] >= 2).sum())
    mine, theirs = pip_counts(board)
    return held >= 2 and mine - theirs >= 50


def _contained(board: np.ndarray) -> bool:
    """The side on roll has one to three checkers back, on no point of its own there, behind four or
    more of the other side's made points between its 2- and 11-points."""
    back = board[19:25]
    if board[25] + back[back > 0].sum() not in (1, 2, 3) or (back >= 2).any():
        return False
    theirs = -board[14:24]  # the other side's points 11..2 in its own numbering
    return int((theirs >= 2).sum()) >= 4


def _prime_against_prime(board: np.ndarray) -> bool:
    """Both sides have a prime of four points or longer, and the checkers can still meet."""
    return _contact(board) and _longest_prime(board) >= 4 and _longest_prime(movegen.flip_board(board)) >= 4


def _bearing_off_against_contact(board: np.ndarray) -> bool:
    """The side on roll has every checker home (some may be off) while the other still has one behind it."""
    if not _contact(board):
        return False
    return board[25] == 0 and not (board[7:25] > 0).any()


backgame = _either(_backgame)
containment = _either(_contained)
prime_against_prime = _prime_against_prime
bearing_off_against_contact = _either(_bearing_off_against_contact)

#: The rare kinds by name, each a predicate on the side on roll's board.
RARE: dict[str, Callable[[np.ndarray], bool]] = {
    "crashed": crashed,
    "containment": containment,
    "backgame": backgame,
    "prime vs prime": prime_against_prime,
    "bear-off vs contact": bearing_off_against_contact,
}
#: The kinds where the shipped net's 0-ply choices lose most against GNU Backgammon's 2-ply
#: judgement (bench/move_error.py, 5,000 decisions, seed 2026): backgames 17.6 millipoints a
#: decision and crashed positions 12.2, against GNU Backgammon's own 0-ply 3.0 and 1.8 (six and
#: seven times as much; 2.5 times on real-match positions). An analysis marks their decisions.
WEAK = ("backgame", "crashed")


def kind_of(board: np.ndarray) -> str | None:
    """The first rare kind that ``board`` (the side on roll's) is of, or None."""
    for name, test in RARE.items():
        if test(board):
            return name
    return None
