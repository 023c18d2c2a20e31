"""The web client in a real browser: Debian's Chromium driven by Playwright, axe-core on every page.

A whole match by keyboard only against a bot, its announcements read back; two people in two
browser contexts playing each other while a third spectates; axe-core (from the npm registry)
reporting no violation on any page or game state reached.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tarfile
import time
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, BrowserContext, Page, sync_playwright
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from server_support import Client, ServerProcess

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"
AXE_VERSION = "4.14.1"
AXE = ROOT / ".cache" / f"axe-core-{AXE_VERSION}" / "package" / "axe.min.js"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage"]
SHOTS = os.environ.get("GAMMON_SCREENSHOTS")  # a folder: the docs' screenshots are taken there


def _chromium() -> str:
    if not Path(CHROMIUM).exists() and shutil.which("apt-get"):
        subprocess.run(["apt-get", "install", "-y", "-q", "chromium"], check=False, capture_output=True)
    assert Path(CHROMIUM).exists(), "Debian's chromium is needed: apt-get install chromium (make test installs it)"
    return CHROMIUM


def _axe() -> str:
    if not AXE.exists():
        folder = AXE.parent.parent
        folder.mkdir(parents=True, exist_ok=True)
        subprocess.run(["npm", "pack", f"axe-core@{AXE_VERSION}", "--pack-destination", str(folder)], check=True,
                       capture_output=True)
        with tarfile.open(folder / f"axe-core-{AXE_VERSION}.tgz") as archive:
            archive.extractall(folder, filter="data")
    return AXE.read_text()


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=_chromium(), headless=True, args=ARGS)
        yield browser
        browser.close()


@pytest.fixture(scope="module")
def axe_source() -> str:
    return _axe()


@pytest.fixture
def server(tmp_path):
    # Hints come from pubeval (at once), not the default 2-ply net: the page's hint panel is tested, not the hints.
    with ServerProcess(f"sqlite:///{tmp_path / 'server.db'}", "--hint-player", "pubeval",
                       log=tmp_path / "server.log") as process:
        yield process
        # Ended with kill -9: once a page has held a WebSocket, gammon serve does not finish a
        # graceful stop (SIGTERM) within the 30 s ServerProcess.stop waits. These tests check
        # the pages; a graceful stop is checked in test_pbm_server.
        process.kill()


def no_violations(page: Page, axe_source: str, where: str) -> None:
    if not page.evaluate("() => typeof window.axe !== 'undefined'"):
        page.add_script_tag(content=axe_source)
    violations = page.evaluate("""async () => (await axe.run(document)).violations.map(
        v => ({id: v.id, help: v.help, nodes: v.nodes.map(n => n.target.join(' '))}))""")
    assert violations == [], (where, violations)


def register(page: Page, server: ServerProcess, name: str, password: str = "correct horse") -> None:
    """Register and log in through the page, by keyboard."""
    page.goto(f"{server.url}/#/register")
    page.wait_for_selector("h1:text-is('Register')")
    page.focus("#name")
    page.keyboard.type(name)
    page.keyboard.press("Tab")
    page.keyboard.type(password)
    page.keyboard.press("Enter")
    page.wait_for_selector("#challenge-heading")


def challenge(page: Page, opponent: str, length: int) -> int:
    """A match from the lobby's form: a bot by its card, anyone else (or any bot) by name."""
    card = page.locator(f"#challenge input[name=opponent][value='{opponent}']")
    if card.count():
        card.check()
    else:
        page.fill("#opponent-name", opponent)
        page.check("#opp-person")
    page.select_option("#length", str(length))
    page.focus("#opponent-name")
    page.keyboard.press("Enter")
    page.wait_for_function("() => /^#\\/match\\/\\d+$/.test(location.hash)")
    page.wait_for_function("() => window.gammon.match && (window.gammon.match.status === 'invited' || window.gammon.board)")
    return int(page.url.rsplit("/", 1)[1])


def turn_line(page: Page) -> str:
    return page.inner_text("#turn-line")


def wait_change(page: Page, before: str, timeout: float = 30.0) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        now = turn_line(page)
        if now != before:
            return now
        page.wait_for_timeout(50)
    return turn_line(page)


def play_by_keys(page: Page, *, double_first: bool = False, checks=None, limit: float = 900.0) -> None:
    """Answer the turn line by keys only until the match is over."""
    deadline = time.monotonic() + limit
    doubled_in: set[int] = set()
    while time.monotonic() < deadline:
        line = turn_line(page)
        if line.startswith("The match is over"):
            return
        if checks is not None:
            checks(page, line)
        if line.startswith("Your turn"):
            game = page.evaluate("() => window.gammon.match.game")
            if double_first and "Shift+D" in line and game not in doubled_in:
                doubled_in.add(game)
                page.keyboard.press("Shift+D")
            else:
                page.keyboard.press("Enter")
        elif line.startswith("You rolled"):
            page.keyboard.press("Control+ArrowRight")
            page.keyboard.press("Enter")
            if "Holding" not in wait_change(page, line, 10):
                continue
            page.keyboard.press("Control+ArrowRight")
            page.keyboard.press("Enter")
        elif line.startswith("Play ") and "complete" in line:
            page.keyboard.press("Enter")
        elif "Y takes" in line or "Y accepts" in line:
            page.keyboard.press("y")
        else:
            page.wait_for_timeout(100)
            continue
        wait_change(page, line, 10)
    raise AssertionError(f"the match did not end; the page says {turn_line(page)!r}")


def try_click(page: Page, selector: str) -> None:
    """Click, unless the state moved on meanwhile (the button no longer enabled)."""
    try:
        page.click(selector, timeout=3000)
    except PlaywrightTimeout:
        pass


# The page keeps only its last 400 announcements on screen; a listener in the test hears them all,
# and counts the checkers the board slides.
HEAR_EVERYTHING = """
window.__heard = [];
window.__slides = 0;  // checkers slid by the board (Element.animate), counted
const slide = Element.prototype.animate;
Element.prototype.animate = function (...args) { window.__slides += 1; return slide.apply(this, args); };
window.__turnLines = [];  // every text the turn line showed, however briefly
document.addEventListener("DOMContentLoaded", () => {
  new MutationObserver((changes) => {
    for (const change of changes) {
      if (change.target.id === "turn-line") for (const node of change.addedNodes) window.__turnLines.push(node.textContent);
    }
  }).observe(document.body, { childList: true, subtree: true });
  const log = document.getElementById("log");
  for (const node of log.children) window.__heard.push(node.textContent);
  new MutationObserver((changes) => {
    for (const change of changes) for (const node of change.addedNodes) window.__heard.push(node.textContent);
  }).observe(log, { childList: true });
});
"""


#: How long a page may take to show what a step leads to. An answer must come, not come fast:
#: on a 2-core machine with both cores busy, the first log-in (an argon2 hash, the server's
#: first requests) has taken more than Playwright's default 30 s.
PATIENCE_MS = 180_000


def new_context(browser: Browser, **options) -> BrowserContext:
    # The site's Content-Security-Policy allows only its own scripts; the tests inject axe-core and
    # a listener of their own, so their browser is told to let them in (test_server_holds.py checks
    # the policy itself).
    context = browser.new_context(bypass_csp=True, **options)
    context.set_default_timeout(PATIENCE_MS)
    context.add_init_script(HEAR_EVERYTHING)
    return context


def log_lines(page: Page) -> list[str]:
    """Every sentence the live region announced since the page was loaded."""
    return page.evaluate("() => window.__heard")


def history_of(server: ServerProcess, match_id: int, name: str | None = None) -> dict:
    """The match with every event, told to ``name`` (logged in with the tests' password) or to a spectator."""
    headers = {}
    if name is not None:
        token = httpx.post(f"{server.url}/api/sessions", json={"name": name, "password": "correct horse"},
                           timeout=60).json()["token"]
        headers["Authorization"] = f"Bearer {token}"
    return httpx.get(f"{server.url}/api/matches/{match_id}?history=all", headers=headers, timeout=60).json()


def _in_white_numbering(play: str) -> str:
    return re.sub(r"\b(\d{1,2})\b(?!\))", lambda m: str(25 - int(m.group(1))), play)


# -- the tests ---------------------------------------------------------------------------------------
def focused_heading(page: Page) -> str:
    """The text of the focused <h1>: after every navigation the reader starts there."""
    page.wait_for_function("() => document.activeElement && document.activeElement.tagName === 'H1'")
    return page.evaluate("() => document.activeElement.textContent")


def no_horizontal_scroll(page: Page, where: str) -> None:
    wide = page.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
    assert wide[0] <= wide[1], (where, wide)


def test_a_whole_match_by_keyboard_only_against_a_bot(browser: Browser, axe_source: str, server) -> None:
    context = new_context(browser, viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.goto(server.url + "/")
    page.wait_for_selector("#name")
    no_violations(page, axe_source, "log-in page")
    page.goto(f"{server.url}/#/register")
    page.wait_for_selector("h1:text-is('Register')")
    no_violations(page, axe_source, "register page")
    register(page, server, "alice")
    assert focused_heading(page) == "Play"  # after log-in too
    assert page.get_attribute("#sound-toggle", "aria-pressed") == "false", "sounds are off unless turned on"
    # the lobby's form starts from seed 004's defaults: 1 point, the bot "Simple", no hints
    page.wait_for_selector("#challenge input[name=opponent]:checked")
    assert page.input_value("#length") == "1"
    assert not page.is_checked("#opt-hints") and not page.is_checked("#opt-cube_hints") and not page.is_checked("#opt-verbose")
    checked_bot = page.locator("#challenge input[name=opponent]:checked").get_attribute("value")
    assert checked_bot == "bot:simple", checked_bot
    no_violations(page, axe_source, "lobby")
    if SHOTS:
        page.screenshot(path=str(Path(SHOTS) / "web-lobby.png"), full_page=True)
    match_id = challenge(page, "bot:random", 2)
    assert focused_heading(page).startswith("alice v Random")  # a bot by its title
    checked: set[str] = set()

    def check_states(page: Page, line: str) -> None:  # axe on each kind of game state reached
        kind = line.split(":")[0].split(" ")[0] + (" holding" if "Holding" in line else "")
        if kind not in checked:
            checked.add(kind)
            no_violations(page, axe_source, f"game: {line}")
            # the board is large and the controls beside it, on the first screen
            box = page.locator("#board-wrap").bounding_box()
            assert box["width"] >= 700 and box["y"] + box["height"] <= 800, box
            assert page.locator(".side").bounding_box()["x"] > box["x"] + box["width"]
            if SHOTS and kind == "You" and "Holding" not in line:
                page.screenshot(path=str(Path(SHOTS) / "web-game.png"))

    play_by_keys(page, double_first=True, checks=check_states)
    assert {"Your", "You"} <= checked
    state = history_of(server, match_id)
    assert state["status"] == "finished" and state["winner"] in ("alice", "bot:random")
    # the end: a summary with the rating change and a rematch; axe on it
    page.wait_for_selector("#summary h2")
    summary = page.inner_text("#summary")
    assert ("You won the match" if state["winner"] == "alice" else "bot:random won the match") in summary
    page.wait_for_function("() => !document.querySelector('#do-roll') || document.querySelector('#do-roll').hidden")
    no_violations(page, axe_source, "the match over")
    # an analysis of the match is asked for from its page; the page follows it until it is done
    page.click("#do-analyse")
    page.wait_for_selector("#do-analyse", state="detached")
    assert "nalys" in page.inner_text("#analysis")

    # every event announced once, as the server tells it to alice: "you", in alice's (white's) numbering
    told = history_of(server, match_id, "alice")["history"]
    lines = log_lines(page)
    events = state["history"]
    assert not [line for line in lines if re.search(r"[0-9a-f]{16}", line)], "no hash in the live region"
    rolls = [e for e in events if e["kind"] == "roll"]
    assert sum(1 for line in lines if re.fullmatch(r"(You roll|bot:random rolls) \d-\d\.", line)) == len(rolls)
    for event in (e for e in told if e["kind"] == "play" and e["data"]["play"]):
        mover = "You play " if event["color"] == "white" else "bot:random plays "
        assert event["description"].startswith(mover) and event["description"] in lines, (event, lines)
        if event["color"] == "black":  # the bot's steps, told from alice's side: every point mirrored
            first = event["data"]["play"].split()[0].rstrip("*")
            assert _in_white_numbering(first).split("/")[0] in event["description"], event
    plays = [e for e in events if e["kind"] == "play"]
    # a roll nobody could play was shown on the turn line before the turn passed
    shown = page.evaluate("() => window.__turnLines")
    for color, who in (("white", "You"), ("black", "bot:random")):
        blocked = sum(1 for e in plays if e["color"] == color and not e["data"]["play"])
        assert sum(1 for line in shown if re.fullmatch(f"{who} cannot move with \\d-\\d\\.", line)) >= blocked, (color, shown)
    assert sum("hitting" in line for line in lines) == sum(1 for e in plays if "*" in e["data"]["play"])
    assert sum("bearing off" in line for line in lines) == sum(1 for e in plays if "/off" in e["data"]["play"])
    for kind, pattern in (("double", r" doubles? to \d+\."), ("take", r" takes?: the cube is at \d+"),
                          ("drop", r" drops? the double\."), ("game_over", r" wins? game \d+ and "),
                          ("match_over", r" wins? the \d+-point match \d+-\d+\.")):
        expected = sum(1 for e in events if e["kind"] == kind)
        assert sum(1 for line in lines if re.search(pattern, line)) == expected, (kind, lines)
    assert any(e["kind"] == "double" for e in events), "the test doubles at the start of each game"
    assert page.evaluate("() => window.__slides") > 0, "checkers slide where they go"
    # the header's rating is asked again once the match is over
    rating = httpx.get(f"{server.url}/api/users/alice", timeout=60).json()["rating"]
    page.wait_for_function(f"() => document.querySelector('#my-rating').textContent === '{round(rating)}'")

    # the finished match: replay by keys, from either side, dice proof, record
    page.goto(f"{server.url}/#/replay/{match_id}")
    page.wait_for_selector("#replay-line")
    page.wait_for_function("() => document.querySelector('#replay-line').textContent.startsWith('Event ')")
    count = int(re.search(r"of (\d+)", page.inner_text("#replay-line")).group(1))
    page.keyboard.press("Home")
    page.wait_for_function("() => document.querySelector('#replay-line').textContent.startsWith('Event 1 of')")
    page.keyboard.press("ArrowRight")
    page.wait_for_function("() => document.querySelector('#replay-line').textContent.startsWith('Event 2 of')")
    page.keyboard.press("PageDown")  # the next game's first event
    page.wait_for_function("() => !document.querySelector('#replay-line').textContent.startsWith('Event 2 of')")
    page.keyboard.press("End")
    page.wait_for_function(f"() => document.querySelector('#replay-line').textContent.startsWith('Event {count} of')")
    page.keyboard.press("ArrowUp")  # the play before
    page.wait_for_function(f"() => !document.querySelector('#replay-line').textContent.startsWith('Event {count} of')")
    assert " plays " in page.inner_text("#replay-line") or " play " in page.inner_text("#replay-line")
    page.check("#main input[name=view][value=black]")
    page.wait_for_function("() => document.querySelector('#board-svg svg').getAttribute('aria-label')"
                           ".includes(\"bot:random's side\")")
    page.click("#replay-first")
    page.wait_for_function("() => document.querySelector('#replay-line').textContent.startsWith('Event 1 of')")
    assert "Seed: " in page.inner_text("main") and "record.mat" in page.inner_html("main")
    assert page.is_hidden("#announcements"), "the log belongs to its match"
    no_violations(page, axe_source, "replay")
    # each page checked once it is whole: its last part drawn (the bots' list, the rating history)
    for where, last in (("#/top", "h2:text-is('Bots')"), ("#/user/alice", "h2:text-is('Rating history')")):
        page.goto(server.url + "/" + where)
        page.wait_for_selector(f"#main {last}")
        no_violations(page, axe_source, where)
    # a rematch: the same bot, the same length, playing at once
    page.goto(f"{server.url}/#/match/{match_id}")
    page.wait_for_selector("#do-rematch")
    page.click("#do-rematch")
    page.wait_for_function(f"() => /^#\\/match\\/\\d+$/.test(location.hash) && location.hash !== '#/match/{match_id}'")
    page.wait_for_function("() => window.gammon.board && window.gammon.match.status === 'playing'")
    again = page.evaluate("() => window.gammon.match")
    assert again["players"] == state["players"] and again["length"] == 2
    context.close()


def test_the_keys_of_seed_004_on_the_board(browser: Browser, axe_source: str, server) -> None:
    http = httpx.Client(base_url=server.url, timeout=60)
    Client(http, "carol").register()
    context = new_context(browser)
    page = context.new_page()
    page.goto(f"{server.url}/#/login")
    page.wait_for_selector("#name")
    page.fill("#name", "carol")
    page.fill("#password", "correct horse")
    page.keyboard.press("Enter")
    page.wait_for_selector("#challenge-heading")
    page.check("#opt-hints")
    match_id = challenge(page, "bot:nn:0:beginner", 5)
    # status keys speak at once
    page.wait_for_function("() => window.gammon.board !== null")
    for key, expected in (("e", "Bar: you"), ("d", "The cube is at 1"), ("p", "Pips: you"), ("s", "Score: you 0"),
                          ("t", "turn"), ("c", "rolled")):
        before = len(log_lines(page))
        page.keyboard.press(key)
        page.wait_for_function(f"() => document.querySelectorAll('#log p').length > {before}")
        if key != "c":  # the bot's play may be told in between: the key's answer is among the new lines
            page.wait_for_function(f"() => window.__heard.slice({before}).some(line => line.includes({expected!r}))")
    deadline = time.monotonic() + 120
    while not turn_line(page).startswith("You rolled") and time.monotonic() < deadline:
        if turn_line(page).startswith("Your turn"):
            page.keyboard.press("Enter")
        page.wait_for_timeout(100)
    # arrows move along the board, Alt and Home/End jump to the edges
    page.focus("#cell-6")
    page.keyboard.press("ArrowLeft")
    assert page.evaluate("() => document.activeElement.id") == "cell-7"
    page.keyboard.press("End")
    assert page.evaluate("() => document.activeElement.id") == "cell-1"
    page.keyboard.press("Home")
    assert page.evaluate("() => document.activeElement.id") == "cell-12"
    page.keyboard.press("Alt+ArrowUp")
    assert page.evaluate("() => document.activeElement.id") == "cell-13"
    page.keyboard.press("Alt+ArrowRight")
    assert page.evaluate("() => document.activeElement.id") == "cell-24"
    label = page.get_attribute("#cell-24", "aria-label")
    assert label.startswith("24: ") and "yours" in label
    # Ctrl+arrows cycle sources; Enter picks up; Ctrl+Backspace puts back; a move, then U undoes it
    page.keyboard.press("Control+ArrowRight")
    source = page.evaluate("() => document.activeElement.id")
    page.keyboard.press("Enter")
    page.wait_for_function("() => window.gammon.selected !== null")
    assert page.get_attribute(f"#{source}", "aria-selected") == "true"
    no_violations(page, axe_source, "a checker picked up")
    page.keyboard.press("Control+Backspace")
    page.wait_for_function("() => window.gammon.selected === null")
    page.keyboard.press("Enter")
    page.wait_for_function("() => window.gammon.selected !== null")
    page.keyboard.press("Control+ArrowRight")
    page.keyboard.press("Enter")
    page.wait_for_function("() => window.gammon.pending.length > 0")
    page.keyboard.press("u")
    page.wait_for_function("() => window.gammon.pending.length === 0")
    assert any(line.startswith("Undone: ") for line in log_lines(page))
    # a lost connection comes back by itself and the page goes on from the server's state
    page.evaluate("() => window.gammon.ws.close()")
    page.wait_for_function("() => [...document.querySelectorAll('#log p')].some(p => p.textContent === 'Connection restored.')")
    assert any(line == "Connection lost; reconnecting." for line in log_lines(page))
    # H: the hint panel; a typed play is entered and waits for Enter
    page.keyboard.press("h")
    page.wait_for_selector("#hints tbody th.play", timeout=120_000)
    no_violations(page, axe_source, "the hint panel")
    headers = page.locator("#hints thead th").all_inner_texts()
    assert headers == ["Play", "Equity", "Difference"], headers
    best = page.locator("#hints tbody th.play").first.inner_text()
    page.click("#more summary")
    page.select_option("#resign-kind", "3")
    page.fill("#typed-play", best)
    page.keyboard.press("Enter")
    page.wait_for_function("() => window.gammon.board.complete")
    page.focus("#cell-1")
    page.keyboard.press("Enter")
    page.wait_for_function("() => window.gammon.history.some(e => e.kind === 'play' && e.color === 'white')")
    told = history_of(server, match_id, "carol")["history"]
    assert any(e["kind"] == "play" and e["color"] == "white" and e["description"].startswith(f"You play {best}")
               for e in told), (best, told)
    # the last play is drawn on the board: its points marked, no arrows across the board
    page.wait_for_function("() => window.gammon.board.last_play !== null && !window.gammon.pending.length")
    page.wait_for_function("() => document.querySelectorAll('#board-svg .last-to').length > 0")
    # the hint was for that roll: once the turn has passed it is gone; the resignation chosen goes back to "single"
    page.wait_for_function("() => document.querySelector('#hints').hidden")
    assert page.input_value("#resign-kind") == "1"
    # a page opened again says where things stand, and not again what was heard already
    heard_before = log_lines(page)
    page.reload()
    page.wait_for_function("() => window.gammon.board !== null")
    page.wait_for_function("() => window.__heard.length >= 2")
    again = log_lines(page)
    assert re.match(r"Your 5-point match against bot:\S+\. You play white", again[0]), again
    assert f"You play {best}" not in " ".join(again[1:]) or f"You play {best}" not in " ".join(heard_before), again
    assert not [line for line in heard_before + again if re.search(r"[0-9a-f]{16}", line)], "no hash in the live region"
    context.close()


def test_two_people_play_while_a_third_watches(browser: Browser, axe_source: str, server) -> None:
    contexts = {name: new_context(browser) for name in ("alice", "bob", "carol")}
    pages = {name: context.new_page() for name, context in contexts.items()}
    for name, page in pages.items():
        register(page, server, name)
    match_id = challenge(pages["alice"], "bob", 1)
    bob = pages["bob"]
    bob.goto(f"{server.url}/#/lobby")
    pages["alice"].wait_for_function("() => (document.querySelector('#turn-line') || {}).textContent")
    assert "Waiting for bob to accept" in turn_line(pages["alice"])
    bob.click(f"#accept-{match_id}")
    bob.wait_for_selector("#cell-1")
    pages["alice"].wait_for_function("() => window.gammon.board !== null && window.gammon.match.status === 'playing'")
    carol = pages["carol"]
    carol.goto(f"{server.url}/#/lobby")
    carol.click("text=Watch alice v bob")
    carol.wait_for_selector("#cell-1")
    carol.wait_for_function("() => window.gammon.board !== null")
    # a spectator's page: the board and the log, no player's controls
    assert carol.locator("#do-roll, #do-confirm, #typed, #do-resign").count() == 0
    assert carol.locator("#main input[name=view]").count() == 2
    no_violations(carol, axe_source, "spectating")
    visitor_context = new_context(browser)
    visitor = visitor_context.new_page()
    visitor.goto(f"{server.url}/#/match/{match_id}")
    visitor.wait_for_function("() => window.gammon.board !== null")
    assert visitor.locator("#do-roll, #do-confirm, #typed, #do-resign").count() == 0
    assert "You are watching alice (white) against bob (black)" in log_lines(visitor)[0]
    no_violations(visitor, axe_source, "a visitor not logged in")
    visitor_context.close()
    deadline = time.monotonic() + 900
    while time.monotonic() < deadline:
        lines = {name: turn_line(page) for name, page in pages.items() if name != "carol"}
        if all(line.startswith("The match is over") for line in lines.values()):
            break
        for name in ("alice", "bob"):
            page, line = pages[name], lines[name]
            if line.startswith("Your turn"):
                try_click(page, "#do-roll")  # by mouse
            elif line.startswith("You rolled"):
                page.focus(f"#cell-{pages[name].evaluate('() => window.gammon.cursor')}")
                page.keyboard.press("Control+ArrowRight")
                page.keyboard.press("Enter")
                page.keyboard.press("Control+ArrowRight")
                page.keyboard.press("Enter")
            elif "complete" in line:
                try_click(page, "#do-confirm")
            else:
                continue
            wait_change(page, line, 10)
        time.sleep(0.05)
    else:
        raise AssertionError("the match did not end")
    state = history_of(server, match_id)
    assert state["status"] == "finished"
    alice_log, bob_log, carol_log = (log_lines(pages[name]) for name in ("alice", "bob", "carol"))
    bob_plays = [e for e in state["history"] if e["kind"] == "play" and e["color"] == "black" and e["data"]["play"]]
    alice_plays = [e for e in state["history"] if e["kind"] == "play" and e["color"] == "white" and e["data"]["play"]]
    # each saw the other's moves live, in their own numbering; the spectator saw both
    assert sum(line.startswith("bob plays ") for line in alice_log) == len(bob_plays)
    assert sum(line.startswith("alice plays ") for line in bob_log) == len(alice_plays)
    assert sum(line.startswith(("bob plays ", "alice plays ")) for line in carol_log) == len(bob_plays) + len(alice_plays)
    winner = state["winner"]
    assert any("wins the 1-point match" in line for line in carol_log)
    assert any(("You win the 1-point match" if winner == "alice" else "bob wins the 1-point match") in line
               for line in alice_log)
    for context in contexts.values():
        context.close()


def test_a_phone_invitations_withdrawn_and_announced(browser: Browser, axe_source: str, server) -> None:
    phone = new_context(browser, viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True,
                        reduced_motion="reduce")
    desk = new_context(browser)
    alice, bob = phone.new_page(), desk.new_page()
    register(alice, server, "alice")
    register(bob, server, "bob")
    no_horizontal_scroll(alice, "the lobby on a phone")
    no_violations(alice, axe_source, "the lobby on a phone")
    # bob is online: alice sees him in the lobby and challenges him
    alice.evaluate("() => window.dispatchEvent(new Event('focus'))")
    alice.wait_for_selector("#invite-bob")
    alice.click("#invite-bob")
    assert alice.input_value("#opponent-name") == "bob" and alice.is_checked("#opp-person")
    # fair rated play: engine hints make a match between people unrated, and the form says so at once
    alice.check("#opt-hints")
    assert alice.is_disabled("#opt-rated") and not alice.is_checked("#opt-rated")
    assert "Engine hints make a match between people unrated" in alice.inner_text("#fair-note")
    alice.uncheck("#opt-hints")
    assert alice.is_enabled("#opt-rated") and alice.is_checked("#opt-rated") and not alice.inner_text("#fair-note")
    alice.select_option("#length", "3")
    alice.click("#start")
    alice.wait_for_function("() => window.gammon.match && window.gammon.match.status === 'invited'")
    match_id = alice.evaluate("() => window.gammon.matchId")
    no_horizontal_scroll(alice, "an invitation on a phone")
    alice.wait_for_selector("#do-withdraw")  # the invitation's own page offers to withdraw it too
    assert alice.inner_text("#invitation-terms") == "3-point match, no clock, rated."
    # bob's lobby says so by itself (it asks again when its window gets the focus, or every 10 s)
    bob.evaluate("() => window.dispatchEvent(new Event('focus'))")
    bob.wait_for_function("() => document.querySelector('#lobby-status').textContent"
                          ".includes('alice challenges you to a 3-point match')")
    bob.wait_for_selector(f"#accept-{match_id}")
    # what accepting agrees to is there before the button: length, variant, clock, rated or not
    terms = bob.locator("li.invite", has=bob.locator(f"#accept-{match_id}")).inner_text()
    assert "alice invites you: 3-point match, no clock, rated" in terms, terms
    no_violations(bob, axe_source, "an invitation in the lobby")
    # alice withdraws it: the server says withdrawn, and bob's lobby no longer offers it
    alice.goto(f"{server.url}/#/lobby")
    alice.click(f"#withdraw-{match_id}")
    alice.wait_for_function("() => document.querySelector('#lobby-status').textContent.includes('withdrawn')")
    assert history_of(server, match_id)["status"] == "withdrawn"
    bob.evaluate("() => window.dispatchEvent(new Event('focus'))")
    bob.wait_for_selector(f"#accept-{match_id}", state="detached")
    # a game on the phone: the board as wide as the screen, nothing to scroll sideways
    alice.select_option("#clock", "12/300")  # with a clock: 12 s a move, then 5 minutes in reserve
    match_id = challenge(alice, "bot:random", 1)
    alice.wait_for_function("() => window.gammon.board !== null")
    assert alice.evaluate("() => window.gammon.match.options.clock") == {"delay": 12, "reserve": 300}
    alice.wait_for_function("() => /^\\d+:\\d\\d/.test(document.querySelector('#clock-white').textContent)")
    box = alice.locator("#board-wrap").bounding_box()
    assert box["width"] >= 350, box
    no_horizontal_scroll(alice, "a game on a phone")
    assert alice.locator("#board-svg .cube").count() == 0, "no cube in a 1-point match"
    # the bot's play is drawn where it went, without sliding: this phone asked for reduced motion
    alice.wait_for_function("() => window.gammon.match.to_act !== null")
    if alice.evaluate("() => window.gammon.match.to_act === 'white' && window.gammon.match.dice !== null"):
        alice.fill("#typed-play", alice.evaluate("() => window.gammon.match.legal[0]"))  # alice opens: her play first
        alice.press("#typed-play", "Enter")
        alice.wait_for_function("() => window.gammon.board.complete")
        alice.click("#do-confirm")
    alice.wait_for_function("() => window.gammon.history.some(e => e.kind === 'play' && e.color === 'black')")
    alice.wait_for_function("() => window.gammon.board.last_play !== null && window.gammon.board.last_play.color === 'black'")
    assert alice.evaluate("() => window.__slides") == 0
    no_violations(alice, axe_source, "a game on a phone")
    if SHOTS:
        alice.screenshot(path=str(Path(SHOTS) / "web-phone.png"))
    # an invitation is told on any page: counted beside "Play", said in the header's status
    bob.goto(f"{server.url}/#/top")
    bob.wait_for_selector("#main h2")
    alice.goto(f"{server.url}/#/lobby")
    alice.wait_for_selector("#challenge-heading")
    challenge(alice, "bob", 5)
    bob.evaluate("() => window.dispatchEvent(new Event('focus'))")
    bob.wait_for_function("() => document.querySelector('#header-news').textContent"
                          ".includes('alice challenges you to a 5-point match')")
    assert bob.locator("#invite-count").is_visible()
    no_violations(bob, axe_source, "an invitation told in the header")
    phone.close()
    desk.close()
