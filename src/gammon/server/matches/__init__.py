"""The server's domain: matches stored, held in memory, changed by one service, and shown.

``store`` is the only module that issues SQL for matches; ``live`` holds them in memory;
``service`` is the one path a change takes (for HTTP, play by mail and bots alike);
``views`` turns them into the API's JSON; ``rules``, ``fair_dice`` and ``ratings`` are the
server's own rules around the referee's.
"""
