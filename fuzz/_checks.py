"""Checks several targets share: a state a reader accepted is one every writer can pass on."""

from __future__ import annotations

import zlib

from _harness import violation

from gammon import GameState, GameStatus, Position
from gammon.errors import GammonError

#: Each notation that carries a whole game: its writer and its reader.
NOTATIONS = {
    "bpn": (GameState.bpn, GameState.from_bpn),
    "gnubg_id": (GameState.gnubg_id, GameState.from_gnubg_id),
    "xgid": (GameState.xgid, GameState.from_xgid),
    # Seen by the side on roll: the side to act, FIBS's default, turns with a resignation,
    # which FIBS does not carry.
    "fibs": (lambda state: state.fibs(you=state.position.turn), GameState.from_fibs),
}

#: Positions for targets whose input is only move text: the opening, a middle game with a
#: checker on the bar, a bear-off, a race.
POSITIONS = ("4HPwATDgc/ABMA", "4HXwgDDEM/gAWA", "CwAAsAUAAAAAAA", "2+4OAADs3gAAAA")


def check_state(state: GameState, source: str) -> None:
    """``state`` was read from ``source``: it must be a possible game, and every writer's text
    must be read back by its reader (a writer may refuse what its notation cannot carry)."""
    if state.status == GameStatus.PLAYING and state.position.winner() is not None:
        raise violation(f"{source}: a game in play that {state.position.winner()} has already won")
    if state.dice is not None:
        state.position.legal_plays(*state.dice)
    for name, (write, read) in NOTATIONS.items():
        try:
            written = write(state)
        except GammonError:
            continue
        try:
            again = read(written)
        except Exception as error:  # noqa: BLE001 - any refusal of our own text is the bug
            raise violation(f"{source}: its {name} {written!r} is refused by the {name} reader: {error!r}") from None
        if write(again) != written:
            raise violation(f"{source}: {name} {written!r} reads back as {write(again)!r}")
    check_position(state.position, source)


def check_position(position: Position, source: str) -> None:
    written = position.position_id()
    try:
        again = Position.from_position_id(written, position.turn)
    except Exception as error:  # noqa: BLE001
        raise violation(f"{source}: its Position ID {written!r} is refused: {error!r}") from None
    if again != position:
        raise violation(f"{source}: Position ID {written!r} reads back as {again!r}, not {position!r}")


def pick(data: bytes, items: tuple):
    """One of ``items``, chosen by the input (the same input, the same choice)."""
    return items[zlib.crc32(data) % len(items)]
