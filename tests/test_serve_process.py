"""``gammon serve`` as a real process: a stop signal ends it within 5 seconds whatever it served
(an event stream closed or still open, a bot thinking, a line-port connection), and a port
that is taken is one clear line and a failure, with no address printed."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import pytest
from websockets.sync.client import connect

from server_support import GAMMON, Client, ServerProcess, database, wait_for

ROOT = Path(__file__).resolve().parent.parent
#: What a stop signal may take, whatever is running: the deadline (2 s of shutdown and a 2 s margin)
#: and room for a machine whose cores are busy; a stop that waits on a thinking bot takes minutes.
STOP_LIMIT = 10.0


def _ports_closed(*ports: int) -> bool:
    for port in ports:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
        except OSError:
            continue
        return False
    return True


def _stopped_within(server: ServerProcess, limit: float = STOP_LIMIT) -> float:
    """SIGTERM, then the seconds until the process is gone (it fails past ``limit``)."""
    assert server.process is not None
    ports = [port for port in (server.port, server.pbm_port) if port]
    began = time.monotonic()
    server.process.send_signal(signal.SIGTERM)
    try:
        server.process.wait(limit)
    except subprocess.TimeoutExpired:
        alive = "; the ports still answer" if not _ports_closed(*ports) else ""
        server.kill()
        raise AssertionError(f"gammon serve was still running {limit} s after SIGTERM{alive}:\n"
                             f"{server.output()[-2000:]}") from None
    took = time.monotonic() - began
    # stopped gracefully (the signal's own death), or past the deadline (128 + the signal, as shells say it)
    assert server.process.returncode in (-signal.SIGTERM, 128 + signal.SIGTERM), server.output()[-2000:]
    assert _ports_closed(*ports)
    return took


@pytest.mark.parametrize("stream", ["closed", "open"])
def test_a_stop_signal_ends_the_server_after_an_event_stream(tmp_path, stream: str) -> None:
    server = ServerProcess(f"sqlite:///{tmp_path / 'server.db'}", "--pbm-port", "0", log=tmp_path / "server.log").start()
    try:
        http = httpx.Client(base_url=server.url, timeout=60)
        alice, _ = Client(http, "alice").register(), Client(http, "bob").register()
        match = alice.challenge("bob")["id"]
        with socket.create_connection(("127.0.0.1", server.pbm_port), timeout=60), \
                connect(f"ws://127.0.0.1:{server.port}/api/matches/{match}/events", open_timeout=60) as feed:
            # an idle play-by-mail player is connected too
            assert '"kind": "challenge"' in feed.recv(timeout=60)
            if stream == "closed":
                feed.close()
            _stopped_within(server)
    finally:
        server.kill()


SLOW_ENGINE = """\
#!{python}
# A UBGI engine that never finishes a search: it answers the handshake, then on "go" waits
# for its input to end (the server that started it going away).
import sys
import tempfile
for line in sys.stdin:
    word = line.split()[0] if line.split() else ""
    if word == "ubgi":
        print("id name slow\\nid author tests\\nubgiok", flush=True)
    elif word == "isready":
        print("readyok", flush=True)
    elif word == "go":
        sys.stdin.read()
        break
    elif word == "quit":
        break
"""


@pytest.mark.parametrize("workers", [1, 2])
def test_a_stop_signal_ends_the_server_while_a_bot_thinks(tmp_path, workers: int) -> None:
    """One bot worker thinks in a thread, which a graceful stop would wait for: here, for ever. With
    ``--workers 2`` (PostgreSQL) the supervisor's deadline ends its server processes too."""
    folder = Path(tempfile.mkdtemp(prefix="gammon-"))  # short: a bot's name is its command, and names are short
    engine = folder / "slow"
    engine.write_text(SLOW_ENGINE.format(python=sys.executable))
    engine.chmod(engine.stat().st_mode | stat.S_IXUSR)
    bot = f"ubgi:{engine}"
    try:
        with database("sqlite" if workers == 1 else "postgresql", tmp_path) as url:
            _stopped_while_thinking(url, bot, workers, tmp_path)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _stopped_while_thinking(url: str, bot: str, workers: int, tmp_path: Path) -> None:
    server = ServerProcess(url, "--pbm-port", "0", "--bot", bot, "--workers", str(workers),
                           log=tmp_path / "server.log").start()
    try:
        http = httpx.Client(base_url=server.url, timeout=60)
        alice = Client(http, "alice").register()
        match = alice.challenge(f"bot:{bot}")["id"]

        def bot_thinking() -> bool:
            state = alice.match(match)
            if state["players"][state["to_act"]] == "alice":
                action = {"action": "play", "play": state["legal"][0]} if "play" in state["actions"] else {"action": "roll"}
                alice.act(match, version=state["version"], **action)
                return False
            return state["dice"] is not None  # the bot rolled: its play is being thought in the worker

        wait_for(bot_thinking, "the bot's turn to play")
        _stopped_within(server)
        assert "stopped at once" in server.output()
    finally:
        server.kill()


# -- a taken port ----------------------------------------------------------------------------------
def _serve(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*GAMMON, "serve", "--db", f"sqlite:///{tmp_path / 'server.db'}", *args],
                          capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("flag", ["--port", "--pbm-port"])
def test_a_taken_port_is_one_clear_line_and_a_failure(tmp_path, flag: str) -> None:
    holder = socket.create_server(("127.0.0.1", 0))
    port = holder.getsockname()[1]
    try:
        args = ["--port", str(port)] if flag == "--port" else ["--port", "0", "--pbm-port", str(port)]
        run = _serve(tmp_path, *args)
    finally:
        holder.close()
    assert run.returncode == 1
    assert "http://" not in run.stdout, "the address is printed only once the port is bound"
    what = "port" if flag == "--port" else "play-by-mail port"
    assert run.stderr.strip().splitlines() == [
        f"gammon serve: {what} {port} on 127.0.0.1 is taken (another server?): choose another with {flag}"]


# -- make run --------------------------------------------------------------------------------------
def test_make_run_takes_a_port_and_a_host() -> None:
    # as a person types it, also when the suite itself runs under make (make test): no make level
    env = {key: value for key, value in os.environ.items()
           if key not in ("PORT", "HOST", "MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    plan = subprocess.run(["make", "-n", "run", "PORT=8080", "HOST=0.0.0.0"], cwd=ROOT,
                          capture_output=True, text=True, env=env, timeout=60)
    assert plan.returncode == 0, plan.stderr
    assert "gammon serve --host 0.0.0.0 --port 8080" in plan.stdout, plan.stdout
    plain = subprocess.run(["make", "-n", "run"], cwd=ROOT, capture_output=True, text=True, env=env, timeout=60)
    assert plain.stdout.rstrip().splitlines()[-1].strip().endswith("gammon serve"), plain.stdout


# -- ports told once they accept ---------------------------------------------------------------------
def test_every_port_is_told_only_once_it_accepts(tmp_path) -> None:
    """The site's address is printed once it answers, the play-by-mail port's once it takes a
    connection: a client that connects the moment it reads a line is served, never refused (the
    play-by-mail port was once told seconds before its process listened)."""
    process = subprocess.Popen([*GAMMON, "serve", "--db", f"sqlite:///{tmp_path / 'server.db'}", "--port", "0",
                                "--pbm-port", "0", "--bot-workers", "1"], stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, text=True)
    try:
        assert process.stdout is not None
        told: dict[str, int] = {}
        for line in process.stdout:
            if line.startswith("gammon serve: http://"):
                told["http"] = int(line.split("//", 1)[1].split("/", 1)[0].rsplit(":", 1)[1])
            elif line.startswith("gammon serve: play by mail on "):
                told["pbm"] = int(line.split(" on ", 1)[1].split()[0].rsplit(":", 1)[1])
                # at once, before anything else and with no retry: the door takes the connection and answers
                with socket.create_connection(("127.0.0.1", told["pbm"]), timeout=5) as door:
                    door.sendall(b"help\n")
                    answer = b""
                    while not answer.endswith(b"\n.\n"):
                        piece = door.recv(4096)
                        assert piece, answer
                        answer += piece
                break
        assert set(told) == {"http", "pbm"}, told
        # the site's line came first, and the site answered before it was told: at once, no retry
        assert httpx.get(f"http://127.0.0.1:{told['http']}/api/health", timeout=5).status_code == 200
    finally:
        process.terminate()
        process.wait(30)
