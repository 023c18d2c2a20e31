"""Play by mail: the seed's command language, reached by a line port, ``POST /pbm`` and e-mail.

Every door runs :func:`~gammon.server.pbm.executor.run`, which acts through the match
service (:mod:`gammon.server.matches.service`) like the JSON API: a match begun by mail can
be finished in the browser. The contract is docs/pbm.md.
"""

from .executor import Answer, run
from .language import Command, MailCommandError, parse

__all__ = ["Answer", "Command", "MailCommandError", "parse", "run"]
