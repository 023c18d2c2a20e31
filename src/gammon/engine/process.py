"""Starting engine processes so that none outlives its client."""

from __future__ import annotations

import ctypes
import os
import shlex
import shutil
import sys
from collections.abc import Callable, Sequence

from ..errors import EngineError

_PR_SET_PDEATHSIG = 1
_SIGKILL = 9
#: Where Debian puts GNU Backgammon when /usr/games is not on PATH.
GNUBG_DIRECTORIES = ("/usr/games", "/usr/local/games")


def split_command(command: str | Sequence[str]) -> list[str]:
    """A command line as argv: a string is split as a POSIX shell would (quotes respected).

    >>> split_command("engine --flag 'two words'")
    ['engine', '--flag', 'two words']
    """
    if isinstance(command, str):
        try:
            argv = shlex.split(command)
        except ValueError as error:
            raise EngineError(f"bad engine command {command!r}: {error}") from None
    else:
        argv = [str(part) for part in command]
    if not argv:
        raise EngineError("empty engine command")
    if argv[0] == "gammon" and shutil.which("gammon") is None:
        # "gammon" is this gammon even where its script is not on PATH (a venv not activated).
        argv = [sys.executable, "-m", "gammon", *argv[1:]]
    return argv


def die_with_parent() -> Callable[[], None] | None:
    """A ``preexec_fn`` that makes Linux kill the child when its parent dies, or None elsewhere.

    Closing the client closes the engine's stdin and then kills it; this covers the client
    itself being killed, when no Python code runs any more.
    """
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None

    def preexec() -> None:
        libc.prctl(_PR_SET_PDEATHSIG, _SIGKILL, 0, 0, 0)

    return preexec


def find_gnubg() -> str | None:
    """The GNU Backgammon program: ``$GAMMON_GNUBG``, else ``gnubg`` on PATH or in /usr/games."""
    configured = os.environ.get("GAMMON_GNUBG")
    if configured:
        return configured
    found = shutil.which("gnubg")
    if found:
        return found
    for directory in GNUBG_DIRECTORIES:
        path = os.path.join(directory, "gnubg")
        if os.access(path, os.X_OK):
            return path
    return None
