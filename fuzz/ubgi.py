"""Fuzz target: UBGI command lines served in process by ``gammon engine`` (the engine server).

Each input is the engine's whole stdin. Every line must be answered or refused with an
``error`` line: an ``internal error``, a traceback on stderr, a thread that dies (a timer's
``OverflowError``) or a server that does not finish is a failure. Searches are done by
gammon's quickest player at 1 ply at most, and no player name starts a process.
"""

from __future__ import annotations

from unittest import mock

import _harness

from gammon.engine_server import backends, server
from gammon.errors import GammonError


def backend_for(name: str, ply: int) -> backends.Backend:
    """gammon's quickest player for every search; a bad name is still refused as the server refuses it."""
    server.parse_player(name)
    return backends.standby_backend()


def fuzz_one_input(data: bytes) -> None:
    shallow = property(lambda self: min(int(self.values["Ply"]), 1))
    thread_errors = _harness.unhandled_thread_errors()
    try:
        with (
            mock.patch.object(server, "backend_for", backend_for),
            mock.patch.object(server.UbgiEngine, "ply", shallow),
            _harness.captured_stdio(data) as captured,
        ):
            status = server.serve("pubeval")
    finally:
        dead = thread_errors()
    output = captured.stdout.decode("utf-8", "replace")
    if status not in (0, None):
        raise _harness.violation(f"the engine ended with status {status!r}")
    for line in output.splitlines():
        if "internal error" in line:
            raise _harness.violation(f"answered {line!r}")
    if "Traceback" in captured.stderr:
        raise _harness.violation(f"a traceback on stderr:\n{captured.stderr[-2000:]}")
    if dead:
        raise _harness.violation(f"a thread died: {dead[0]}")


ALLOWED = (GammonError,)

if __name__ == "__main__":
    _harness.main(__file__)
