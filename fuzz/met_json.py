"""Fuzz target: a match equity table in JSON (``MatchEquityTable.from_json``, ``gammon cube --met FILE``)."""

from __future__ import annotations

import _harness

from gammon.cube.met import MatchEquityTable



def fuzz_one_input(data: bytes) -> None:
    from gammon.cli.cube import read_met

    with _harness.scratch_file(data, ".json") as path:
        table = read_met(str(path))
    again = MatchEquityTable.from_json(_harness.text(data))
    for me, opponent in ((1, 1), (2, 5), (25, 25)):
        value = table.mwc(me, opponent)
        if value != again.mwc(me, opponent) or not 0.0 <= value <= 1.0:
            raise _harness.violation(f"mwc({me}, {opponent}) = {value}")
    MatchEquityTable.from_json(table.to_json())


if __name__ == "__main__":
    _harness.main(__file__)
