"""One sentence an event: the one narrator that the server, the terminal and play by mail use.

A :class:`Narrator` tells :mod:`gammon.events` to one listener. Told to a side (``listener``),
that side is "you" and every play is given in its numbering, so the opponent's ``24/18``
reads ``1/7`` from where you sit; told to a spectator, each play is given in its mover's own
numbering. Names are written as their owners spelt them.

>>> from gammon.events import Played, Rolled
>>> from gammon.play import Move, Play
>>> names = {Color.WHITE: "alice", Color.BLACK: "bob"}
>>> Narrator(names).tell(Rolled(1, Color.BLACK, (6, 4)))
'bob rolls 6-4.'
>>> Narrator(names, Color.WHITE).tell(Rolled(1, Color.WHITE, (6, 4)))
'You roll 6-4.'
>>> Narrator(names, Color.WHITE).tell(Played(1, Color.BLACK, Play((Move(24, 18), Move(13, 9))), (167, 157)))
'bob plays 1/7 12/16.'
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from .events import (
    Beavered,
    ChallengeAccepted,
    ChallengeDeclined,
    Challenged,
    Doubled,
    Dropped,
    GameOver,
    GameStarted,
    MatchEvent,
    MatchOver,
    ModeChanged,
    OpeningRolled,
    Played,
    Resigned,
    ResignationAccepted,
    ResignationRejected,
    Rolled,
    TimedOut,
    Took,
)
from .notation import movetext
from .play import Play, effects_text
from .position import Color
from .state import Resignation

__all__ = ["RESIGNATION_WORDS", "Narrator", "play_in_numbering"]

_SIDE_WORD = re.compile(r"\b(white|black)('s)?\b")
RESIGNATION_WORDS = {Resignation.SINGLE: "a single game", Resignation.GAMMON: "a gammon",
                     Resignation.BACKGAMMON: "a backgammon"}


def play_in_numbering(play: Play, mover: Color, numbering: Color | None) -> str:
    """``play`` (in ``mover``'s numbering) as ``numbering``'s side counts the points (None: the mover's),
    in the one canonical form either way: ``13/9 9/5* 6/2* 6/2`` told to the other side is ``12/20* 19/23*(2)``.

    >>> from gammon.play import Move
    >>> play_in_numbering(Play((Move(13, 9), Move(9, 5, True), Move(6, 2, True), Move(6, 2))), Color.BLACK, Color.WHITE)
    '12/20* 19/23*(2)'
    """
    if numbering is None or numbering == mover:
        return str(play)
    return movetext.format_play(play.moves, mirrored=True)


class Narrator:
    """Tells events to ``listener`` (None: a spectator), naming the sides by ``names``.

    ``numbering``: the side whose numbering every play is given in (default: the listener's;
    for a spectator, each mover's own). ``verbose`` adds the pip counts after every play.
    """

    def __init__(self, names: Mapping[Color, str], listener: Color | None = None, *,
                 numbering: Color | None = None, own_numbering: bool = False, verbose: bool = False) -> None:
        self.names = dict(names)
        self.listener = listener
        self.numbering = None if own_numbering else (numbering if numbering is not None else listener)
        self.verbose = verbose

    # -- words ------------------------------------------------------------------------------
    def who(self, color: Color) -> str:
        """``you`` for the listener, else the side's name."""
        return "you" if color == self.listener else self.names[color]

    def _does(self, color: Color, verb: str) -> str:
        """``you roll`` / ``alice rolls``: the subject and its verb."""
        return f"you {verb}" if color == self.listener else f"{self.names[color]} {verb}s"

    def _score(self, score: tuple[int, int]) -> str:
        first = self.listener if self.listener is not None else Color.WHITE
        values = {Color.WHITE: score[0], Color.BLACK: score[1]}
        return f"{self.who(first)} {values[first]}, {self.who(first.other)} {values[first.other]}"

    def play_text(self, play: Play, mover: Color) -> str:
        return play_in_numbering(play, mover, self.numbering)

    def automatic_text(self, event: Played, color: Color) -> str:
        """Why a play was not chosen (a host that knows more, such as play by mail's modes, says more)."""
        return f"made for {self.who(color)}"

    def personal(self, text: str) -> str:
        """A refusal of the rules, which name the sides by colour, in this listener's words:
        ``white cannot double after rolling`` is ``you cannot double after rolling`` told to white,
        and ``it is black's turn`` is ``it is bob's turn``."""

        def named(found: re.Match[str]) -> str:
            color = Color[found.group(1).upper()]
            if color == self.listener:
                return "your" if found.group(2) else "you"
            return self.names[color] + (found.group(2) or "")

        return _SIDE_WORD.sub(named, text)

    # -- events -----------------------------------------------------------------------------
    def tell(self, event: MatchEvent) -> str:
        """The sentence for ``event``; names keep their owners' spelling, so only a sentence that
        starts with "you" or "the" (``the nn bot``) gets a capital."""
        text = self._sentence(event)
        return text[0].upper() + text[1:] if text.startswith(("you", "the ")) else text

    def _sentence(self, event: MatchEvent) -> str:
        color = event.color
        if isinstance(event, GameStarted):
            return f"Game {event.game} begins."
        if isinstance(event, MatchOver):
            assert color is not None
            white, black = event.score
            high, low = max(white, black), min(white, black)
            if event.length:
                return f"{self._does(color, 'win')} the {event.length}-point match {high}-{low}."
            unit = "point" if event.points == 1 else "points"
            return f"{self._does(color, 'win')} the money game, {event.points} {unit}."
        assert color is not None, f"{type(event).__name__} without a side"
        if isinstance(event, Challenged):
            what = f"a {event.length}-point match" if event.length else "a money game"
            first = f", {self.who(color)} to make the opening play" if event.challenger_first else ""
            return f"{self._does(color, 'challenge')} {self.who(color.other)} to {what}{first}."
        if isinstance(event, ChallengeAccepted):
            return f"{self._does(color, 'accept')} the challenge."
        if isinstance(event, ChallengeDeclined):
            return f"{self._does(color, 'withdraw' if event.withdrawn else 'decline')} the challenge."
        if isinstance(event, ModeChanged):
            return f"{self._does(color, 'turn')} {event.mode} mode {'on' if event.on else 'off'}."
        if isinstance(event, TimedOut):
            if event.left:
                return f"{self._does(color, 'stay')} away too long."
            return f"{self._does(color, 'run')} out of time."
        if isinstance(event, OpeningRolled):
            high, low = event.dice
            return (f"Game {event.game} opening roll: {self.who(Color.WHITE)} {event.white_die}, "
                    f"{self.who(Color.BLACK)} {event.black_die}; {self._does(color, 'play')} first with {high}-{low}.")
        if isinstance(event, Rolled):
            return f"{self._does(color, 'roll')} {event.dice[0]}-{event.dice[1]}."
        if isinstance(event, Played):
            return self._played(event, color)
        if isinstance(event, Doubled):
            return f"{self._does(color, 'double')} to {event.cube}."
        if isinstance(event, (Took, Beavered)):
            verb = "take" if isinstance(event, Took) else "beaver"
            owner = "yours" if color == self.listener else f"owned by {self.names[color]}"
            return f"{self._does(color, verb)}: the cube is at {event.cube}, {owner}."
        if isinstance(event, Dropped):
            return f"{self._does(color, 'drop')} the double."
        if isinstance(event, Resigned):
            return f"{self._does(color, 'offer')} to resign {RESIGNATION_WORDS[event.resignation]}."
        if isinstance(event, ResignationAccepted):
            return f"{self._does(color, 'accept')} the resignation."
        if isinstance(event, ResignationRejected):
            return f"{self._does(color, 'reject')} the resignation: play goes on."
        if isinstance(event, GameOver):
            unit = "point" if event.points == 1 else "points"
            return (f"{self._does(color, 'win')} game {event.game} and {event.points} {unit} ({event.detail}); "
                    f"score {self._score(event.score)}.")
        raise TypeError(f"no sentence for {event!r}")

    def _played(self, event: Played, color: Color) -> str:
        if not event.play.moves:
            text = f"{self.who(color)} cannot move" if color != self.listener else "you cannot move"
            return text + "."
        text = f"{self._does(color, 'play')} {self.play_text(event.play, color)}"
        effects = effects_text(event.play)
        if effects:
            text += ", " + effects
        if event.fallback:
            text += f" (a random legal play made for {self.who(color)}: its own choice failed)"
        elif event.automatic:
            text += f" ({self.automatic_text(event, color)})"
        if self.verbose:
            text += f"; pips {self._score(event.pips)}"
        return text + "."
