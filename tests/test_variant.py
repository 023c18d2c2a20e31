"""Rule variants through the one kernel: nackgammon's start and two-move doubles (seed 003)."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gammon import movegen
from gammon.duel import duel, play_game
from gammon.errors import IllegalPlayError
from gammon.match import Match
from gammon.players import load_player
from gammon.position import Color, Position
from gammon.state import GameState
from gammon.variant import STANDARD, Variant, VariantError

TWO_MOVES = Variant(two_move_doubles=True)
NACK = Variant(nackgammon=True)
BOTH = Variant(nackgammon=True, two_move_doubles=True)


def _one_die_steps(board: np.ndarray, die: int) -> list[np.ndarray]:
    """Every board after moving one checker ``die`` pips (the kernel's own step rule)."""
    out = []
    for source in range(25, 0, -1):
        if board[source] > 0:
            target = movegen.destination(board, source, die)
            if target >= 0:
                after = board.copy()
                movegen.apply_move(after, source, target)
                out.append(after)
    return out


def _reference_two_move_double(board: np.ndarray, die: int) -> set[bytes]:
    """What a double is under the variant, spelt out: two steps of the die if any pair can be
    played, else one, else nothing (the boards reached, one per distinct position)."""
    first = _one_die_steps(board, die)
    second = {after.tobytes() for step in first for after in _one_die_steps(step, die)}
    if second:
        return second
    if first:
        return {step.tobytes() for step in first}
    return {board.tobytes()}


def _positions_from_games(count: int, seed: int) -> list[np.ndarray]:
    """Boards met in random-play games (both sides' views), every kind of position."""
    rng = np.random.default_rng(seed)
    boards = []
    while len(boards) < count:
        board = Position().array()
        for _ in range(400):
            d1, d2 = (int(d) for d in rng.integers(1, 7, 2))
            children, _, _ = movegen.generate(board, d1, d2)
            child = children[rng.integers(len(children))]
            if movegen.win_kind(child):
                break
            board = movegen.flip_board(child)
            boards.append(board)
    return boards[:count]


def test_the_variant_is_named_parsed_and_written_back() -> None:
    assert str(STANDARD) == "standard" and STANDARD.standard
    assert Variant.parse("standard") == STANDARD
    assert Variant.parse("two-move-doubles") == TWO_MOVES
    assert Variant.parse("Two-Move-Doubles, nackgammon") == BOTH
    for variant in (STANDARD, TWO_MOVES, NACK, BOTH):
        assert Variant.parse(str(variant)) == variant
        assert eval(repr(variant)) == variant
    for bad in ("", "nack", "nackgammon,nackgammon", "standard,nackgammon", "two_move_doubles"):
        with pytest.raises(VariantError, match="expected 'standard' or a comma-separated list"):
            Variant.parse(bad)


@given(st.text(max_size=30))
def test_any_text_is_a_variant_or_a_clear_error(text: str) -> None:
    try:
        variant = Variant.parse(text)
    except VariantError as error:
        assert repr(text) in str(error)
    else:
        assert Variant.parse(str(variant)) == variant


def test_nackgammon_starts_from_its_own_position() -> None:
    start = Position.starting(NACK)
    assert start.pips() == (2 * 24 + 2 * 23 + 4 * 13 + 3 * 8 + 4 * 6,) * 2
    assert start.checkers(Color.WHITE)[23:25] == (2, 0) and start.checkers(Color.WHITE)[22] == 2
    assert Position.starting(STANDARD) == Position() == Position.starting(TWO_MOVES)
    match = Match(3, variant=NACK)
    assert match.state.position == start
    match.roll()  # the opening roll
    assert match.state.variant == NACK


@settings(deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 6))
def test_a_double_is_two_moves_of_its_number(seed: int, die: int) -> None:
    for board in _positions_from_games(3, seed):
        children, _moves, counts = movegen.generate(board, die, die, True)
        assert {child.tobytes() for child in children} == _reference_two_move_double(board, die)
        assert len({child.tobytes() for child in children}) == len(children)
        assert counts.max() <= 2
        # other rolls are the standard game's
        standard = movegen.generate(board, die, 7 - die if die != 7 - die else 1)[0]
        variant = movegen.generate(board, die, 7 - die if die != 7 - die else 1, True)[0]
        assert np.array_equal(standard, variant)


def test_the_batch_kernel_agrees_with_the_single_one() -> None:
    boards = np.array(_positions_from_games(60, 5), np.int8)
    dice = np.array([(d, d) for d in range(1, 7)] * 10, np.int8)
    offsets, children, _, _ = movegen.generate_batch(boards, dice, True)
    for i, board in enumerate(boards):
        single = movegen.generate(board, int(dice[i, 0]), int(dice[i, 1]), True)[0]
        assert np.array_equal(children[offsets[i]:offsets[i + 1]], single)


def test_legal_plays_and_the_match_follow_the_variant() -> None:
    opening = Position()
    assert len(opening.legal_plays(3, 3, TWO_MOVES)) == len(movegen.generate(opening.array(), 3, 3, True)[0])
    assert "13/10(2)" in opening.legal_plays(3, 3, TWO_MOVES)
    assert "13/10(2) 6/3(2)" not in opening.legal_plays(3, 3, TWO_MOVES)
    assert "13/10(2) 6/3(2)" in opening.legal_plays(3, 3)
    with pytest.raises(IllegalPlayError):
        opening.apply("13/10(2) 6/3(2)", (3, 3), TWO_MOVES)
    state = GameState(position=opening, dice=(4, 4), variant=TWO_MOVES)
    match = Match.from_state(state)
    with pytest.raises(IllegalPlayError):
        match.play("24/20(2) 13/9(2)")
    match.play("24/16")
    assert match.history[-1].play is not None and len(match.history[-1].play.moves) == 2


def test_a_whole_match_under_both_variants_is_refereed_and_replays() -> None:
    bot = load_player("pubeval", variant=BOTH)
    match = Match(3, variant=BOTH)
    while not match.is_over:
        if match.state.status.name in ("OVER", "RESIGNED", "DROPPED"):
            match.new_game()
            continue
        match.roll()
        state = match.state
        legal = match.legal_plays
        play = bot(state, legal)
        if state.dice[0] == state.dice[1]:
            assert len(play.moves) <= 2
        match.play(play)
    again = Match.replay(match.history, match.start)
    assert again.state == match.state and again.state.variant == BOTH


def test_bpn_carries_the_variant() -> None:
    for flags, variant in (("", STANDARD), ("-t", TWO_MOVES), ("-n", NACK), ("-nt", BOTH), ("-cnt", BOTH)):
        length = "3" if "c" in flags else "0"
        score = "2:0" if "c" in flags else "0:0"
        text = f"b4E1C3eE3c1e4B-w0b0-w33-n10-{score}:{length}{flags}"
        state = GameState.from_bpn(text)
        assert state.variant == variant
        assert state.bpn() == text
    with pytest.raises(Exception, match="flags.*n \\(nackgammon\\), t \\(two-move doubles\\)"):
        GameState.from_bpn("b4E1C3eE3c1e4B-w0b0-w33-n10-0:0:0-tt")


def test_duels_play_the_variant_and_say_so() -> None:
    a, b = load_player("pubeval", variant=BOTH), load_player("random", variant=BOTH)
    assert all(play_game(a, b, 1, game, BOTH) > 0 for game in range(4))  # pubeval beats random from nack's start
    result = duel("untrained", "simple", 20, seed=2, workers=1, variant=TWO_MOVES)
    assert result.extra["variant"] == "two-move-doubles"
    assert "(seed 2, two-move-doubles)" in result.summary()
    assert json.loads(result.to_json())["variant"] == "two-move-doubles"
    plain = duel("untrained", "simple", 20, seed=2, workers=1)
    assert "variant" not in plain.extra


def test_the_command_refuses_what_cannot_play_a_variant() -> None:
    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "gammon", "duel", *args], capture_output=True, text=True,
                              timeout=300)

    bad = run("pubeval", "random", "--variant", "backwards")
    assert bad.returncode != 0 and "--variant" in bad.stderr and "Traceback" not in bad.stderr
    engine = run("pubeval", "gnubg:0", "--variant", "nackgammon")
    assert engine.returncode != 0 and "plays the standard game only" in engine.stderr
    good = run("pubeval", "random", "--games", "4", "--workers", "1", "--variant", "nackgammon", "--json")
    assert good.returncode == 0, good.stderr
    assert json.loads(good.stdout)["variant"] == "nackgammon"


def test_the_engine_plays_the_variant_a_bpn_names() -> None:
    import io

    from gammon.engine_server import UbgiEngine

    def converse(lines: list[str]) -> list[str]:
        out = io.StringIO()
        UbgiEngine("pubeval", 0, out).run(iter(line + "\n" for line in lines))
        return out.getvalue().splitlines()

    for flags, variant in (("", STANDARD), ("-t", TWO_MOVES)):
        out = converse([f"position bpn b4E1C3eE3c1e4B-w0b0-w00-n10-0:0:0{flags}", "dice 4 4", "go role chequer"])
        best = [line.split(" ", 1)[1] for line in out if line.startswith("bestmove")]
        assert len(best) == 1 and Position().legal_plays(4, 4, variant).parse_ubgi(best[0])
        assert (len(best[0].split()) <= 2) == variant.two_move_doubles
    out = converse(["position bpn b4E1C3eE3c1e4B-w0b0-w00-n10-0:0:0-t", "dice 4 4", "go trials 36"])
    assert any(line.startswith("error unsupported_feature") and "standard game only" in line for line in out), out


# -- every player asked for a play gets the rules (issue 36: bots played a double as four moves) ----
#: Players loaded for the standard game and asked about a variant's state: the state's rules win.
_ASKED = {"pubeval:1": load_player("pubeval:1"), "simple": load_player("simple"), "random": load_player("random")}


def _state_of(board: np.ndarray, dice: tuple[int, int] | None, variant: Variant, length: int = 3) -> GameState:
    return GameState(position=Position(board.tolist(), Color.WHITE), dice=dice, variant=variant, match_length=length)


@settings(deadline=None, max_examples=30)
@given(st.integers(0, 2**32 - 1), st.integers(1, 6), st.integers(1, 6), st.sampled_from([TWO_MOVES, BOTH]))
def test_hints_and_decisions_are_the_plays_of_the_variant(seed: int, d1: int, d2: int, variant: Variant) -> None:
    from gammon.players import hint
    from gammon.players.decisions import decide

    dice = [(d1, d1), (d1, d2)]  # a double always, and any roll
    for board in _positions_from_games(2, seed):
        for roll in dice:
            state = _state_of(board, roll, variant)
            legal = {str(play) for play in state.legal_plays()}
            for name, player in _ASKED.items():
                ranked = [str(h.play) for h in hint(state, *roll, player)]
                assert sorted(ranked) == sorted(legal), (name, roll)
                decision = decide(player, state, may_double=False)
                assert decision.play is not None and str(decision.play) in legal, (name, roll, decision)
                if roll[0] == roll[1]:
                    assert len(decision.play.moves) <= 2
            by_name = [str(h.play) for h in hint(state, *roll, "pubeval")]
            assert sorted(by_name) == sorted(legal)


def test_cube_decisions_are_made_by_the_variant() -> None:
    from gammon.players import cube_hint
    from gammon.players.decisions import decide

    player = load_player("pubeval")
    state = GameState(variant=TWO_MOVES, match_length=5, score=(1, 2))
    cube_hint(state, player)
    assert player.variant == TWO_MOVES  # the cube's equities come from replies played by the rules
    assert decide(player, state.replace(variant=STANDARD), may_double=True).kind.value in ("roll", "double")
    assert player.variant == STANDARD


def test_players_that_cannot_play_two_move_doubles_refuse_before_starting_anything() -> None:
    from gammon.errors import InvalidPlayerError
    from gammon.players import EnginePlayer, cube_hint, hint, parse_player
    from gammon.players.decisions import decide

    state = GameState(dice=(4, 4), variant=TWO_MOVES)
    engine = EnginePlayer(parse_player("gnubg:0"))
    rollout = load_player("rollout:2:pubeval")
    for player in (engine, rollout):
        with pytest.raises(InvalidPlayerError, match="plays the standard game only, not two-move-doubles"):
            decide(player, state, may_double=False)
        with pytest.raises(InvalidPlayerError, match="standard game only"):
            hint(state, 4, 4, player)
        with pytest.raises(InvalidPlayerError, match="standard game only"):
            cube_hint(state.replace(dice=None), player)
        with pytest.raises(InvalidPlayerError, match="standard game only"):
            player(state, state.legal_plays())
    assert engine._engine is None  # refused before any process was started
    for name in ("gnubg:0", "rollout:2", "ubgi:gammon engine"):
        with pytest.raises(InvalidPlayerError, match="standard game only"):
            hint(state, 4, 4, name)


def test_analysis_judges_a_variants_match_by_its_rules_and_refuses_an_engine() -> None:
    from gammon.analysis import AnalysisError, analyse
    from gammon.dice import SeededDice
    from gammon.record import MatchRecord

    bot = load_player("pubeval", variant=TWO_MOVES)
    match = Match(1, dice=SeededDice(7), variant=TWO_MOVES)
    doubles = 0
    while not match.is_over:
        match.roll()
        state = match.state
        doubles += state.dice[0] == state.dice[1]
        match.play(bot(state, match.legal_plays))
    assert doubles
    record = MatchRecord.from_match(match, white="alice", black="bob")
    result = analyse(record, "pubeval", workers=1, luck="pubeval")
    assert result.decisions and all(d.error >= 0 for d in result.decisions)
    with pytest.raises(AnalysisError, match="two-move-doubles: gnubg:0 plays the standard game only"):
        analyse(record, "gnubg:0", workers=1, luck="pubeval")


def test_play_by_mail_reads_a_double_by_the_variant() -> None:
    from gammon.errors import GammonError
    from gammon.notation import pbm as pbm_notation

    black = Position(turn=Color.BLACK)
    assert str(pbm_notation.parse_play("2(13-10)", black, (3, 3), variant=TWO_MOVES)) == "13/10(2)"
    with pytest.raises(GammonError):
        pbm_notation.parse_play("2(13-10)", black, (3, 3))  # the standard game plays all four
    with pytest.raises(GammonError):
        pbm_notation.parse_play("2(13-10),2(6-3)", black, (3, 3), variant=TWO_MOVES)


def test_the_terminal_plays_a_variant_against_a_standard_loaded_bot_and_refuses_an_engine() -> None:
    from gammon.cli.table import LocalTable
    from gammon.dice import SeededDice
    from gammon.match import ActionKind, PlayerAction

    match = Match(1, dice=SeededDice(3), variant=TWO_MOVES)
    table = LocalTable(match, load_player("pubeval"), hint_player="pubeval")
    rng = np.random.default_rng(3)
    doubles = 0
    while not table.finished:
        table.advance()
        if table.finished or match.game_over:
            break
        state = match.state
        if state.dice is None:
            table.act(PlayerAction.ROLL)
            continue
        if state.dice[0] == state.dice[1]:
            doubles += 1
            assert all(len(h["play"].split()) <= 2 for h in table.play_hints())
        legal = match.legal_plays
        table.act(PlayerAction.PLAY, play=legal[int(rng.integers(len(legal)))])
    assert match.game_over
    rolls = [a.dice for a in match.history if a.kind == ActionKind.ROLL and a.color == Color.BLACK]
    assert doubles and any(d1 == d2 for d1, d2 in rolls)  # both sides met a double, played as two moves
    done = subprocess.run([sys.executable, "-m", "gammon", "play", "--variant", "two-move-doubles", "--bot", "gnubg:0",
                           "--words"], capture_output=True, text=True, timeout=300, input="")
    assert done.returncode != 0 and "plays the standard game only" in done.stderr and "Traceback" not in done.stderr
