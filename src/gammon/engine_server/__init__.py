"""``gammon engine``: the UBGI engine *server*, serving any player on stdin/stdout.

:mod:`~gammon.engine_server.server` reads the commands and runs the searches;
:mod:`~gammon.engine_server.backends` is what answers them (gammon's own players, or an
external engine through the client, :mod:`gammon.engine`). The wire format is :mod:`gammon.ubgi`.
"""

from .server import DEFAULT_PLAYER, SETTINGS, SearchJob, UbgiEngine, serve

__all__ = ["DEFAULT_PLAYER", "SETTINGS", "SearchJob", "UbgiEngine", "serve"]
