"""UBGI, the engine protocol: its wire format, gammon's engine, and a conformance check.

:mod:`~gammon.protocol.wire` reads and writes the lines; :mod:`~gammon.protocol.server`
is ``gammon engine``; :mod:`~gammon.protocol.check` is ``gammon ubgi-check``. The client
side is :mod:`gammon.engine`.
"""
