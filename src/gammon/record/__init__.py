"""Match records: :class:`MatchRecord` read and written as GNU Backgammon/Jellyfish ``.mat`` and
as backgammon SGF, every game replayed through :class:`~gammon.match.Match`.

>>> from gammon import Match, FixedDice
>>> match = Match(3, dice=FixedDice([(3, 1)]))
>>> match.roll(); _ = match.play("8/5 6/5")
(3, 1)
>>> record = MatchRecord.from_match(match, white="alice", black="bob")
>>> record.mat().splitlines()[3:6]
[' Game 1', ' bob : 0                        alice : 0', '  1)                             31: 8/5 6/5 ']
>>> MatchRecord.from_mat(record.mat()) == record
True
"""

from __future__ import annotations

from .fields import Candidate, DecisionAnalysis, RecordWarning
from .model import GameRecord, MatchRecord, Properties, RecordError, Rules

__all__ = ["Candidate", "DecisionAnalysis", "GameRecord", "MatchRecord", "Properties", "RecordError", "RecordWarning",
           "Rules"]
