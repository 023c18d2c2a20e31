"""The terminal game: typed words, seed 004's keys through a real pseudo-terminal, the plain
transcript read back, and online play against a real ``gammon serve``."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterable

import httpx
import pexpect
import pytest

from gammon.cli import main
from gammon.cli.table import LocalTable
from gammon.cli.terminal import KEY_ACTIONS, KEYS, PinnedScreen, Terminal, key_action
from gammon.dice import FixedDice
from gammon.match import Match
from gammon.players import load_player
from gammon.position import Color, Position
from gammon.state import GameState, GameStatus

from server_support import GAMMON, Client, ServerProcess

ENDLESS = ["", "#1", "y"] * 2000  # Enter (roll, or confirm), the first legal play, yes to a double


def feed(monkeypatch: pytest.MonkeyPatch, lines: Iterable[str]) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("".join(line + "\n" for line in lines)))


def scripted(lines: list[str]) -> tuple[list[str], object, object]:
    """A ``read`` answering from ``lines`` (then end of input) and a ``write`` that records."""
    answers = iter(lines)
    out: list[str] = []

    def read(prompt: str) -> str:
        out.append(prompt)
        try:
            line = next(answers)
        except StopIteration:
            raise EOFError from None
        return "<enter>" if line == "" else line

    return out, read, out.append


def table(match: Match, bot: str = "pubeval", **options: object) -> LocalTable:
    return LocalTable(match, load_player(bot), opponent_name="the bot", hint_player="pubeval", **options)


def events_of(out: list[str]) -> list[str]:
    """The told lines, without the prompts (which end in '> ')."""
    return [line for text in out if not text.endswith("> ") for line in text.splitlines()]


# -- typed words -----------------------------------------------------------------------------------
def test_the_default_is_a_five_point_match_against_nn_intermediate(monkeypatch, capsys) -> None:
    feed(monkeypatch, ["pips", "score"])
    assert main(["play", "--words", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("   13 14 15 16 17 18")  # the board first, before any roll
    assert out.index("+---") < out.index("A 5-point match against the nn:0:intermediate bot.") < out.index("Your turn")
    assert "in a 5-point match." in out


@pytest.mark.parametrize("args", [["--seed", "1"], ["--seed", "2", "--match", "3", "--plain"]])
def test_a_whole_match_by_typed_words(monkeypatch, capsys, args: list[str]) -> None:
    feed(monkeypatch, ENDLESS)
    assert main(["play", "--words", "--bot", "random", *args]) == 0
    out = capsys.readouterr().out
    assert "Game 1 opening roll:" in out and "-point match " in out and "Traceback" not in out


def test_the_same_seed_plays_the_same_game(monkeypatch, capsys) -> None:
    outputs = []
    for _ in range(2):
        feed(monkeypatch, ENDLESS)
        main(["play", "--words", "--seed", "9", "--bot", "random", "--match", "1"])
        outputs.append(capsys.readouterr().out)
    assert outputs[0] == outputs[1]


def test_end_of_input_ends_cleanly(monkeypatch, capsys) -> None:
    feed(monkeypatch, [])
    assert main(["play", "--words", "--seed", "3", "--bot", "random"]) == 0
    assert capsys.readouterr().out.rstrip().endswith("Bye.")


def test_bad_input_gets_a_reason_and_the_prompt_again(monkeypatch, capsys) -> None:
    feed(monkeypatch, ["xyz", "#1", "undo", "take", "drop", "resign x", "hint", "cube hint", "99/1", "24/14",
                       "", "#999", "double", "confirm", "quit", "y"])
    assert main(["play", "--words", "--seed", "4", "--bot", "random", "--hint-player", "pubeval"]) == 0
    out = capsys.readouterr().out
    assert out.count("Not possible:") >= 9
    assert "Traceback" not in out and "Bye." in out


def test_a_variant_is_played_from_its_own_start(monkeypatch, capsys) -> None:
    feed(monkeypatch, ENDLESS)
    assert main(["play", "--words", "--seed", "5", "--bot", "random", "--match", "1", "--variant", "nackgammon"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("   13 14") and out.count("pips 194, score 0") >= 2  # nackgammon's start, both sides
    assert "Traceback" not in out and "the 1-point match" in out
    with pytest.raises(SystemExit) as stop:
        main(["play", "--variant", "hypergammon"])
    assert stop.value.code == 2


def test_bad_match_length_is_a_usage_error() -> None:
    with pytest.raises(SystemExit) as stop:
        main(["play", "--match", "26"])
    assert stop.value.code == 2


def test_a_typed_play_waits_for_confirmation_and_can_be_undone() -> None:
    match = Match(3, dice=FixedDice([(3, 1), (6, 5)]))
    out, read, write = scripted(["8/5", "undo", "8 5", "6/5", "undo", "undo", "8/5 6/5", "", "pips"])
    Terminal(table(match), read, write).run()
    text = "\n".join(out)
    assert "Undone: 8/5." in text and "Play complete (8/5 6/5): Enter confirms, U undoes> " in out
    assert "You play 8/5 6/5." in text
    assert str(match.history[1]) == "white play 8/5 6/5"
    assert re.search(r"The bot rolls 6-5\.\nThe bot plays ", text)


def test_every_sentence_is_yours_and_the_bots_plays_are_in_your_numbering(monkeypatch, capsys) -> None:
    """The plain transcript of a whole match, read back: one sentence a line, no board unless asked."""
    feed(monkeypatch, ENDLESS)
    main(["play", "--words", "--plain", "--bot", "random", "--seed", "5", "--match", "3"])
    out = capsys.readouterr().out
    told = [line.split("> ")[-1] for line in out.splitlines() if line.split("> ")[-1]]
    assert not any("+---" in line or "pip count" in line for line in told), "the board is read on demand only"
    for line in told:
        assert re.fullmatch(r"[A-Z].*[.?)]", line), line
    bot_plays = [line for line in told if line.startswith("The random bot plays ")]
    assert bot_plays
    for line in bot_plays:  # the bot moves up your numbering, 1 towards 24, entering from the bar
        for source, target in re.findall(r"(bar|\d+)/(off|\d+)", line):
            assert target == "off" or source == "bar" or int(source) < int(target), line
    your_plays = [line for line in told if line.startswith("You play ")]
    for line in your_plays:
        for source, target in re.findall(r"(bar|\d+)/(off|\d+)", line):
            assert target == "off" or source == "bar" or int(source) > int(target), line
    assert "(made for you)" in out or "cannot move" in out


def test_numbering_on_request_tells_the_bots_plays_in_its_own() -> None:
    # The bot opens with 3-1 (8/5 6/5 in its numbering), you answer 6-5 with 24/13, the bot rolls 4-2.
    match = Match(3, dice=FixedDice([(1, 3), (6, 5), (4, 2)]))
    out, read, write = scripted(["numbering", "", "24/13", ""])
    Terminal(table(match), read, write).run()
    told = events_of(out)
    bot_plays = [line for line in told if line.startswith("The bot plays ")]
    switched = told.index("The opponent's plays are told in their own numbering.")
    assert bot_plays == ["The bot plays 17/20 19/20.", "The bot plays 8/4 6/4."]
    # the opening came before the switch, in your numbering; the reply after it, in the bot's
    assert told.index(bot_plays[0]) < switched < told.index(bot_plays[1])


def test_resigning_asks_first() -> None:
    match = Match(5, dice=FixedDice([(3, 1), (6, 5)]))
    out, read, write = scripted(["resign gammon", "n", "resign gammon", "y"])
    Terminal(table(match), read, write).run()
    assert "You play on." in out
    assert "You offer to resign a gammon." in out
    assert match.results and match.results[0].winner == Color.BLACK


def test_a_dead_cube_double_is_refused() -> None:
    # 5-point match, you lead 3-0 with the cube on 2 in your hands: one game wins it anyway
    score = [0, 0]
    score[Color.WHITE] = 3
    state = GameState(position=Position(), score=tuple(score), match_length=5, cube=2, cube_owner=Color.WHITE,
                      status=GameStatus.PLAYING)
    match = Match.from_state(state, dice=FixedDice([(3, 1)]))
    out, read, write = scripted(["double"])
    Terminal(table(match), read, write).run()
    assert any("the cube is dead" in line for line in out)
    assert not match.state.double_offered


def test_hints_and_cube_hints_and_when_they_are_off() -> None:
    match = Match(5, dice=FixedDice([(3, 1), (6, 5), (2, 2)]))
    out, read, write = scripted(["cube hint", "hint", "8/5 6/5", "", "hint", "cube hint"])
    Terminal(table(match), read, write).run()
    text = "\n".join(out)
    assert "Cube hint: " in text and "Not possible: a play hint is for your roll" in text
    assert "Not possible: the cube is decided before rolling" in text
    assert re.search(r"Hint for \d-\d, best first \(ply \d; #N plays entry N\):\n  #1 \S", text)
    match = Match(5, dice=FixedDice([(3, 1), (6, 5)]))
    out, read, write = scripted(["hint", "cube hint"])
    Terminal(table(match, hints=False, cube_hints=False), read, write).run()
    assert "Not possible: hints are off in this match." in out
    assert "Not possible: cube hints are off in this match." in out


def test_status_keys_answer_in_you_terms() -> None:
    match = Match(5, dice=FixedDice([(3, 1), (6, 5)]))
    out, read, write = scripted(["<e>", "<d>", "<p>", "<s>", "<c>", "<t>", "<i>", "<?>"])
    Terminal(table(match), read, write).run()
    text = "\n".join(out)
    for expected in ("Bar: you 0, the bot 0. Borne off: you 0, the bot 0.", "The cube is at 1, in the middle.",
                     "Pips: you 167", "Score: you 0, the bot 0, in a 5-point match.", "Your turn.",
                     "Position ID ", "XGID ", "Ctrl+Backspace"):
        assert expected in text, expected


def test_the_key_map_is_seed_004s() -> None:
    listed = {key for key, _ in KEYS}
    for key in ("Enter", "Ctrl+Backspace", "Ctrl+Arrows", "Alt+Arrows", "Home / End", "Shift+D", "Y", "N", "U",
                "H", "Shift+H", "E", "D", "P", "S", "C", "T"):
        assert key in listed, key
    # Shift+D doubles and D tells the cube; Shift+H is the cube hint and H the play hint
    assert KEY_ACTIONS["s-d"] == "double" and KEY_ACTIONS["d"] == "cube"
    assert KEY_ACTIONS["s-h"] == "cube hint" and KEY_ACTIONS["h"] == "hint"
    # a capital letter is what Caps Lock sends too: without a known Shift it is the lower-case key
    assert key_action("H") == "hint" and key_action("D") == "cube" and key_action("B") == "board"
    for key, action in (("y", "yes"), ("n", "no"), ("u", "undo"), ("e", "status"), ("p", "pips"), ("s", "score"),
                        ("c", "dice"), ("t", "turn"), ("c-left", "previous"), ("c-right", "next"),
                        ("a-left", "row-start"), ("home", "row-start"), ("end", "row-end")):
        assert KEY_ACTIONS[key] == action


def test_keys_pick_up_and_put_down_with_blots_first() -> None:
    # White opens 6-5: Ctrl+Right finds a checker that moves, Enter picks it up, Ctrl+Right a destination
    match = Match(3, dice=FixedDice([(6, 5), (6, 5)]))
    out, read, write = scripted(["<c-right>", "<enter>", "<c-right>", "<enter>", "<c-right>", "<enter>", "<c-h>",
                                 "<c-right>", "<enter>", "<c-right>", "<enter>", "<u>", "<u>", "24/13", "<enter>"])
    Terminal(table(match), read, write).run()
    text = "\n".join(out)
    assert "From 24: 2 of yours." in text and "Picked up a checker from 24." in text and "To 18: empty." in text
    assert "You move 24/18. To play: 5." in text and "Put back." in text and "You move 8/3." in text
    assert "Undone: 8/3. To play: 5." in text and "Undone: 24/18. To play: 6 5." in text
    assert "You play 24/13." in text


# -- a real terminal ---------------------------------------------------------------------------------
PROMPT = re.compile(r"(Your turn[^\n>]*|You rolled[^\n>]*|Play complete[^\n>]*|doubles to \d+: Y takes, N drops"
                    r"|resigns: Y accepts, N rejects)>")


def _spawn(*args: str) -> pexpect.spawn:
    env = dict(os.environ, PROMPT_TOOLKIT_NO_CPR="1", TERM="xterm")
    return pexpect.spawn(sys.executable, ["-m", "gammon", "play", *args], env=env, encoding="utf-8",
                         timeout=300, dimensions=(50, 200))


def test_a_whole_match_by_keys_only_in_a_pseudo_terminal(tmp_path) -> None:
    child = _spawn("--seed", "3", "--match", "3", "--bot", "random")
    child.logfile_read = open(tmp_path / "terminal.log", "w")
    keys = {"enter": "\r", "c-right": "\x1b[1;5C", "y": "y"}
    try:
        for _ in range(3000):
            if child.expect([PROMPT, pexpect.EOF]) == 1:
                break
            prompt = child.match.group(1)
            if prompt.startswith("You rolled"):  # a checker: Ctrl+Right to one that moves, Enter; again for where
                child.send(keys["c-right"])
                child.expect(PROMPT)
            child.send(keys["y"] if "Y takes" in prompt or "Y accepts" in prompt else keys["enter"])
        else:
            raise AssertionError("the match did not end")
    finally:
        child.close()
    log = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", (tmp_path / "terminal.log").read_text())
    assert re.search(r"(You win|The random bot wins) the \d+-point match \d+-\d+\.", log)
    assert "Picked up a checker from" in log and "Traceback" not in log and "Not possible" not in log


# -- online ------------------------------------------------------------------------------------------
class TerminalProcess:
    """``gammon play --server`` in a process of its own: its input every answer at once, its
    output to a file (two terminals play each other, so neither may wait on a full pipe)."""

    def __init__(self, server: ServerProcess, name: str, folder, *args: str) -> None:
        env = dict(os.environ, GAMMON_PASSWORD="correct horse")
        self.output = folder / f"{name}-{len(list(folder.glob(name + '-*')))}.txt"
        answers = folder / f"{name}.answers"
        answers.write_text("".join(line + "\n" for line in ENDLESS))
        with open(answers) as stdin, open(self.output, "w") as stdout:
            self.process = subprocess.Popen([*GAMMON, "play", "--server", server.url, "--user", name, "--words", *args],
                                            stdin=stdin, stdout=stdout, stderr=subprocess.STDOUT, env=env, text=True)

    def finish(self, timeout: float = 600) -> tuple[int, str]:
        try:
            code = self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            raise AssertionError(f"the terminal did not finish: {self.output.read_text()[-3000:]}") from None
        return code, self.output.read_text()


def test_online_against_a_bot_and_against_a_person(tmp_path) -> None:
    with ServerProcess(f"sqlite:///{tmp_path / 'server.db'}", log=tmp_path / "server.log") as server:
        http = httpx.Client(base_url=server.url, timeout=60)
        for name in ("alice", "bob"):
            Client(http, name).register()
        # alice against a bot of the server, the match challenged from the terminal
        code, out = TerminalProcess(server, "alice", tmp_path, "--challenge", "bot:random", "--match", "1").finish()
        assert code == 0, out
        assert "Logged in" in out and "Game 1 opening roll:" in out and "-point match " in out, out
        matches = http.get("/api/matches", params={"user": "alice", "status": "finished"}).json()
        assert len(matches) == 1 and matches[0]["winner"] in ("alice", "bot:random")
        # alice challenges bob; bob accepts from his terminal; both play to the end
        challenger = TerminalProcess(server, "alice", tmp_path, "--challenge", "bob", "--match", "1")
        match_id = None
        for _ in range(600):
            invited = http.get("/api/matches", params={"user": "bob", "status": "invited"}).json()
            if invited:
                match_id = invited[0]["id"]
                break
            time.sleep(0.1)
        assert match_id is not None
        accepter = TerminalProcess(server, "bob", tmp_path, "--accept", str(match_id))
        code_alice, out_alice = challenger.finish()
        code_bob, out_bob = accepter.finish()
        assert code_alice == 0 and code_bob == 0, (out_alice[-2000:], out_bob[-2000:])
        final = http.get(f"/api/matches/{match_id}").json()
        assert final["status"] == "finished"
        winner_line = "You win the 1-point match" if final["winner"] == "alice" else "bob wins the 1-point match"
        assert winner_line in out_alice, out_alice
        # each saw the other's plays, told in their own terms and names as they spell them
        assert "bob plays " in out_alice or "bob cannot move." in out_alice
        assert "alice plays " in out_bob or "alice cannot move." in out_bob


# -- the board, and what is said ------------------------------------------------------------------------
BOARD_TOP = "   13 14 15 16 17 18      19 20 21 22 23 24"


def test_the_board_comes_at_the_start_and_after_each_play_of_the_opponent() -> None:
    # the bot opens with 3-1; you answer 6-5 checker by checker; the bot plays 4-2
    match = Match(3, dice=FixedDice([(1, 3), (6, 5), (4, 2)]))
    out, read, write = scripted(["", "24/18", "18/13", ""])
    Terminal(table(match), read, write).run()
    boards = [i for i, text in enumerate(out) if text.startswith(BOARD_TOP)]
    assert boards and boards[0] == 0, "the board before the first roll"
    plays = [i for i, text in enumerate(out) if text.startswith("The bot plays ")]
    assert len(plays) == 2 and all(any(b > i for b in boards) for i in plays), "a board after each of the bot's plays"
    # appended text is not a board a checker: none after "You move ..." until the bot has played
    moved = [i for i, text in enumerate(out) if text.startswith("You move ")]
    assert moved and not [b for b in boards if moved[0] < b < plays[1]]


def test_refusals_say_you() -> None:
    match = Match(5, dice=FixedDice([(3, 1), (6, 5)]))
    out, read, write = scripted(["double"])
    Terminal(table(match), read, write).run()
    refusal = next(text for text in out if text.startswith("Not possible:"))
    assert refusal == "Not possible: you cannot double after rolling.", refusal


def test_the_crawford_game_is_announced() -> None:
    score = [0, 0]
    score[Color.BLACK] = 4
    state = GameState(position=Position(), score=tuple(score), match_length=5, crawford=True)
    match = Match.from_state(state, dice=FixedDice([(3, 1), (6, 5)]))
    out, read, write = scripted(["pips"])
    Terminal(table(match), read, write).run()
    assert "This is the Crawford game: neither side may double in it." in out
    assert not any("double" in text for text in out if text.endswith("> "))  # nor is doubling offered


def test_a_capital_h_with_caps_lock_is_the_play_hint() -> None:
    match = Match(5, dice=FixedDice([(3, 1), (6, 5)]))
    out, read, write = scripted(["<H>", "<D>", "<s-h>"])
    Terminal(table(match), read, write).run()
    text = "\n".join(out)
    assert "Hint for 3-1, best first" in text and "The cube is at 1, in the middle." in text
    assert "Not possible: the cube is decided before rolling" in text  # Shift+H, where a reader knows Shift


class Emulator:
    """A VT100 screen (pyte) that a :class:`PinnedScreen` draws on, with the transcript written through it."""

    def __init__(self, rows: int = 40, columns: int = 100) -> None:
        import pyte

        self.screen = pyte.Screen(columns, rows)
        self.stream = pyte.Stream(self.screen)
        self.written = io.StringIO()
        self.size = os.terminal_size((columns, rows))

    def write(self, text: str) -> int:
        self.written.write(text)
        self.stream.feed(text.replace("\n", "\r\n"))  # a terminal's output processing
        return len(text)

    def flush(self) -> None:
        pass

    def rows(self) -> list[str]:
        return [row.rstrip() for row in self.screen.display]


def test_the_board_is_redrawn_in_place_on_a_terminal() -> None:
    emulator = Emulator()
    screen = PinnedScreen(emulator, size=lambda: emulator.size)  # type: ignore[arg-type]
    match = Match(3, dice=FixedDice([(1, 3), (6, 5), (4, 2), (2, 1)]))
    _, read, _ = scripted(["", "24/18", "18/13", "", *["pips"] * 40])
    Terminal(table(match), read, screen.write, screen=screen).run()
    rows = emulator.rows()
    assert rows[0] == BOARD_TOP  # pinned at the top, however much was said beneath it
    assert sum(row == BOARD_TOP for row in rows) == 1
    # the board shows the bot's last play (4-2 from its 8 and 6: your 17 and 19 hold 2 of its checkers)
    assert any("Pips: you" in row for row in rows[-8:])
    written = emulator.written.getvalue()
    assert written.count("\x1b[2J") == 1, "cleared once; every later board rewritten in place"
    assert written.count(BOARD_TOP) <= 2, "the rows that did not change are not written again"


def test_a_terminal_too_small_for_the_board_gets_it_appended() -> None:
    emulator = Emulator(rows=20)
    screen = PinnedScreen(emulator, size=lambda: emulator.size)  # type: ignore[arg-type]
    match = Match(3, dice=FixedDice([(1, 3), (6, 5)]))
    _, read, _ = scripted([])
    Terminal(table(match), read, screen.write, screen=screen).run()
    assert "\x1b[2J" not in emulator.written.getvalue() and BOARD_TOP in emulator.written.getvalue()


def test_a_real_terminal_keeps_one_board_pinned_at_the_top(tmp_path) -> None:
    """``gammon play`` in a pseudo-terminal, its output read by a terminal emulator: one board on the
    screen, drawn once in full, however many plays and sentences came."""
    import pyte

    child = _spawn("--seed", "4", "--match", "1", "--bot", "random")
    child.setwinsize(40, 120)
    log = tmp_path / "terminal.log"
    child.logfile_read = open(log, "w")
    screen = pyte.Screen(120, 40)
    stream = pyte.Stream(screen)
    try:
        for _ in range(12):  # a few turns, by keys: Ctrl+Right and Enter for each checker, Enter to roll
            child.expect(PROMPT)
            prompt = child.match.group(1)
            if prompt.startswith("You rolled"):
                child.send("\x1b[1;5C")
                child.expect(PROMPT)
            child.send("y" if "Y takes" in prompt or "Y accepts" in prompt else "\r")
        child.expect(PROMPT)
        child.logfile_read.flush()
        with open(log, newline="") as file:  # as the terminal got it: \r\n kept
            written = file.read()
        stream.feed(written)
        rows = [row.rstrip() for row in screen.display]
    finally:
        child.close()
    assert written.count("\x1b[2J") == 1 and "Traceback" not in written
    assert rows[0] == BOARD_TOP and sum(row == BOARD_TOP for row in rows) == 1, "\n".join(rows)
    assert any(row.startswith(("The random bot ", "You ", "Game 1")) for row in rows[16:]), "\n".join(rows)
