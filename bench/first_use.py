"""The first use on a fresh install: where the time of each command goes, and how long a restart takes.

    python bench/first_use.py [--only hint,moves,analyse,rollout,play,serve] [--runs fresh,warm]
                              [--gammon "PYTHON -m gammon"] [--numba-cache-dir auto|PATH]
                              [--trials 1296] [--bot nn] [--length 5] [--json FILE]

Runs each command as a new user meets it after ``pip install gammon``: a new, empty home folder
(``HOME``, so ``~/.cache/gammon``, the bear-off tables and numba's compiled code, is empty) and no
``GAMMON_*``, ``XDG_*`` or ``NUMBA_CACHE_DIR`` of this shell. ``fresh`` is the first run on that
home, ``warm`` the same command again on the caches the first left. The commands:

* ``hint``: ``gammon hint 4HPwATDgc/ABMA 3 1`` (the default player, nn:2);
* ``moves``: ``gammon moves --batch`` on two lines (a double and a mixed roll);
* ``analyse``: ``gammon analyse tests/records/match3.mat`` (its default player);
* ``rollout``: the README's example, ``gammon rollout sGfwATDgc/ABMA --player nn --trials 1296
  --seed 1 --workers 2`` (``--trials`` to shorten it);
* ``play``: ``gammon play --words --seed 1 --match 1`` until the bot's first play is printed;
* ``serve``: ``gammon serve --port 0`` on a new SQLite database, until it answers; then a person
  registers, challenges ``bot:BOT`` with hints on and plays random legal moves until the bot has
  borne a checker off (the first bot turn, the first hint, the first bot bear-off turn).

For each it prints wall seconds to the answer (to the bot's play, to the address), the CPU
seconds of the command and its children (``resource.getrusage``: steadier than wall on a busy
machine), and where the CPU went, from every Python process of the command (a ``sitecustomize``
put on ``PYTHONPATH`` records numba's ``numba:compile`` events, its cache loads and the bear-off
table builds, each with the thread's CPU time): compiling (by kernel, its own time without the
kernels it compiled inside), loading compiled code from the cache, building tables, and the rest
(the interpreter, imports, the work itself). The load average is printed beside each run: compare
figures of one run, and CPU rather than wall when the machine is busy.

``--gammon`` runs another checkout's command (``"/old/.venv/bin/python -m gammon"``, or
``env PYTHONPATH=/old/src python bench/first_use.py``) for a before/after comparison;
``--numba-cache-dir auto`` gives it an empty ``NUMBA_CACHE_DIR`` in the temporary folder (a
checkout that keeps numba's cache beside its sources would otherwise find it warm).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import resource
import shlex
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
STARTED = re.compile(rb"gammon serve: http://[^:]+:(\d+)/")

#: Put on the commands' PYTHONPATH: records, from every Python process of the command, numba's
#: compile events, its cache loads and the bear-off builds, one JSON line each, to $FIRST_USE_LOG.
#: numba is hooked once something imports it (importing it here would move its import before
#: gammon's own set-up of the cache folder).
SITECUSTOMIZE = r'''
import importlib.abc, importlib.machinery, json, os, sys, time

_LOG = os.environ.get("FIRST_USE_LOG")
_building = []  # a bear-off table being built in this process


def _write(record):
    record["pid"] = os.getpid()
    with open(_LOG, "a") as out:
        out.write(json.dumps(record) + "\n")


def _hook_numba():
    from numba.core import caching, event

    stack = []

    class Compiles(event.Listener):
        def on_start(self, ev):
            stack.append([time.thread_time(), time.perf_counter(), 0.0])

        def on_end(self, ev):
            cpu, wall, inner = stack.pop()
            took = time.thread_time() - cpu
            if stack:
                stack[-1][2] += took
            function = ev.data["dispatcher"].py_func
            _write({"kind": "compile", "name": f"{function.__module__}.{function.__qualname__}",
                    "cpu": took, "own": took - inner, "wall": time.perf_counter() - wall, "top": not stack,
                    "in_table": bool(_building), "args": str(ev.data["args"])[:300]})

    event.register("numba:compile", Compiles())
    load = caching.Cache.load_overload

    def timed_load(self, sig, target_context):
        cpu = time.thread_time()
        try:
            return load(self, sig, target_context)
        finally:
            if not stack:  # a load inside a compile is part of that compile
                _write({"kind": "load", "name": self._name, "cpu": time.thread_time() - cpu})

    caching.Cache.load_overload = timed_load


def _hook_tables(module):
    for name in ("build",):
        build = getattr(module, name)

        def timed(*args, _build=build, _module=module.__name__, **kwargs):
            cpu, wall = time.process_time(), time.perf_counter()  # built by threads
            _building.append(_module)
            try:
                return _build(*args, **kwargs)
            finally:
                _building.pop()
                _write({"kind": "table", "name": _module, "cpu": time.process_time() - cpu,
                        "wall": time.perf_counter() - wall})

        setattr(module, name, timed)


_AFTER = {"numba.core.caching": lambda module: _hook_numba(),
          "gammon.bearoff.onesided": _hook_tables, "gammon.bearoff.twosided": _hook_tables}


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name not in _AFTER:
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is None or spec.loader is None:
            return spec
        run = spec.loader.exec_module

        def exec_module(module, _run=run, _name=name):
            _run(module)
            _AFTER.pop(_name)(module)

        spec.loader.exec_module = exec_module
        return spec


if _LOG:
    sys.meta_path.insert(0, _Finder())
'''


@dataclass
class Run:
    """One command's run: its figures and what its processes recorded."""

    label: str
    wall: float = float("nan")  # to the answer (the bot's play, the address)
    total: float = float("nan")  # to the command's end
    cpu: float = float("nan")
    records: list[dict[str, Any]] = field(default_factory=list)
    extra: dict[str, float] = field(default_factory=dict)
    load: str = ""

    def summary(self) -> dict[str, Any]:
        compiles = [r for r in self.records if r["kind"] == "compile"]
        by_kernel: dict[str, list[float]] = defaultdict(lambda: [0, 0.0])
        for record in compiles:
            by_kernel[record["name"]][0] += 1
            by_kernel[record["name"]][1] += record["own"]
        top = [r for r in compiles if r["top"]]
        table_pids = {r["pid"] for r in self.records if r["kind"] == "table"}
        return {
            "label": self.label, "wall": self.wall, "total": self.total, "cpu": self.cpu, "load": self.load,
            "processes": len({r["pid"] for r in self.records}),
            "compile_cpu": sum(r["cpu"] for r in top), "compiles": len(compiles),
            "kernels": {name: {"specializations": n, "cpu": cpu} for name, (n, cpu) in by_kernel.items()},
            "load_cpu": sum(r["cpu"] for r in self.records if r["kind"] == "load"),
            "loads": sum(1 for r in self.records if r["kind"] == "load"),
            # a table's build without the kernels its process compiled inside it (counted as compiling;
            # a worker forked meanwhile inherits the flag, and its time is not the build's)
            "table_cpu": sum(r["cpu"] for r in self.records if r["kind"] == "table")
            - sum(r["cpu"] for r in top if r.get("in_table") and r["pid"] in table_pids),
            "table_wall": sum(r["wall"] for r in self.records if r["kind"] == "table"), **self.extra,
        }


def _load_average() -> str:
    try:
        return "load " + " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "load ?"


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _records(log: Path) -> list[dict[str, Any]]:
    if not log.exists():
        return []
    records = [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
    log.unlink()
    return records


def _command(label: str, argv: list[str], env: dict[str, str], log: Path, *, stdin: str = "",
             until: bytes | None = None) -> Run:
    """Run ``argv`` to its end; its wall time to ``until`` in its output (else to its end)."""
    run = Run(label, load=_load_average())
    cpu = _children_cpu()
    begun = time.monotonic()
    process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               env=env, cwd=ROOT)
    seen: list[float] = []
    output = bytearray()

    def read() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            output.extend(line)
            if until is not None and not seen and until in line:
                seen.append(time.monotonic() - begun)

    reader = threading.Thread(target=read)
    reader.start()
    assert process.stdin is not None
    process.stdin.write(stdin.encode())
    process.stdin.close()
    process.wait(3600)
    reader.join()
    run.total = time.monotonic() - begun
    run.wall = seen[0] if seen else run.total
    run.cpu = _children_cpu() - cpu
    run.records = _records(log)
    if process.returncode != 0 or (until is not None and not seen):
        text = output.decode(errors="replace")
        raise SystemExit(f"{label}: {shlex.join(argv)} exited with {process.returncode}:\n{text[-3000:]}")
    return run


def library_commands(gammon: list[str], trials: int) -> dict[str, tuple[list[str], str, bytes | None]]:
    """Each library command: its argv, its standard input, and the output that answers it."""
    return {
        "hint": ([*gammon, "hint", "4HPwATDgc/ABMA", "3", "1"], "", None),
        "moves": ([*gammon, "moves", "--batch"], "4HPwATDgc/ABMA 3 1\n4HPwATDgc/ABMA 6 6\n", None),
        "analyse": ([*gammon, "analyse", str(ROOT / "tests" / "records" / "match3.mat")], "", None),
        "rollout": ([*gammon, "rollout", "sGfwATDgc/ABMA", "--player", "nn", "--trials", str(trials), "--seed", "1",
                     "--workers", "2"], "", None),
        "play": ([*gammon, "play", "--words", "--seed", "1", "--match", "1"], "roll\nquit\ny\n", b" bot plays "),
    }


# ------------------------------------------------------------------------------------------ the server


def _start(command: list[str], env: dict[str, str], log: Path) -> tuple[subprocess.Popen[bytes], int, float, str]:
    begun = time.monotonic()
    with open(log, "wb") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=env, cwd=ROOT)
    import httpx

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
        if time.monotonic() - begun > 1800:
            process.kill()
            raise SystemExit("the server did not start within 1800 s")
        time.sleep(0.05)


def _play(url: str, bot: str, length: int, seed: int) -> dict[str, Any]:
    """Play against the bot until it bears off (or the match ends); the timings."""
    import httpx

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
    asked: float | None = begun
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


def serve(label: str, gammon: list[str], env: dict[str, str], folder: Path, log: Path,
          args: argparse.Namespace) -> Run:
    run = Run(label, load=_load_average())
    cpu = _children_cpu()
    db = folder / f"{label}.db"
    process, port, ready, output = _start([*gammon, "serve", "--db", f"sqlite:///{db}", "--port", "0"], env,
                                          folder / f"{label}.log")
    run.wall = ready
    try:
        timings = _play(f"http://127.0.0.1:{port}", args.bot, args.length, args.seed)
    finally:
        process.terminate()
        process.wait(60)
    run.cpu = _children_cpu() - cpu
    run.records = _records(log)
    turns = timings["bot turns"]
    bear_off = next((took for took, off in turns if off), None)
    others = [took for took, _ in turns[1:] if took != bear_off]
    run.extra = {"challenge": timings["challenge"], "first bot turn": turns[0][0] if turns else float("nan"),
                 "first hint": timings.get("first hint", float("nan")),
                 "first bot bear-off turn": bear_off if bear_off is not None else float("nan"),
                 "slowest other bot turn": max(others) if others else float("nan")}
    print("    | " + "\n    | ".join(output.strip().splitlines()))
    return run


# ------------------------------------------------------------------------------------------ the report


def report(run: Run, kernels: int) -> dict[str, Any]:
    s = run.summary()
    rest = s["cpu"] - s["compile_cpu"] - s["load_cpu"] - s["table_cpu"]
    print(f"  {run.label:<18} answer {s['wall']:6.1f} s wall (end {s['total']:.1f}), {s['cpu']:6.1f} s CPU "
          f"in {s['processes']} process(es) [{s['load']}]")
    print(f"      compiling {s['compile_cpu']:6.1f} s CPU ({s['compiles']} compiles, "
          f"{len(s['kernels'])} functions)  loading compiled {s['load_cpu']:5.2f} s ({s['loads']} loads)  "
          f"tables {s['table_cpu']:5.1f} s ({s['table_wall']:.1f} s wall)  the rest {rest:5.1f} s")
    for name, value in run.extra.items():
        print(f"      {name:<24} {value:6.1f} s wall")
    ranked = sorted(s["kernels"].items(), key=lambda item: -item[1]["cpu"])
    for name, figures in ranked[:kernels]:
        times = f" x{figures['specializations']}" if figures["specializations"] > 1 else ""
        print(f"        {figures['cpu']:6.2f} s  {name}{times}")
    return s


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default="hint,moves,analyse,rollout,play,serve",
                        help="the commands, comma-separated (default all)")
    parser.add_argument("--runs", default="fresh,warm", help="fresh, warm or both (default both)")
    parser.add_argument("--gammon", default=f"{sys.executable} -m gammon", help="the command to run")
    parser.add_argument("--numba-cache-dir", default=None, metavar="auto|PATH",
                        help="set NUMBA_CACHE_DIR for the commands (auto: an empty one for each command)")
    parser.add_argument("--trials", type=int, default=1296, help="the rollout's trials (default 1296, the README's)")
    parser.add_argument("--bot", default="nn", help="the bot the server's player challenges (default nn)")
    parser.add_argument("--length", type=int, default=5, help="that match's length (default 5)")
    parser.add_argument("--seed", type=int, default=1, help="the person's random moves")
    parser.add_argument("--kernels", type=int, default=8, help="how many of the costliest kernels to name (default 8)")
    parser.add_argument("--json", type=Path, default=None, help="also write every figure to this file")
    args = parser.parse_args()
    wanted = [name.strip() for name in args.only.split(",") if name.strip()]
    runs = [name.strip() for name in args.runs.split(",") if name.strip()]
    gammon = shlex.split(args.gammon)
    results: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="gammon-first-use-") as name:
        folder = Path(name)
        hook, log = folder / "hook", folder / "records.jsonl"
        hook.mkdir()
        (hook / "sitecustomize.py").write_text(SITECUSTOMIZE)
        env = {key: value for key, value in os.environ.items()
               if not key.startswith(("GAMMON_", "XDG_", "NUMBA_"))}
        env.update(FIRST_USE_LOG=str(log), PYTHONPATH=os.pathsep.join(
            [str(hook), *([env["PYTHONPATH"]] if env.get("PYTHONPATH") else [])]))
        if args.numba_cache_dir:
            env["NUMBA_CACHE_DIR"] = str(folder / "numba") if args.numba_cache_dir == "auto" else args.numba_cache_dir
        print(f"{shlex.join(gammon)}; {os.cpu_count()} cpus; PYTHONPATH={env['PYTHONPATH']}; "
              f"NUMBA_CACHE_DIR={env.get('NUMBA_CACHE_DIR', '(unset)')}")
        commands = library_commands(gammon, args.trials)
        for command in wanted:
            if command not in commands and command != "serve":
                raise SystemExit(f"--only: unknown command {command!r}")
            home = folder / f"home-{command}"
            home.mkdir()
            env["HOME"] = str(home)
            if args.numba_cache_dir == "auto":  # empty for each command, as its home
                env["NUMBA_CACHE_DIR"] = str(folder / f"numba-{command}")
            print(f"\n{command}:")
            for which in runs:
                label = f"{command} {which}"
                if command == "serve":
                    run = serve(label, gammon, env, folder, log, args)
                else:
                    argv, stdin, until = commands[command]
                    run = _command(label, argv, env, log, stdin=stdin, until=until)
                results.append(report(run, args.kernels))
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
