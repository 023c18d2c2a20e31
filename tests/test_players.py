"""The players layer: names become players one way, and every player satisfies one protocol."""

from __future__ import annotations

import pytest

from gammon import InvalidPlayerError, Position
from gammon.bots import Bot, PubevalEvaluator
from gammon.players import EnginePlayer, Player, load_player, parse_player, player_names, register_evaluator


def test_every_named_player_satisfies_the_protocol() -> None:
    for name in ("random", "pubeval", "simple:1", "nn:advanced"):
        player = load_player(name)
        assert isinstance(player, Player) and isinstance(player, Bot)
        assert player.name == str(parse_player(name))
    engine = load_player("gnubg:1")  # no process starts before the first question
    assert isinstance(engine, Player) and isinstance(engine, EnginePlayer) and engine.name == "gnubg:1"


@pytest.mark.parametrize("name", ["random", "pubeval", "nn"])
def test_hints_rank_every_play(name: str) -> None:
    hints = load_player(name).hints(Position(), 3, 1)
    assert len(hints) == len(Position().legal_plays(3, 1))
    assert [h.rank for h in hints] == list(range(1, len(hints) + 1)) and hints[0].loss == 0.0


def test_a_bad_weights_file_gives_the_same_error_every_time(tmp_path, monkeypatch) -> None:
    weights = tmp_path / "broken.npz"
    weights.write_bytes(b"not a weights file")
    monkeypatch.setenv("GAMMON_NN_WEIGHTS", str(weights))
    messages = []
    for _ in range(2):
        with pytest.raises(InvalidPlayerError, match="player 'nn'") as caught:
            load_player("nn")
        messages.append(str(caught.value))
    assert messages[0] == messages[1] and str(weights) in messages[0]


def test_registered_evaluators_become_names() -> None:
    register_evaluator("pubeval_copy", PubevalEvaluator)
    try:
        assert "pubeval_copy" in player_names()
        copy, original = load_player("pubeval_copy:1"), load_player("pubeval:1")
        assert copy.choose_play(Position(), 3, 1) == original.choose_play(Position(), 3, 1)
    finally:
        from gammon.players import names

        del names._EVALUATORS["pubeval_copy"]
    with pytest.raises(ValueError):
        register_evaluator("gnubg", PubevalEvaluator)
    with pytest.raises(ValueError):
        register_evaluator("not a word", PubevalEvaluator)
