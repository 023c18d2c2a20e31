"""``gammon analyse``: every decision of a match record judged by any player (see :mod:`.core`)."""

from .core import (
    CLOSE_CUBE,
    DEFAULT_ANALYST,
    RATINGS,
    THRESHOLDS,
    Analysis,
    AnalysisError,
    Decision,
    PlayerSummary,
    analyse,
    mark,
    rating,
)

__all__ = [
    "CLOSE_CUBE",
    "DEFAULT_ANALYST",
    "RATINGS",
    "THRESHOLDS",
    "Analysis",
    "AnalysisError",
    "Decision",
    "PlayerSummary",
    "analyse",
    "mark",
    "rating",
]
