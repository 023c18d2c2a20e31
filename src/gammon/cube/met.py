"""Match equity tables: the chance of winning a match from any score, and equity <-> MWC.

A table gives ``mwc(me, opponent)``, the match winning chance of a side needing ``me``
points against one needing ``opponent``, for scores up to 25-away, in three regimes:

* before the Crawford game (neither side 1-away),
* the Crawford game itself (a side is 1-away and the cube is out of play), and
* after the Crawford game (post-Crawford: the leader is 1-away, the cube is back).

The default is the published Kazaross-XG2 table (shipped with its notice as package data);
:func:`gammon.cube.construct.construct_met` builds one with gammon's own code.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources

import numpy as np

from ..errors import GammonError

#: The longest match a table covers.
MAX_AWAY = 25


class MatchEquityError(GammonError, ValueError):
    """A match equity table file is malformed, or a score is outside the table."""


@dataclass(frozen=True, eq=False)
class MatchEquityTable:
    """Match winning chances by points needed.

    ``pre[i, j]`` is the chance of the side needing ``i + 1`` points against one needing
    ``j + 1`` before the Crawford game, where row and column 0 are the Crawford game itself;
    ``post[j]`` is the trailer's chance, needing ``j + 1``, after the Crawford game.

    >>> met = MatchEquityTable.default()
    >>> met.mwc(1, 2)
    0.67736
    >>> round(met.mwc(2, 1, post_crawford=True), 5)
    0.48803
    """

    name: str
    pre: np.ndarray
    post: np.ndarray
    notice: str = ""

    def __post_init__(self) -> None:
        pre, post = np.asarray(self.pre, np.float64), np.asarray(self.post, np.float64)
        if pre.ndim != 2 or pre.shape[0] != pre.shape[1] or pre.shape[0] < MAX_AWAY:
            raise MatchEquityError(f"table {self.name!r}: pre-Crawford table must be square, {MAX_AWAY}x{MAX_AWAY} or more, "
                                   f"got {pre.shape}")
        if post.ndim != 1 or post.shape[0] < MAX_AWAY:
            raise MatchEquityError(f"table {self.name!r}: post-Crawford row must hold {MAX_AWAY} values, got {post.shape}")
        if not (np.all((pre >= 0) & (pre <= 1)) and np.all((post >= 0) & (post <= 1))):
            raise MatchEquityError(f"table {self.name!r}: match winning chances must lie in [0, 1]")
        object.__setattr__(self, "pre", pre[:MAX_AWAY, :MAX_AWAY].copy())
        object.__setattr__(self, "post", post[:MAX_AWAY].copy())
        self.pre.setflags(write=False)
        self.post.setflags(write=False)

    # -- construction -------------------------------------------------------------------
    @classmethod
    def default(cls) -> MatchEquityTable:
        """The Kazaross-XG2 table (GNU Backgammon's and eXtreme Gammon's default)."""
        return _kazaross()

    @classmethod
    def from_json(cls, text: str, name: str | None = None) -> MatchEquityTable:
        """Read the JSON layout of ``met_kazaross_xg2.json`` (``pre_crawford``/``post_crawford``)."""
        try:
            data = json.loads(text)
        except (ValueError, RecursionError) as error:
            raise MatchEquityError(f"not a match equity table: not JSON ({_first_line(error)})") from None
        try:
            pre = np.array(data["pre_crawford"]["table"], np.float64)
            post = np.array(data["post_crawford"]["table"]["both"], np.float64)
        except (KeyError, TypeError, IndexError):
            raise MatchEquityError("not a match equity table: expected {\"pre_crawford\": {\"table\": [[MWC, ...], ...]}, "
                                   "\"post_crawford\": {\"table\": {\"both\": [MWC, ...]}}}") from None
        except (ValueError, OverflowError, RecursionError) as error:  # ragged rows, text or 1e999-size integers
            raise MatchEquityError(
                f"not a match equity table: its tables must be rows of numbers ({_first_line(error)})"
            ) from None
        label, notice = data.get("name", "unnamed"), data.get("notice", "")
        if not isinstance(label, str) or not isinstance(notice, str):
            raise MatchEquityError("not a match equity table: its name and notice must be text")
        return cls(name or label, pre, post, notice)

    def to_json(self) -> str:
        return json.dumps({
            "name": self.name,
            "notice": self.notice,
            "pre_crawford": {"table": np.round(self.pre, 6).tolist()},
            "post_crawford": {"table": {"both": np.round(self.post, 6).tolist()}},
        }, indent=1)

    # -- lookups --------------------------------------------------------------------------
    def mwc(self, me: int, opponent: int, post_crawford: bool = False) -> float:
        """Chance that the side needing ``me`` points wins against one needing ``opponent``.

        A side needing 0 or fewer points has won. When a side is 1-away, ``post_crawford``
        says whether the Crawford game has been played (then the cube is live again).
        """
        if me <= 0:
            return 1.0
        if opponent <= 0:
            return 0.0
        if me > MAX_AWAY or opponent > MAX_AWAY:
            raise MatchEquityError(f"score {me}-away, {opponent}-away is beyond the table's {MAX_AWAY} points")
        if me == 1 and opponent == 1:
            return 0.5
        if post_crawford and me == 1:
            return 1.0 - float(self.post[opponent - 1])
        if post_crawford and opponent == 1:
            return float(self.post[me - 1])
        return float(self.pre[me - 1, opponent - 1])

    def after_game(self, crawford_played: bool) -> np.ndarray:
        """``table[i, j]``: MWC once this game is over, needing ``i`` against ``j`` (0 = won).

        ``crawford_played`` is whether the Crawford game is behind the match after this game
        (it is if this game is the Crawford game or a later one).
        """
        out = np.empty((MAX_AWAY + 1, MAX_AWAY + 1))
        for i in range(MAX_AWAY + 1):
            for j in range(MAX_AWAY + 1):
                out[i, j] = self.mwc(i, j, crawford_played)
        return out

    def __repr__(self) -> str:
        return f"<MatchEquityTable {self.name!r}>"


@cache
def _kazaross() -> MatchEquityTable:
    text = resources.files("gammon").joinpath("data/met_kazaross_xg2.json").read_text()
    return MatchEquityTable.from_json(text)


def _first_line(error: Exception) -> str:
    return str(error).splitlines()[0][:200] if str(error) else type(error).__name__


def mwc_to_equity(mwc: float | np.ndarray, win: float, lose: float) -> float | np.ndarray:
    """Money-like equity of a match winning chance: +1 at ``win`` (the MWC of winning the
    cube's value), -1 at ``lose`` (losing it). GNU Backgammon reports match equities so."""
    return (2.0 * mwc - (win + lose)) / (win - lose)


def equity_to_mwc(equity: float | np.ndarray, win: float, lose: float) -> float | np.ndarray:
    """Inverse of :func:`mwc_to_equity`."""
    return (equity * (win - lose) + win + lose) / 2.0
