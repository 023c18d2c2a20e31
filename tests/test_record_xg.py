"""eXtreme Gammon's .xg files: the container, the records, XG's analysis kept as the file's own, and
what gammon's rules cannot carry refused by name. The files are built around two real XG records
(tests/records/xg: a cube decision and XG's analysed opening 6-3) by XG's published layout."""

from __future__ import annotations

import pytest

import xg_files as xg
from gammon.match import ActionKind
from gammon.position import Color
from gammon.record import MatchRecord, RecordError


def _five_point_match() -> bytes:
    """Game 1: the real records (white's no-double, then XG's analysed 6-3: 24/18 13/10); black
    5-2 13/8 13/11; white doubles, black takes (analysed); white 3-1 8/5 6/5; black resigns
    (2 points on the cube). Game 2: black 3-1 8/5 6/5; white doubles, black drops."""
    return xg.xg_file([
        xg.match_header(5, "Kemal Sürmeyan", "Sofia", event="Club night"),
        xg.game_header(0, 0, 1),
        xg.real("2_Cube.bin"),
        xg.real("3_Move.bin"),
        xg.move(1, (5, 2), (12, 7, 12, 10)),
        xg.cube(-1, double=1, take=1, equities=(0.41, 0.52, 1.0), err_cube=0.0, err_take=0.031),
        xg.move(-1, (3, 1), (7, 4, 5, 4), cube_a=-1),
        xg.game_footer(-1, 2, 101),
        xg.game_header(0, 2, 2),
        xg.move(1, (3, 1), (7, 4, 5, 4)),
        xg.cube(-1, double=1, take=0, equities=(0.2, 0.3, 1.0), err_cube=0.12, err_take=0.0),
        xg.game_footer(-1, 1, 0),
        xg.match_footer(),
    ])


def test_an_xg_match_reads_and_replays_to_its_result() -> None:
    record = MatchRecord.from_bytes(_five_point_match(), "match.xg")
    assert (record.black, record.white, record.length) == ("Kemal Sürmeyan", "Sofia", 5)
    assert record.metadata["event"] == "Club night"
    assert [str(g.result) for g in record.games] == ["white wins 2 points (single game, resigned)",
                                                     "white wins 1 point (double dropped)"]
    match = record.to_match()
    assert not match.is_over and match.score == (0, 3)
    first = record.games[0].actions
    assert [str(a) for a in first[:4]] == ["white opening 6-3", "white play 24/18 13/10", "black roll 5-2",
                                           "black play 13/8 13/11"]
    assert record.warnings == ()
    assert MatchRecord.from_xg(_five_point_match()) == record


def test_xg_analysis_is_kept_on_each_decision() -> None:
    record = MatchRecord.from_xg(_five_point_match())
    game = record.games[0]
    checker = game.analysis[1]  # white's opening 6-3, as XG analysed it in the real record
    assert checker.kind == "checker" and checker.analyst == "eXtreme Gammon"
    assert checker.candidates[0].action == "24/18 13/10" and checker.played == 0 and checker.error == 0.0
    assert [c.action for c in checker.candidates[:3]] == ["24/18 13/10", "24/15", "24/21 13/7"]
    equities = [c.equity for c in checker.candidates]
    assert equities == sorted(equities, reverse=True) and abs(equities[0] - 0.0061) < 1e-3
    win, *_ = checker.candidates[0].probabilities or (0,)
    assert 0.49 < win < 0.52
    double = next(i for i, a in enumerate(game.actions) if a.kind == ActionKind.DOUBLE)
    assert game.analysis[double].kind == "cube"
    assert game.analysis[double].candidates[0].action == "double/take"
    take = game.analysis[double + 1]
    assert take.kind == "take" and take.candidates[take.played].action == "take" and take.error == pytest.approx(0.031)
    dropped = record.games[1]
    drop_double = next(i for i, a in enumerate(dropped.actions) if a.kind == ActionKind.DOUBLE)
    assert dropped.analysis[drop_double].candidates[dropped.analysis[drop_double].played].action == "double/pass"
    assert 0 not in game.analysis  # the real cube record: not analysed by XG, so nothing is kept


def test_an_xg_record_writes_as_mat_and_sgf_and_reads_back() -> None:
    record = MatchRecord.from_xg(_five_point_match())
    assert MatchRecord.from_mat(record.mat()).history() == record.history()
    assert MatchRecord.from_sgf(record.sgf()).history() == record.history()


def test_a_damaged_xg_file_is_refused_by_name() -> None:
    data = bytearray(_five_point_match())
    data[-200] ^= 0xFF  # in the archive, past the header and thumbnail
    with pytest.raises(RecordError, match="m.xg: .*damaged"):
        MatchRecord.from_bytes(bytes(data), "m.xg")
    with pytest.raises(RecordError, match="cut short|damaged"):
        MatchRecord.from_bytes(bytes(data[:9000]), "m.xg")
    with pytest.raises(RecordError, match="RGMH"):
        MatchRecord.from_xg(b"RGMH")


@pytest.mark.parametrize(("records", "expected"), [
    ([xg.match_header(3, "a", "b", variation=2)], "hypergammon"),
    ([xg.match_header(0, "a", "b"), xg.game_header(0, 0, 1, autodoubles=1)], "automatic doubles"),
    ([xg.match_header(3, "a", "b"), xg.game_header(0, 0, 1), xg.move(1, (3, 1), (7, 4, 5, 4), edited=True)],
     "game 1, move 1: the position was edited"),
    ([xg.match_header(3, "a", "b"), xg.game_header(0, 0, 1), xg.move(1, (3, 1), (7, 4, 5, 4)),
      xg.game_footer(1, 1, 1001)], "settled"),
    ([xg.match_header(3, "a", "b"), xg.game_header(0, 0, 1), xg.move(1, (3, 1), (7, 3, 5, 4))],
     "game 1, move 1"),
])
def test_what_gammon_cannot_replay_is_refused_by_name(records: list[bytes], expected: str) -> None:
    with pytest.raises(RecordError, match=expected):
        MatchRecord.from_bytes(xg.xg_file(records), "x.xg")


def test_an_xgp_position_file_starts_from_its_position() -> None:
    # a position file: one checker play from a position that is not the opening
    position = list(xg.OPENING)
    position[6], position[5] = 4, 1  # one checker from the 6 point on the 5
    data = xg.xg_file([xg.match_header(5, "a", "b"), xg.game_header(1, 2, 1),
                       xg.move(1, (6, 4), (23, 17, 12, 8), position=tuple(position))])
    record = MatchRecord.from_bytes(data, "p.xgp")
    assert record.start is not None and record.start.position.turn == Color.BLACK
    assert record.start.score == (1, 2) and record.start.match_length == 5
    assert [str(a) for a in record.games[0].actions] == ["black roll 6-4", "black play 24/18 13/9"]
    again = MatchRecord.from_sgf(record.sgf())  # SGF does not say XG's cube limit: the rest comes back
    assert again.history() == record.history() and again.start == record.start.replace(cube_limit=None)
