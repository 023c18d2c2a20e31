"""Fuzz target: UBGI command lines served in process by ``gammon engine`` (the engine server).

Each input is the engine's whole stdin. Every line must be answered or refused with an
``error`` line: an ``internal error``, a traceback on stderr, a thread that dies (a timer's
``OverflowError``) or a server that does not finish is a failure. Searches are done by
gammon's quickest player at 1 ply at most, and no player name starts a process.
"""

from __future__ import annotations

import importlib
from unittest import mock

import _harness

from gammon.errors import GammonError


def server_module():  # noqa: ANN201
    """The engine server's module, wherever the restructuring has put it."""
    for name in ("gammon.engine_server.server", "gammon.protocol.server"):
        try:
            return importlib.import_module(name)
        except ImportError:
            continue
    raise ImportError("no engine server module: neither gammon.engine_server nor gammon.protocol.server")


def _quick_backend(module):  # noqa: ANN001, ANN202
    parse_player = module.parse_player
    backends = importlib.import_module(module.__name__.rsplit(".", 1)[0] + ".backends")

    def backend_for(name: str, ply: int):  # noqa: ANN202
        parse_player(name)  # a bad name is still refused as the server refuses it
        return backends.standby_backend()

    return backend_for


def fuzz_one_input(data: bytes) -> None:
    server = server_module()
    engine = server.UbgiEngine
    shallow = property(lambda self: min(int(self.values["Ply"]), 1))
    thread_errors = _harness.unhandled_thread_errors()
    try:
        with (
            mock.patch.object(server, "backend_for", _quick_backend(server)),
            mock.patch.object(engine, "ply", shallow),
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
