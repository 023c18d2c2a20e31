"""Text notations for positions, games and moves, and telling them apart.

One module per notation, each a ``parse``/``format`` pair on plain fields
(:class:`~gammon.notation.fields.GameFields`; :class:`~gammon.notation.fibs.FibsFields` for FIBS,
which carries more), below the value types: users reach them through
:class:`~gammon.state.GameState` (``GameState.from_xgid(s)``, ``state.xgid()``, ...), which checks
what the fields say. Move text reads and writes plain steps; ``Play`` and ``LegalPlays`` call it.
"""

from __future__ import annotations

import re

from ..errors import NotationError

_POSITION_ID = re.compile(r"[A-Za-z0-9+/]{14}")
_GNUBG_ID = re.compile(r"[A-Za-z0-9+/]{14}:[A-Za-z0-9+/]{12}")
_XGID = re.compile(r"(XGID=)?[-a-pA-P]{26}:.*", re.DOTALL)
_BPN = re.compile(r"[a-oA-O0-9]+-w.*", re.DOTALL)

#: What :func:`detect` can answer.
NOTATIONS = ("bpn", "gnubgid", "position_id", "xgid", "fibs")

#: The largest cube any notation gammon writes can carry: the Match ID keeps log2(cube) in 4 bits.
MAX_CUBE = 1 << 15
#: The longest match gammon plays and its notations carry.
MAX_MATCH_LENGTH = 25

#: The longest number :func:`whole_number` reads (leading zeros aside): far above every limit gammon
#: checks, and below the 4,300 digits at which ``int()`` refuses to convert at all.
_MAX_DIGITS = 100


def whole_number(text: str, low: int = 0, high: int | None = None) -> int | None:
    """The value of ``text`` if it is a whole number in ASCII digits within ``low``..``high``; else None.

    The one digit rule of gammon: only ``0``-``9`` are digits. ``str.isdigit()`` is also True
    for ``²``, ``①`` and ``٣``, on which ``int()`` then raises or reads a number nobody wrote;
    signs, spaces and ``_`` (which ``int()`` accepts) are not part of a number either. Callers
    say what they expected when the answer is None. A number of more than 100 digits is never
    one gammon needs, and reads as None too.

    >>> whole_number("13"), whole_number("²"), whole_number("٣"), whole_number("7", 1, 6)
    (13, None, None, None)
    """
    if not isinstance(text, str) or not (text.isascii() and text.isdigit()):
        return None
    digits = text.lstrip("0") or "0"
    if len(digits) > _MAX_DIGITS:
        return None
    value = int(digits)
    if value < low or (high is not None and value > high):
        return None
    return value


def detect(text: str) -> str:
    """Which notation ``text`` is written in: one of :data:`NOTATIONS`.

    Only the shape is checked (a string can be recognised and still fail to parse):
    ``XGID=`` or 26 position characters and ``:``; ``board:``; 14 base64 characters, with
    ``:`` and 12 more for a GNUbg ID; BPN's placement then ``-w``.

    >>> detect('4HPwATDgc/ABMA:cIkFAAAAAAAA')
    'gnubgid'
    """
    if not isinstance(text, str):
        raise NotationError("notation", "text", repr(text), "a string")
    stripped = text.strip()
    if stripped.startswith("XGID=") or _XGID.fullmatch(stripped):
        return "xgid"
    if stripped.startswith("board:"):
        return "fibs"
    if _GNUBG_ID.fullmatch(stripped):
        return "gnubgid"
    if _POSITION_ID.fullmatch(stripped):
        return "position_id"
    if _BPN.fullmatch(stripped):
        return "bpn"
    raise NotationError(
        "notation", "text", text, "BPN, a GNUbg ID (POSID:MATCHID), a Position ID, an XGID or a FIBS board string"
    )


__all__ = ["MAX_CUBE", "MAX_MATCH_LENGTH", "NOTATIONS", "NotationError", "detect", "whole_number"]
