"""The HTTP and WebSocket doors: routers that know HTTP and little backgammon.

Each router reads a request, asks the runtime's services (:mod:`gammon.server.runtime`) and
answers with their views; none issues SQL or applies a rule itself.
"""
