"""The terminal's online lobby, in a real pseudo-terminal against a real ``gammon serve``: typed
words are read as words (single keys mean something on the board only), the list is numbered and
``#N`` plays entry N; in a match, ``#N`` is entry N of the list last shown, a hint's or ``list``'s;
and a challenge sends what its player chose (engine hints make a match between people unrated)."""

from __future__ import annotations

import os
import re
import sys

import httpx
import pexpect

from gammon.cli.terminal import Terminal
from gammon.dice import FixedDice
from gammon.match import Match

from server_support import Client, ServerProcess
from test_cli_play import scripted, table

LOBBY = "lobby> "


def _spawn(*args: str) -> pexpect.spawn:
    env = dict(os.environ, PROMPT_TOOLKIT_NO_CPR="1", TERM="xterm", GAMMON_PASSWORD="correct horse")
    return pexpect.spawn(sys.executable, ["-m", "gammon", "play", *args], env=env, encoding="utf-8",
                         timeout=300, dimensions=(50, 200))


def test_the_lobby_reads_words_in_a_real_terminal_and_numbers_its_list(tmp_path) -> None:
    with ServerProcess(f"sqlite:///{tmp_path / 'server.db'}", log=tmp_path / "server.log") as server:
        http = httpx.Client(base_url=server.url, timeout=60)
        alice, _ = Client(http, "alice").register(), Client(http, "bob").register()
        playing = alice.challenge("bot:random", 1)["id"]
        invited = Client(http, "bob").log_in().challenge("alice", 3)["id"]
        child = _spawn("--server", server.url, "--user", "alice")  # single keys on the board: a terminal
        child.logfile_read = open(tmp_path / "terminal.log", "w")
        try:
            child.expect(LOBBY)
            before = child.before
            assert f"#1 match {playing}: against bot:random, 1-point match, " in before, before
            assert f"#2 match {invited}: bob invites you to a 3-point match, no clock, rated: accept #2 or decline #2" \
                in before, before
            assert "Type a command and press Enter" in before
            child.sendline("pips")  # a word the board would read as a key (p): here it is a word, and not a command
            child.expect(LOBBY)
            assert "Not a lobby command: 'pips'. The lobby reads words" in child.before
            child.sendline("#2")
            child.expect(LOBBY)
            assert "#2 is an invitation: accept #2 or decline #2." in child.before
            child.sendline("play #2")
            child.expect(LOBBY)
            assert "#2 is an invitation" in child.before
            child.sendline("decline #2")
            child.expect(LOBBY)
            assert f"Match {invited}: declined." in child.before and "#2 match" not in child.before
            child.sendline("#1")  # the board: single keys from here
            child.expect(re.compile(r"(Your turn|You rolled)[^\n>]*>"))
        finally:
            child.close()
        assert http.get(f"/api/matches/{invited}").json()["status"] == "declined"


def test_a_challenge_from_the_lobby_sends_what_its_player_chose(tmp_path) -> None:
    with ServerProcess(f"sqlite:///{tmp_path / 'server.db'}", log=tmp_path / "server.log") as server:
        http = httpx.Client(base_url=server.url, timeout=60)
        Client(http, "alice").register()
        Client(http, "bob").register()
        for flags, hints, said in (((), True, "unrated, engine hints and cube hints on"),
                                   (("--no-hints", "--no-cube-hints"), False, "no clock, rated.")):
            child = _spawn("--server", server.url, "--user", "alice", "--words", *flags)
            try:
                child.expect(LOBBY)
                child.sendline("challenge bob 3")
                child.expect("Waiting for bob to accept")
                assert said in child.before, child.before
            finally:
                child.close()
            made = http.get("/api/matches", params={"user": "bob", "status": "invited"}).json()[0]
            assert made["options"]["hints"] is hints and made["options"]["cube_hints"] is hints
            assert made["options"]["rated"] is not hints  # hints between people: unrated, and told so


def _played(lines: list[str]) -> str:
    """The transcript of a terminal game fed ``lines`` (then the end of input), at 3-1 to open."""
    out, read, write = scripted(lines)
    Terminal(table(Match(5, dice=FixedDice([(3, 1), (6, 5), (2, 2)]))), read, write).run()
    return "\n".join(out)


def test_hash_n_plays_entry_n_of_the_list_last_shown_a_hint_or_the_list() -> None:
    hinted = _played(["hint", "#2", ""])
    second_hint = re.search(r"\n  #2 (.+?): equity", hinted)
    assert second_hint, hinted
    assert f"You play {second_hint.group(1)}." in hinted, hinted
    listed = _played(["list", "#2", ""])
    second_listed = re.search(r"\n#2 +(.+)", listed)
    assert second_listed, listed
    assert f"You play {second_listed.group(1).strip()}." in listed, listed
    assert second_hint.group(1) != second_listed.group(1).strip(), "the two lists number the plays differently"
