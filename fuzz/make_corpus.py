"""Write the seed corpora (``fuzz/corpus/TARGET/``) from ``tests/vectors`` and issue 13's reproductions.

    python fuzz/make_corpus.py          # rewrite every target's seeds

Seeds are a few dozen small files per target, named for where they come from: ``vector-*``
from the test vectors, ``issue13-*`` from the reproductions, ``made-*`` built here (small
tables and nets, games played out). Inputs a fuzzer finds are added by hand, as
``found-*``; this script leaves those alone.
"""

from __future__ import annotations

import hashlib
import io
import json
import random
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _harness

VECTORS = _harness.FUZZ.parent / "tests" / "vectors"


def write(target: str, seeds: Iterable[tuple[str, bytes | str]]) -> int:
    folder = _harness.CORPUS / target
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.iterdir():
        if not old.name.startswith("found-"):
            old.unlink()
    count = 0
    for name, data in seeds:
        raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
        (folder / name).write_bytes(raw)
        count += 1
    return count


def ids() -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted((VECTORS / "ids").glob("*.json"))]


def states():  # the vectors' games and a few more, as GameStates
    from gammon import GameState, Position, Resignation

    found = [(case["name"], GameState.from_gnubg_id(case["gnubgid"])) for case in ids()]
    found += [
        ("money-jacoby-beavers", GameState(jacoby=True, beavers=True, cube=4, cube_owner=Position().turn)),
        ("match7-crawford", GameState(match_length=7, score=(6, 3), crawford=True, dice=(6, 5))),
        ("match5-double-offered", GameState(match_length=5, score=(1, 2), cube=2, double_offered=True)),
        ("money-resigned", GameState(resignation=Resignation.GAMMON)),
        ("cube-limit", GameState(cube=8, cube_owner=Position().turn.other, cube_limit=64)),
    ]
    return found


def corpus_lines() -> list[str]:
    return [line for line in (VECTORS / "corpus.txt").read_text().splitlines() if line.strip()]


def _name(prefix: str, data: bytes | str) -> str:
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    return f"{prefix}-{hashlib.sha1(raw).hexdigest()[:10]}"


# -- notations ---------------------------------------------------------------------------------
def notation_seeds() -> dict[str, list[tuple[str, str]]]:
    seeds: dict[str, list[tuple[str, str]]] = {k: [] for k in ("position_id", "match_id", "gnubg_id", "xgid", "bpn", "fibs")}
    for case in ids():
        name = f"vector-{case['name']}"
        seeds["position_id"] += [(name, case["position_id"]), (name + "-other", case["position_id_opponent_on_roll"])]
        seeds["match_id"] += [(name, case["match_id"]), (name + "-with-position", f"{case['match_id']} {case['position_id']}")]
        seeds["gnubg_id"].append((name, case["gnubgid"]))
        seeds["xgid"].append((name, case["xgid"]))
        seeds["fibs"].append((name, case["fibs_board_from_gnubg"]))
    for name, state in states():
        made = f"made-{name}"
        seeds["bpn"].append((made, state.bpn()))
        seeds["xgid"].append((made, state.xgid()))
        seeds["gnubg_id"].append((made, state.gnubg_id()))
        try:
            seeds["fibs"].append((made, state.fibs()))
        except Exception:  # noqa: BLE001 - FIBS cannot carry the Jacoby rule or beavers
            pass
    for line in corpus_lines()[:20]:
        seeds["position_id"].append((_name("vector-corpus", line), line.split()[0]))
    # Issue 13: no checkers at all, a side with all 15 off still "playing", scores past the
    # match length, a cube of 65536, an XGID whose score or cube its reader rejects.
    seeds["position_id"] += [("issue13-no-checkers", "AAAAAAAAAAAAAA"), ("issue13-unicode", "4HPwATDgc/ABM²")]
    seeds["gnubg_id"] += [
        ("issue13-no-checkers", "AAAAAAAAAAAAAA:cAkAAAAAAAAA"),
        ("issue13-one-side-off", "AAAAAAAAAAAAAA:cIkFAAAAAAAA"),
        ("issue13-score-past-length", "4HPwATDgc/ABMA:cIn/////AAAA"),
    ]
    seeds["match_id"] += [("issue13-score-past-length", "cIn/////AAAA"), ("issue13-no-checkers", "cAkAAAAAAAAA AAAAAAAAAAAAAA")]
    seeds["bpn"] += [
        ("issue13-cube-65536", "b4E1C3eE3c1e4B-w0b0-w31-n65536-0:0:7"),
        ("issue13-unicode-score", "b4E1C3eE3c1e4B-w0b0-w31-n10-0:0:①"),
        ("issue13-no-checkers", "-w0b0-w31-n10-0:0:7"),
    ]
    seeds["xgid"] += [
        ("issue13-big-score", "XGID=-b----E-C---eE---c-e----B-:0:0:1:31:3075:1:0:7:10"),
        ("issue13-big-cube", "XGID=-b----E-C---eE---c-e----B-:31:0:1:31:0:0:0:0:10"),
        ("issue13-unicode", "XGID=-b----E-C---eE---c-e----B-:0:0:1:3²:0:0:0:7:10"),
        ("issue13-nothing", "XGID=--------------------------:0:0:1:00:0:0:0:0:10"),
    ]
    seeds["detect"] = [
        *(seeds[k][0] for k in seeds),
        ("vector-gnubg-id-bar", ids()[1]["gnubgid"]),
        ("issue13-no-checkers", "AAAAAAAAAAAAAA:cAkAAAAAAAAA"),
        ("issue13-cube-65536", "b4E1C3eE3c1e4B-w0b0-w31-n65536-0:0:7"),
        ("issue13-xgid-score", "XGID=-b----E-C---eE---c-e----B-:0:0:1:31:3075:1:0:7:10"),
        ("bom", "\ufeff4HPwATDgc/ABMA"),
        ("spaces", "  4HPwATDgc/ABMA:cIkFAAAAAAAA \n"),
    ]
    return seeds


# -- moves ---------------------------------------------------------------------------------------
def move_seeds() -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    from gammon import Position
    from gammon.notation import pbm

    movetext, mail = [], []
    rng = random.Random(13)
    rows = [json.loads(line) for line in (VECTORS / "legal_plays.jsonl").read_text().splitlines()[:60]]
    for row in rng.sample(rows, 24):
        position = Position.from_position_id(row["pid"])
        d1, d2 = row["dice"]
        plays = list(position.legal_plays(d1, d2))
        play = rng.choice(plays)
        head = f"{row['pid']} {d1} {d2}\n"
        movetext.append((_name("vector", head + str(play)), head + str(play)))
        mail.append((_name("vector", head), head + pbm.format_play(play, position.turn)))
    opening = "4HPwATDgc/ABMA 3 1\n"
    movetext += [
        ("short-forms", opening + "8/5 6/5"),
        ("hit-marks", opening + "8/5* 6/5"),
        ("one-checker", opening + "24/20"),
        ("doubles", "4HPwATDgc/ABMA 6 6\n24/18(2) 13/7(2)"),
        ("bar", "4HXwgDDEM/gAWA 3 1\nbar/22 6/5"),
        ("bearoff", "CwAAsAUAAAAAAA 6 5\n3/off 2/off"),
        ("ubgi-pass", opening + "pass"),
        ("issue13-superscript-two", opening + "²/1"),
        ("issue13-circled-one", opening + "13/①"),
        ("issue13-arabic-digit", opening + "8/٥ 6/5"),
        ("no-header", "13/10 13/12"),
        ("many-slashes", opening + "24/23/22/21/20/19/18/17/16/15/14/13/12/11/10/9/8/7/6/5/4/3/2/1/off"),
    ]
    mail += [
        ("pbm-dash", opening + "13-10,13-12"),
        ("pbm-colon", opening + "13:3 13:1"),
        ("pbm-repeat", "4HPwATDgc/ABMA 3 3\n2(13-10) 2(10-7)"),
        ("pbm-bar", "4HXwgDDEM/gAWA 3 1\nB-22 6-5"),
        ("pbm-home", "CwAAsAUAAAAAAA 6 5\n22-H 23-H"),
        ("issue13-superscript-two", opening + "13-1²"),
        ("issue13-circled-one", opening + "①-4"),
    ]
    return movetext, mail


# -- batch readers -------------------------------------------------------------------------------
def batch_seeds() -> dict[str, list[tuple[str, bytes | str]]]:
    lines = corpus_lines()
    good_moves = "\n".join(lines[:12]) + "\n"
    one = json.loads((VECTORS / "bearoff" / "onesided_6x15_sample.json").read_text())
    two = json.loads((VECTORS / "bearoff" / "twosided_6x6_sample.json").read_text())
    bearoff_lines = [" ".join(map(str, row["counts"])) for row in _rows(one)[:10]]
    bearoff_lines += [" ".join(map(str, [*row["on_roll_counts"], *row["opponent_counts"]])) for row in _rows(two)[:10]]
    cube_lines = [case["gnubgid"] for case in ids()] + [case["xgid"] for case in ids()]
    deep = '{"a":' * 1000
    seeds: dict[str, list[tuple[str, bytes | str]]] = {"batch_moves": [], "batch_bearoff": [], "batch_cube": []}
    common = [
        ("issue13-invalid-utf8", b"\xff\xfe\n"),
        ("issue13-bom", b"\xef\xbb\xbf"),
        ("crlf", b"\r\n\r\n"),
        ("nul", b"\x00\n"),
        ("blank", b"\n   \n\t\n"),
    ]
    seeds["batch_moves"] += [
        ("vector-corpus", good_moves),
        ("vector-corpus-crlf", good_moves.replace("\n", "\r\n")),
        ("json-lines", '{"pid": "4HPwATDgc/ABMA", "dice": [3, 1]}\n{"pid": "4HPwATDgc/ABMA", "dice": [6, 6]}\n'),
        ("issue13-deep-json", f"4HPwATDgc/ABMA 3 1\n{deep}\n"),
        ("issue13-superscript", "4HPwATDgc/ABMA ² 1\n4HPwATDgc/ABMA 3 1\n"),
        ("issue13-invalid-byte-between", b"4HPwATDgc/ABMA 3 1\n\xff\n4HPwATDgc/ABMA 6 5\n"),
        ("issue13-bom-first", b"\xef\xbb\xbf4HPwATDgc/ABMA 3 1\n"),
        ("bad-dice", "4HPwATDgc/ABMA 7 1\n4HPwATDgc/ABMA 0 0\n4HPwATDgc/ABMA 3\n"),
        ("json-odd", '{"pid": 3, "dice": "31"}\n[]\nnull\n{"pid": "4HPwATDgc/ABMA", "dice": [3.5, 1]}\n'),
        *[(f"{n}", d) for n, d in common],
    ]
    seeds["batch_bearoff"] += [
        ("vector-onesided", "\n".join(bearoff_lines[:10]) + "\n"),
        ("vector-twosided", "\n".join(bearoff_lines[10:]) + "\n"),
        ("forms", "[1, 0, 0, 0, 0, 0]\n0,0,0,0,0,1\n(1 2 3 0 0 0)\n1;0;0;0;0;0;0;0;0;0;0;1\n"),
        ("issue13-no-checkers", "0 0 0 0 0 0 0 0 0 0 0 0\n"),
        ("issue13-bom-first", b"\xef\xbb\xbf1 0 0 0 0 0\n"),
        ("issue13-superscript", "² 0 0 0 0 0\n1 0 0 0 0 0\n"),
        ("issue13-invalid-byte-between", b"1 0 0 0 0 0\n\xff\n0 0 0 0 0 1\n"),
        ("too-many", "16 0 0 0 0 0\n-1 0 0 0 0 0\n99999999999999999999 0 0 0 0 0\n1 2 3\n"),
        *common,
    ]
    seeds["batch_cube"] += [
        ("vector-ids", "\n".join(cube_lines) + "\n"),
        ("bpn", "b4E1C3eE3c1e4B-w0b0-w31-n10-0:0:7\n"),
        ("issue13-no-checkers", "AAAAAAAAAAAAAA:cAkAAAAAAAAA\n"),
        ("issue13-bom-first", b"\xef\xbb\xbf4HPwATDgc/ABMA:cAkAAAAAAAAA\n"),
        ("issue13-invalid-byte-between", b"4HPwATDgc/ABMA:cAkAAAAAAAAA\n\xff\n4HPwATDgc/ABMA:cIkFAAAAAAAA\n"),
        ("issue13-cube-65536", "b4E1C3eE3c1e4B-w0b0-w31-n65536-0:0:7\n"),
        ("issue13-deep-json", "{" * 2000 + "\n4HPwATDgc/ABMA:cAkAAAAAAAAA\n"),
        *common,
    ]
    return seeds


def _rows(sample: dict) -> list[dict]:
    return sample["positions"]


# -- the engine ------------------------------------------------------------------------------------
def ubgi_seeds() -> list[tuple[str, str]]:
    case = ids()[1]
    hello = "ubgi\nisready\n"
    session = hello + f"newsession type money jacoby on\nposition gnubgid {case['gnubgid']}\n"
    seeds = [
        ("handshake", hello + "keys\nget engine.ply\nquit\n"),
        ("play", session + "dice 3 1\ngo role chequer\nisready\n"),
        ("cube", session + "go role cube\n"),
        ("turn", session + "dice 6 5\ngo role turn depth 0\n"),
        ("xgid", hello + f"position xgid {case['xgid']}\ndice 4 2\ngo\n"),
        ("bpn", hello + "newsession type match length 7\nposition bpn b4E1C3eE3c1e4B-w0b0-w31-n10-0:0:7\ngo role cube\neval\n"),
        ("settings-v01", hello + "setoption name MultiPV value 3\nsetoption name Player value pubeval:0:beginner\n"
         + session[len(hello):] + "dice 2 1\ngo\n"),
        ("settings-v02", hello + "set engine.multipv 2\nset engine.ply 1\nget engine.player\n"
         "position gnubgid 4HPwATDgc/ABMA\ndice 6 4\ngo\n"),
        ("score-and-cube", hello + "newsession type match length 5\nsetscore 2 1\nsetcube value 2 owner p0\nsetturn p1\n"
         "position gnubgid 4HPwATDgc/ABMA\ngo role cube\n"),
        ("stop", session + "dice 3 1\ngo movetime 50\nstop\nisready\n"),
        ("bad-commands", "position fen x\nposition gnubgid !!!\ndice 7 7\ngo role sideways\nnewsession type blitz\n"
         "set nonsense 1\nfoo\n"),
        ("nul-and-crlf", "ubgi\r\nis\x00ready\r\n\r\n"),
        ("issue13-dice-superscript", session + "dice ² 1\n"),
        ("issue13-setscore-superscript", hello + "newsession type match length 7\nsetscore ² 0\n"),
        ("issue13-setcube-superscript", hello + "setcube value ² owner center\n"),
        ("issue13-length-superscript", hello + "newsession type match length ²\n"),
        ("issue13-movetime-superscript", session + "dice 3 1\ngo movetime ²\n"),
        ("issue13-movetime-huge", session + "go role cube movetime 99999999999999999999\n"),
        ("issue13-bpn-cube-65536", hello + "position bpn b4E1C3eE3c1e4B-w0b0-w31-n65536-0:0:7\ngo role cube\n"),
        ("issue13-setcube-65536", hello + "setcube value 65536 owner center\nposition gnubgid 4HPwATDgc/ABMA\ngo role cube\n"),
        ("issue13-no-checkers", hello + "position gnubgid AAAAAAAAAAAAAA:cAkAAAAAAAAA\ngo role cube\n"),
    ]
    return seeds


# -- the match ---------------------------------------------------------------------------------
def match_seeds() -> tuple[list[tuple[str, bytes]], list[tuple[str, str]]]:
    from gammon import Match, SeededDice
    import match_actions  # its reader layout is what the programs below are for

    actions = []
    rng = random.Random(2026)
    found = []
    for _ in range(400):
        data = bytes(rng.randrange(256) for _ in range(rng.randrange(40, 400)))
        reader = _harness.Reader(data)
        try:
            match = match_actions.make_match(reader)
        except Exception:  # noqa: BLE001
            continue
        taken = 0
        while not reader.done:
            try:
                match_actions.act(match, reader)
                taken += 1
            except Exception:  # noqa: BLE001
                pass
        found.append((taken, data))
    found.sort(key=lambda item: -item[0])
    actions += [(_name("made-program", data), data) for _, data in found[:24]]
    # Issue 13: take(0) once the game is on, move(True, 0), roll(dice=(3.5, 1)).
    opening = bytes([0x00, 2, 7]) + bytes([0, 200, 0, 0, 0, 0])  # 3-point match; opening roll, dice from the source
    actions += [
        ("issue13-take-0", opening + bytes([2, 0, 0])),
        ("issue13-move-true-0", opening + bytes([8, 0, 4, 4, 0, 0])),
        ("issue13-roll-3.5-1", bytes([0x00, 2, 7, 0, 0, 0, 0])),
    ]
    replay = []
    for seed in range(6):
        match = Match(3 if seed % 2 else 0, dice=SeededDice(seed), jacoby=not seed % 2)
        match.roll()
        while not match.game_over and len(match.history) < 60:
            if match.to_act is None:
                break
            match.play(match.legal_plays[0])
            if not match.game_over:
                match.roll()
        text = "\n".join(str(action) for action in match.history) + "\n"
        replay.append((f"made-game-{seed}", text))
    replay += [
        ("double-take", "white opening 3-1\nwhite play 8/5 6/5\nblack double\nwhite take\nblack roll 6-5\n"),
        ("resign", "black opening 6-5\nblack play 24/13\nwhite resign gammon\nblack reject\nwhite roll 3-1\n"),
        ("from-xgid", "XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:7:10\nwhite play 8/5 6/5\n"),
        ("issue13-opening-double", "black opening 5-5\n"),
        ("issue13-opening-lower-die", "white opening 1-6\n"),
        ("issue13-finished-game", "AAAAAAAAAAAAAA:cIkFAAAAAAAA\nwhite play 8/5 6/5\n"),
        ("issue13-no-checkers", "AAAAAAAAAAAAAA\nwhite roll 3-1\n"),
        ("issue13-superscript", "white opening 3-1\nwhite play 8/5 ²/5\n"),
        ("odd-words", "white roll\nblack\nnew_game white\nwhite resign nothing\nwhite roll 3-1-2\n"),
    ]
    return actions, replay


# -- data files ------------------------------------------------------------------------------------
def loader_seeds() -> dict[str, list[tuple[str, bytes | str]]]:
    import numpy as np

    from gammon.bearoff import onesided, twosided
    from gammon.nn.network import Network

    seeds: dict[str, list[tuple[str, bytes | str]]] = {"bearoff_table": [], "nn_weights": [], "met_json": []}
    rng = random.Random(7)
    with tempfile.TemporaryDirectory() as folder:
        tables = []
        for points, checkers in ((1, 1), (2, 2), (3, 2), (2, 4)):
            path = Path(folder) / f"one-{points}-{checkers}.bearoff"
            onesided.build(path, points, checkers)
            tables.append((f"made-onesided-{points}x{checkers}", path.read_bytes()))
        for checkers, points in ((1, 6), (2, 6), (1, 3), (2, 2)):
            path = Path(folder) / f"two-{checkers}-{points}.bearoff"
            twosided.build(path, checkers, points)
            tables.append((f"made-twosided-{points}x{checkers}", path.read_bytes()))
    seeds["bearoff_table"] += tables
    for name, data in tables[:4]:
        damaged = bytearray(data)
        damaged[rng.randrange(64, len(damaged))] ^= 1 << rng.randrange(8)
        seeds["bearoff_table"] += [(name + "-flipped", bytes(damaged)), (name + "-truncated", data[: len(data) // 2])]
    seeds["bearoff_table"] += [("empty", b""), ("magic-only", b"GAMMONBO"), ("partial-magic", b"GAMMONPT" + bytes(56))]

    nets = []
    for hidden, features in ((1, 2), (2, 2), (3, 1), (5, 2)):
        net = Network.random(hidden=hidden, seed=hidden, features=features)
        buffer = io.BytesIO()
        np.savez_compressed(buffer, meta=np.array(json.dumps(net.header())), **dict(zip(("w1", "b1", "w2", "b2"), net.arrays())))
        nets.append((f"made-net-h{hidden}-v{features}", buffer.getvalue(), net))
    seeds["nn_weights"] += [(name, data) for name, data, _ in nets]
    base = nets[1][2]

    def npz(meta: object, **arrays: object) -> bytes:
        buffer = io.BytesIO()
        values = dict(zip(("w1", "b1", "w2", "b2"), base.arrays()))
        values.update(arrays)
        np.savez(buffer, meta=np.array(json.dumps(meta)), **values)
        return buffer.getvalue()

    header = base.header()
    seeds["nn_weights"] += [
        ("issue13-meta-list", npz([1, 2])),
        ("issue13-hidden-text", npz({**header, "hidden": "x"})),
        ("issue13-hidden-null", npz({**header, "hidden": None})),
        ("hidden-huge", npz({**header, "hidden": 10**30})),
        ("version-text", npz({**header, "version": "1"})),
        ("deep-meta", npz(json.loads("[" * 50 + "]" * 50))),
        ("nan-weights", npz(header, b2=np.full((2, 5), np.nan))),
        ("wrong-shape", npz(header, w1=np.zeros((2, 3)))),
        ("text-array", npz(header, b1=np.array(["a", "b"]))),
        ("empty", b""),
        ("zip-magic", b"PK\x03\x04"),
    ]
    for name, data, _ in nets[:2]:
        for k in range(4):
            damaged = bytearray(data)
            damaged[rng.randrange(len(damaged))] ^= 1 << rng.randrange(8)
            seeds["nn_weights"].append((f"issue13-flipped-{k}-{name}", bytes(damaged)))

    met = (_harness.FUZZ.parent / "src" / "gammon" / "data" / "met_kazaross_xg2.json").read_text()
    data = json.loads(met)
    small = {"name": "small", "pre_crawford": {"table": [[0.5] * 25] * 25}, "post_crawford": {"table": {"both": [0.5] * 25}}}
    ragged = json.loads(json.dumps(small))
    ragged["pre_crawford"]["table"][3] = [0.5] * 3
    seeds["met_json"] += [
        ("shipped", met),
        ("small", json.dumps(small)),
        ("ragged", json.dumps(ragged)),
        ("list", json.dumps([data["pre_crawford"]])),
        ("strings", json.dumps({**small, "post_crawford": {"table": {"both": ["0.5"] * 25}}})),
        ("dicts", json.dumps({**small, "pre_crawford": {"table": [{"a": 1}] * 25}})),
        ("out-of-range", json.dumps({**small, "post_crawford": {"table": {"both": [1.5] * 25}}})),
        ("nan", json.dumps(small).replace("0.5", "NaN", 1)),
        ("name-number", json.dumps({**small, "name": 3})),
        ("deep", "[" * 5000),
        ("invalid-utf8", b"\xff" + json.dumps(small).encode()),
        ("bom", b"\xef\xbb\xbf" + json.dumps(small).encode()),
        ("empty", b""),
    ]
    return seeds


def record_seeds() -> dict[str, list[tuple[str, bytes | str]]]:
    """XG files built around the two real XG records (tests/xg_files.py), damaged ways, and every
    match file of tests/records for the target that reads any of them."""
    sys.path.insert(0, str(_harness.FUZZ.parent / "tests"))
    import xg_files as xg

    opening = [xg.match_header(5, "a", "b"), xg.game_header(0, 0, 1), xg.real("2_Cube.bin"), xg.real("3_Move.bin")]
    played = opening + [xg.move(1, (5, 2), (12, 7, 12, 10)),
                        xg.cube(-1, double=1, take=1, equities=(0.4, 0.5, 1.0), err_cube=0.0, err_take=0.03),
                        xg.move(-1, (3, 1), (7, 4, 5, 4), cube_a=-1), xg.game_footer(-1, 2, 101), xg.match_footer()]
    files = {
        "made-opening": xg.xg_file(opening),
        "made-match": xg.xg_file(played),
        "made-money": xg.xg_file([xg.match_header(99999, "a", "b", jacoby=True, beaver=True), xg.game_header(0, 0, 1),
                                  xg.move(1, (3, 1), (7, 4, 5, 4)), xg.cube(-1, double=1, take=0), xg.game_footer(1, 1, 0)]),
        "made-drop": xg.xg_file([xg.match_header(3, "a", "b"), xg.game_header(0, 0, 1), xg.move(1, (3, 1), (7, 4, 5, 4)),
                                 xg.cube(-1, double=1, take=0), xg.game_footer(1, 1, 0)]),
    }
    xg_seeds: list[tuple[str, bytes | str]] = list(files.items())
    whole = files["made-match"]
    xg_seeds += [("made-truncated", whole[:9000]), ("made-header-only", whole[:8232]), ("rgmh", b"RGMH"),
                 ("made-flipped", whole[:-300] + bytes([whole[-300] ^ 1]) + whole[-299:])]
    records = _harness.FUZZ.parent / "tests" / "records"
    files_seeds: list[tuple[str, bytes | str]] = [("xg-match", whole)]
    for path in sorted(records.rglob("*")):
        if path.suffix in (".mat", ".txt", ".sgf") and path.stat().st_size < 20000 and "statistics" not in path.name:
            files_seeds.append((f"file-{path.parent.name}-{path.name}", path.read_bytes()))
    return {"record_xg": xg_seeds, "record_bytes": files_seeds}


def main() -> int:
    counts = {}
    for target, seeds in notation_seeds().items():
        counts[target] = write(target, seeds)
    movetext, mail = move_seeds()
    counts["movetext"], counts["pbm"] = write("movetext", movetext), write("pbm", mail)
    for target, seeds in batch_seeds().items():
        counts[target] = write(target, seeds)
    counts["ubgi"] = write("ubgi", ubgi_seeds())
    actions, replay = match_seeds()
    counts["match_actions"], counts["match_replay"] = write("match_actions", actions), write("match_replay", replay)
    for target, seeds in loader_seeds().items():
        counts[target] = write(target, seeds)
    for target, seeds in record_seeds().items():
        counts[target] = write(target, seeds)
    missing = set(_harness.names()) - set(counts)
    for target, count in sorted(counts.items()):
        print(f"{target:14} {count} seeds")
    if missing:
        print(f"no seeds made for {', '.join(sorted(missing))}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
