"""Text notations for positions, games and moves, and telling them apart.

One module per notation, each a ``parse``/``format`` pair (``FibsBoard.parse``/``text``
for FIBS, which carries more than a GameState); users reach them through
:class:`~gammon.state.GameState` (``GameState.from_xgid(s)``, ``state.xgid()``, ...).
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


__all__ = ["NOTATIONS", "NotationError", "detect"]
