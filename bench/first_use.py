"""The first player on a fresh install: how long the server takes to start, and its bots to answer.

    python bench/first_use.py [--bot nn] [--length 5] [--gammon "PYTHON -m gammon"] [--warm]

Starts ``gammon serve --port 0`` on a new SQLite database with an empty home folder (``HOME``,
so the bear-off tables' cache under ``~/.cache/gammon`` is empty) and an empty numba cache
(``NUMBA_CACHE_DIR``, so every kernel compiles), as a first player finds it after
``pip install gammon``. Then one person registers, challenges ``bot:BOT`` with hints on and
plays random legal moves until the bot has borne a checker off, timing:

* ``ready``: from starting the command to its first answer (``GET /api/health``);
* ``challenge``: the challenge's round trip (the bot accepts at once);
* ``first bot turn``: from the person's action (or the challenge) to the person's turn again;
* ``first hint``: the first ``GET /api/matches/{id}/hint``;
* ``first bot bear-off``: the bot's first turn that bears a checker off;
* ``bot turns after``: the slowest of the others.

``--warm`` runs a second server on the same home and caches, to show what a restart costs.
``--gammon`` runs another checkout's server (``"/old/.venv/bin/python -m gammon"``) for a
before/after comparison. Everything printed is wall time on this machine.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

STARTED = re.compile(rb"gammon serve: http://[^:]+:(\d+)/")


def _start(command: list[str], env: dict[str, str], log: Path) -> tuple[subprocess.Popen[bytes], int, float, str]:
    begun = time.monotonic()
    with open(log, "wb") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=env)
    while True:
        text = log.read_bytes()
        found = STARTED.search(text)
        if found:
            try:  # the address is printed once bound; the app answers once started
                if httpx.get(f"http://127.0.0.1:{int(found.group(1))}/api/health", timeout=5).status_code == 200:
                    return process, int(found.group(1)), time.monotonic() - begun, text.decode(errors="replace")
            except httpx.HTTPError:
                pass
        if process.poll() is not None:
            raise SystemExit(f"the server exited with {process.returncode}:\n{text.decode(errors='replace')}")
        if time.monotonic() - begun > 900:
            process.kill()
            raise SystemExit("the server did not start within 900 s")
        time.sleep(0.05)


def _play(url: str, bot: str, length: int, seed: int) -> dict[str, Any]:
    """Play against the bot until it bears off (or the match ends); the timings."""
    rng = random.Random(seed)
    http = httpx.Client(base_url=url, timeout=900)
    name = f"first{rng.randrange(10**6)}"
    assert http.post("/api/users", json={"name": name, "password": "first-use-password"}).status_code == 201
    token = http.post("/api/sessions", json={"name": name, "password": "first-use-password"}).json()["token"]
    headers = {"Authorization": f"Bearer {token}"}
    begun = time.monotonic()
    made = http.post("/api/matches", json={"opponent": f"bot:{bot}", "length": length, "options": {"hints": True}},
                     headers=headers)
    assert made.status_code == 201, made.text
    timings: dict[str, Any] = {"challenge": time.monotonic() - begun, "bot turns": []}
    match = made.json()
    match_id, you = match["id"], match["you"]
    asked = begun
    seen = -1
    while True:
        state = http.get(f"/api/matches/{match_id}").json()
        if state["status"] != "playing":
            break
        if state["to_act"] != you:
            time.sleep(0.01)
            continue
        if asked is not None:
            took = time.monotonic() - asked
            history = http.get(f"/api/matches/{match_id}?after={seen}").json()["history"]
            bot_played = [event for event in history if event["kind"] == "play" and event["color"] != you]
            seen = state["last_seq"]
            if bot_played:
                off = any("off" in (event.get("action") or "") for event in bot_played)
                timings["bot turns"].append((took, off))
                if off:
                    break
            asked = None
        if state["dice"] and "play" in state["actions"] and "first hint" not in timings:
            started = time.monotonic()
            answer = http.get(f"/api/matches/{match_id}/hint", headers=headers)
            assert answer.status_code == 200, answer.text
            timings["first hint"] = time.monotonic() - started
        actions = state["actions"]
        if "play" in actions:
            body: dict[str, Any] = {"action": "play", "play": rng.choice(state["legal"])}
        elif "take" in actions:
            body = {"action": "take"}
        elif "accept" in actions:
            body = {"action": "reject"}
        else:
            body = {"action": "roll"}
        asked = time.monotonic()
        answer = http.post(f"/api/matches/{match_id}/actions", json={**body, "version": state["version"]},
                           headers=headers)
        if answer.status_code != 200:
            asked = None
    return timings


def run(label: str, command: list[str], env: dict[str, str], folder: Path, args: argparse.Namespace) -> None:
    db = folder / f"{label}.db"
    process, port, ready, output = _start([*command, "serve", "--db", f"sqlite:///{db}", "--port", "0"], env,
                                          folder / f"{label}.log")
    try:
        timings = _play(f"http://127.0.0.1:{port}", args.bot, args.length, args.seed)
    finally:
        process.terminate()
        process.wait(60)
    turns = timings["bot turns"]
    bear_off = next((took for took, off in turns if off), None)
    print(f"\n{label}:")
    for line in output.strip().splitlines():
        print(f"    | {line}")
    print(f"  ready (start to answering) {ready:7.1f} s")
    print(f"  challenge accepted         {timings['challenge']:7.1f} s")
    print(f"  first bot turn             {turns[0][0] if turns else float('nan'):7.1f} s")
    print(f"  first hint                 {timings.get('first hint', float('nan')):7.1f} s")
    print(f"  first bot bear-off turn    {bear_off if bear_off is not None else float('nan'):7.1f} s")
    others = [took for took, _ in turns[1:] if took != bear_off]
    print(f"  slowest other bot turn     {max(others) if others else float('nan'):7.1f} s  ({len(turns)} bot turns)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bot", default="nn", help="the bot challenged (default nn)")
    parser.add_argument("--length", type=int, default=5, help="the match's length (default 5)")
    parser.add_argument("--seed", type=int, default=1, help="the person's random moves")
    parser.add_argument("--gammon", default=f"{sys.executable} -m gammon", help="the command to run")
    parser.add_argument("--warm", action="store_true", help="then start again on the same caches")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="gammon-first-use-") as name:
        folder = Path(name)
        (folder / "home").mkdir()
        env = {key: value for key, value in os.environ.items()
               if key not in ("GAMMON_CACHE_DIR", "XDG_CACHE_HOME", "XDG_DATA_HOME", "NUMBA_CACHE_DIR")
               and not key.startswith("GAMMON_")}
        env.update(HOME=str(folder / "home"), NUMBA_CACHE_DIR=str(folder / "numba"))
        command = shlex.split(args.gammon)
        print(f"{' '.join(command)} serve, HOME={env['HOME']}, NUMBA_CACHE_DIR={env['NUMBA_CACHE_DIR']}, "
              f"{os.cpu_count()} cpus")
        run("fresh install", command, env, folder, args)
        if args.warm:
            run("restart (caches kept)", command, env, folder, args)


if __name__ == "__main__":
    main()
