"""The exceptions gammon raises: one class per kind of problem, each naming the bad input."""

from __future__ import annotations

from collections.abc import Sequence


def _rebuilt(cls: type[BaseException], args: tuple[object, ...]) -> BaseException:
    """An error of class ``cls`` with ``args``, made without calling its ``__init__`` (whose
    parameters may differ from ``args``); :meth:`GammonError.__reduce__` then restores its fields."""
    error = cls.__new__(cls, *args)
    error.args = args
    return error


class GammonError(Exception):
    """Base class of every error gammon raises on purpose.

    Every one survives pickling, whatever its ``__init__`` takes, so an error raised in a
    worker process (a duel's, a trainer's) reaches the parent as itself: pickle's default
    calls ``cls(*args)``, which fails for a class built from fields (``EngineCommandError``).
    """

    def __reduce__(self) -> tuple[object, ...]:
        return (_rebuilt, (type(self), self.args), self.__dict__ or None)


class InvalidPositionError(GammonError, ValueError):
    """A position or game state that cannot exist (too many checkers, both colours on a point, a
    1-cube owned, ...); ``field`` names the GameState field at fault when one is (a notation's
    reader then names its own field that carries it)."""

    def __init__(self, message: str, *, field: str = "") -> None:
        super().__init__(message)
        self.field = field


class NotationError(GammonError, ValueError):
    """Text that does not parse in the notation it claims to be in.

    ``field`` names the part of the text that is wrong, ``expected`` what would have been right.
    """

    def __init__(self, notation: str, field: str, text: str, expected: str) -> None:
        self.notation = notation
        self.field = field
        self.text = text
        self.expected = expected
        super().__init__(f"{notation}: bad {field} {text!r}: expected {expected}")


class InvalidMoveError(GammonError, ValueError):
    """Move text that is not well-formed (``24/z``, ``13-``, ...)."""


class IllegalPlayError(GammonError, ValueError):
    """A well-formed play that the rules do not allow for this position and roll; ``legal`` holds
    the legal plays when the reader listed them."""

    def __init__(self, message: str, *, legal: Sequence[object] = ()) -> None:
        super().__init__(message)
        self.legal = tuple(legal)


class AmbiguousPlayError(IllegalPlayError):
    """Short move text that matches more than one legal play: ``candidates``."""

    def __init__(self, message: str, *, candidates: Sequence[object] = ()) -> None:
        super().__init__(message)
        self.candidates = tuple(candidates)


class IllegalActionError(GammonError):
    """An action the game does not allow now: acting out of turn, doubling without the cube, ..."""


class NotYourTurnError(IllegalActionError):
    """An action by the side that is not the one to act now."""


class CubeActionError(IllegalActionError):
    """A double, take, beaver or drop the rules do not allow now (Crawford game, cube owned by the other side, ...)."""


class DiceError(GammonError, ValueError):
    """A dice source that cannot give a roll: fixed dice exhausted, or typed text that is not dice."""


class InvalidPlayerError(GammonError, ValueError):
    """A player name that does not parse or name an available player (``pubeval:9``, ``nobody``)."""


class BearoffTableError(GammonError):
    """A bear-off table file that is missing, damaged, of another format or of the wrong shape."""


class TableFolderError(BearoffTableError):
    """A folder where bear-off tables cannot be written: read-only, a file in its place, a full disk."""

    def __init__(self, folder: object, reason: str, advice: str = "use a writable folder") -> None:
        self.folder = folder
        self.reason = reason
        self.advice = advice
        super().__init__(f"{folder}: cannot write bear-off tables there ({reason}); {advice}")


class NetworkFileError(GammonError, ValueError):
    """A weights file that is missing, corrupt, or made for another format or encoding."""


class DataSetError(GammonError, ValueError):
    """A training data set that cannot be read, or that was made with other settings than those given to grow it."""


class BearoffCoverageError(GammonError, ValueError):
    """A position that the loaded bear-off tables do not cover (checkers outside their points, ...)."""


class EngineError(GammonError):
    """Talking to an external engine failed (``gammon.engine``)."""


class EngineTerminatedError(EngineError):
    """The engine process exited or closed its output (it crashed, or was quit)."""


class EngineTimeoutError(EngineError, TimeoutError):
    """The engine did not answer in time."""


class EngineProtocolError(EngineError):
    """The engine sent a reply the protocol does not allow here (garbled, or out of order)."""


class IllegalEngineMoveError(EngineProtocolError):
    """The engine's ``bestmove`` is not a legal play of the position and roll."""


class EngineCommandError(EngineError):
    """The engine answered a command with ``error <code> <message>``; ``code`` says which kind."""

    def __init__(self, code: str, message: str, command: str = "") -> None:
        self.code = code
        self.message = message
        self.command = command
        where = f" to {command!r}" if command else ""
        super().__init__(f"engine error{where}: {code} {message}".rstrip())


class UnsupportedFeatureError(EngineCommandError):
    """The engine does not do what was asked (a checker-play-only engine asked for a cube decision)."""
