"""``gammon analyse``: every decision of a match record judged by any player (:mod:`.core`), the
figures players quote (:mod:`.figures`), an analysis a file carries and analysed SGF (:mod:`.sgf`),
the JSON view (:mod:`.views`) and the HTML report (:mod:`.html`)."""

from .core import DEFAULT_ANALYST, Analysis, AnalysisError, Candidate, Decision, analyse
from .figures import (
    CLOSE_CUBE,
    CUBE_CLASSES,
    GNUBG,
    RATINGS,
    STYLES,
    THRESHOLDS,
    XG,
    CubeEquities,
    PlayerSummary,
    Style,
    StyleError,
    luck_mark,
    luck_rating,
    mark,
    rating,
    style_of,
)
from .sgf import analysed_sgf, carried, carries_analysis

__all__ = [
    "CLOSE_CUBE",
    "CUBE_CLASSES",
    "DEFAULT_ANALYST",
    "GNUBG",
    "RATINGS",
    "STYLES",
    "THRESHOLDS",
    "XG",
    "Analysis",
    "AnalysisError",
    "Candidate",
    "CubeEquities",
    "Decision",
    "PlayerSummary",
    "Style",
    "StyleError",
    "analyse",
    "analysed_sgf",
    "carried",
    "carries_analysis",
    "luck_mark",
    "luck_rating",
    "mark",
    "rating",
    "style_of",
]
