"""Compiled 0-ply self-play for the cheap evaluators, fast enough for hill climbing.

One game is a loop of move generation and scoring inside numba: about a millisecond a
game, so a trainer can afford thousands of games per candidate. A seat is a kind
(:data:`PUBEVAL` or :data:`SIMPLE`) and a ``(2, 122)`` weight block: pubeval's race and
contact rows, or the heuristic's weights at the start of row 0. Dice come from the
seeded streams (:mod:`gammon.dice.streams`), so ``(seed, game)`` fixes a game's rolls.
"""

from __future__ import annotations

import numpy as np

from .. import movegen
from ..bots.evaluator import CONTACT, OVER, board_class, pip_counts
from ..bots.pubeval import load_weights, pubeval_score
from ..bots.simple import simple_score
from ..dice.streams import next_roll, opening_roll, stream_state
from ..position import Position
from ..compiled import kernel

PUBEVAL = 0
SIMPLE = 1
MAX_TURNS = 5000
SAMPLE_WIDTH = 9
OPENING = Position().array()


def pubeval_block() -> np.ndarray:
    race, contact = load_weights()
    return np.stack([race, contact])


def simple_block(weights: np.ndarray) -> np.ndarray:
    block = np.zeros((2, 122))
    block[0, : len(weights)] = weights
    return block


@kernel("(int64, float64[:, ::1], int8[::1], boolean)")
def _score(kind, weights, child, race):
    if kind == PUBEVAL:
        return pubeval_score(child, weights[0] if race else weights[1])
    return simple_score(child, weights[0])


@kernel("(int64[::1], float64[:, :, ::1], int64, int64, float64[:, ::1])")
def play_game(kinds, weights, seed, game, samples):
    """Play one game, seat 0 moving first; returns (seat 0's points, samples recorded).

    Each turn records (score of the chosen play, 1 if scored as a race, mover's seat, pip
    lead after the roll, score of the opponent's standing before the play; then the
    position on its own: race flag, its score and the opponent's by its own class, pip
    lead) into ``samples`` while there is room, for calibration.
    """
    out_boards, out_moves, out_counts, hashes = movegen.play_buffers()
    state = stream_state(seed, game)
    board = OPENING.copy()
    d1, d2 = opening_roll(state)
    seat = 0
    recorded = 0
    for _ in range(MAX_TURNS):
        n = movegen.generate_into(board, d1, d2, out_boards, out_moves, out_counts, hashes, False)
        kind = board_class(board)
        race = kind != CONTACT and kind != OVER
        mover_pips, opponent_pips = pip_counts(board)
        moved = 0
        for i in range(n):
            after, _ = pip_counts(out_boards[i])
            moved = max(moved, mover_pips - after)
        best = 0
        best_score = -1e300
        for i in range(n):
            child = out_boards[i]
            s = 1e200 if movegen.win_kind(child) else _score(kinds[seat], weights[seat], child, race)
            if s > best_score:
                best_score = s
                best = i
        child = out_boards[best]
        if recorded < samples.shape[0] and best_score < 1e200:
            samples[recorded, 0] = best_score
            # pubeval's weight set follows the position before the play, the heuristic's after
            samples[recorded, 1] = 1.0 if (race if kinds[seat] == PUBEVAL else board_class(child) != CONTACT) else 0.0
            samples[recorded, 2] = seat
            samples[recorded, 3] = opponent_pips - mover_pips + moved
            samples[recorded, 4] = _score(kinds[seat], weights[seat], movegen.flip_board(board), race)
            # The same position on its own, as a value: weight set by its own class, both sides.
            own = board_class(child) != CONTACT
            mine, theirs = pip_counts(child)
            samples[recorded, 5] = 1.0 if own else 0.0
            samples[recorded, 6] = _score(kinds[seat], weights[seat], child, own)
            samples[recorded, 7] = _score(kinds[seat], weights[seat], movegen.flip_board(child), own)
            samples[recorded, 8] = theirs - mine
            recorded += 1
        if best_score >= 1e200:
            points = movegen.win_kind(child)
            return (points if seat == 0 else -points), recorded
        board = movegen.flip_board(child)
        seat = 1 - seat
        d1, d2 = next_roll(state)
    return 0, recorded


@kernel("(int64[::1], float64[:, :, ::1], int64, int64, int64)")
def duplicate_match(kinds, weights, seed, first_game, pairs):
    """``pairs`` dice sequences, each played with seat 0 = player A and then = player B.

    ``kinds``/``weights`` are A's then B's. Returns A's points per game, ``(2 * pairs,)``.
    """
    out = np.empty(2 * pairs, np.int64)
    swapped_kinds = kinds[::-1].copy()
    swapped_weights = weights[::-1].copy()
    none = np.empty((0, SAMPLE_WIDTH))
    for k in range(pairs):
        game = first_game + k
        points, _ = play_game(kinds, weights, seed, game, none)
        out[2 * k] = points
        points, _ = play_game(swapped_kinds, swapped_weights, seed, game, none)
        out[2 * k + 1] = -points
    return out
