"""``gammon ubgi-check``: the UBGI conformance suite, for anyone writing an engine.

It drives an engine on the raw wire (:mod:`~gammon.conformance.connection`, over the
client's line transport), asks it about tricky positions (:mod:`~gammon.conformance.corpus`),
judges every reply with gammon's rules (:mod:`~gammon.conformance.checks`) and says which
compliance level it reaches (:mod:`~gammon.conformance.report`).
"""

from .checks import judge_play, run_check
from .corpus import CorpusPosition, builtin_corpus, read_corpus
from .report import FAIL, PASS, SKIP, CheckReport, CheckResult, CheckSetupError

__all__ = [
    "FAIL",
    "PASS",
    "SKIP",
    "CheckReport",
    "CheckResult",
    "CheckSetupError",
    "CorpusPosition",
    "builtin_corpus",
    "judge_play",
    "read_corpus",
    "run_check",
]
