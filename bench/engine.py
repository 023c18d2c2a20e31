"""Engine speed: static evaluations per second, move-decision times at 0, 1 and 2 ply, duel speed.

Usage: python bench/engine.py [CORPUS] [--positions N] [--player pubeval] [--duel-only] [--duel-games N]

* static evaluations/s -- every child of the corpus positions in one batched
  ``evaluate_batch`` call per evaluator (best of 3), the shipped neural net (``nn``, the
  bare net without bear-off tables) among them, and the net one board a call
  (``nn single``, the first 5,000), next to GNU Backgammon's ``evaluate`` (one position a
  call, its 0-ply net, one pass: it caches) over the same boards;
* decision time -- CPU time of choosing a play at 0, 1 and 2 ply: the first call of a freshly
  built player (what a first user waits for), then, after one position of every class
  (contact, crashed, race, bear-off) decided to warm both programs, the median and mean over
  the first N corpus positions that offer a real choice (more than one distinct result, no
  checker on either bar), next to:

  - GNU Backgammon through PyPI's ``gnubg``: ``findbestmove`` with a cubeless
    evalcontext of 0/1/2 plies (pruning on above 0 ply, as its presets use it);
  - bgsage: ``BgBotAnalyzer(eval_level='1ply'|'2ply'|'3ply').checker_play``, whose levels
    count the static evaluation as a ply, so they are GNU Backgammon's 0/1/2 ply.

* duel speed -- games per CPU second on one worker (best of 3, fixed seeds) of the game loops:
  ``gammon duel`` cubeless, with the cube (money) and in 5-point matches (pubeval against
  itself: the loop's cost, not the evaluator's), and the compiled self-play loops of the
  trainers (pubeval against the heuristic; the shipped net against pubeval).

The peers are benchmark-only (``pip install -e '.[bench]'``); a missing one prints n/a.
The last lines give how the cost grows from one ply to the next.
"""

from __future__ import annotations

import argparse
import functools
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from gammon import Position, movegen
from gammon.players import load_player
from gammon.bots.pubeval import PubevalEvaluator
from gammon.bots.random_eval import RandomEvaluator
from gammon.bots.simple import SimpleEvaluator

HERE = Path(__file__).resolve().parent
DEFAULT_CORPUS = HERE.parent / "tests" / "vectors" / "corpus.txt"
PLIES = (0, 1, 2)
#: Boards evaluated one a call for the single-board rate.
SINGLE = 5000


def read_corpus(path: Path) -> list[tuple[str, int, int]]:
    rows = [line.split() for line in path.read_text().splitlines() if line.strip()]
    return [(r[0], int(r[1]), int(r[2])) for r in rows]


#: The classes of position a decision can meet, each with code and tables of its own to load:
#: one of each is decided before the timed positions, by both programs.
CLASSES = ("contact", "crashed", "race", "bear-off")


def position_class(board: np.ndarray) -> str:
    """Which of :data:`CLASSES` a kernel board (side to move) is."""
    from gammon.nn.network import crashed

    kind = movegen.board_class(board)
    if kind == movegen.BEAROFF:
        return "bear-off"
    if kind == movegen.RACE:
        return "race"
    return "crashed" if crashed(board) else "contact"


def real_choices(rows: list[tuple[str, int, int]], limit: int) -> tuple[list, list]:
    """The first ``limit`` corpus positions with more than one distinct result and both bars
    empty, and, apart from them, one such position of every class (the warm-up)."""
    chosen: list[tuple[str, np.ndarray, int, int]] = []
    warm: dict[str, tuple[str, np.ndarray, int, int]] = {}
    for pid, d1, d2 in rows:
        board = Position(pid).array()
        if board[25] != 0 or board[0] != 0 or movegen.generate(board, d1, d2)[0].shape[0] < 2:
            continue
        kind = position_class(board)
        if kind not in warm:
            warm[kind] = (pid, board, d1, d2)
        elif len(chosen) < limit:
            chosen.append((pid, board, d1, d2))
        if len(chosen) == limit and len(warm) == len(CLASSES):
            break
    return chosen, [warm[kind] for kind in CLASSES if kind in warm]


def decision_ms(make: Callable[[], Callable[[str, np.ndarray, int, int], object] | None], positions: list,
                warm_up: list) -> tuple[float, float, float, float] | None:
    """CPU milliseconds of building a player, of its first decision (on the first warm-up
    position), then the median and mean over ``positions`` after the rest of the warm-up.

    CPU time, not wall: on a busy machine it is the figure other work distorts least. Median
    and mean both: a search whose move filter leaves one play stops a ply early, so about half
    the decisions at 2 ply are 1-ply decisions and the median of such a two-humped spread can
    land in either hump; the mean weighs them as they come."""
    started = time.process_time()
    decide = make()
    if decide is None:
        return None
    built = time.process_time()
    decide(*warm_up[0])
    first = time.process_time() - built
    built -= started
    for item in warm_up[1:]:  # one position of every other class: its code and tables loaded
        decide(*item)
    times = []
    for item in positions:
        start = time.process_time()
        decide(*item)
        times.append(time.process_time() - start)
    return 1000 * built, 1000 * first, 1000 * statistics.median(times), 1000 * statistics.fmean(times)


def static_rates(rows: list[tuple[str, int, int]]) -> dict[str, float]:
    boards = np.concatenate([movegen.generate(Position(pid).array(), d1, d2)[0] for pid, d1, d2 in rows])
    rates = {}
    evaluators = [PubevalEvaluator(), SimpleEvaluator(), RandomEvaluator()]
    try:
        from gammon.nn.evaluator import NNEvaluator

        evaluators.append(NNEvaluator())
    except (ImportError, OSError, ValueError) as error:
        print(f"  (nn unavailable: {error})")
    for evaluator in evaluators:
        evaluator.evaluate_batch(boards[:10])
        best = float("inf")
        for _ in range(3):
            start = time.perf_counter()
            evaluator.evaluate_batch(boards)
            best = min(best, time.perf_counter() - start)
        rates[evaluator.name] = boards.shape[0] / best
    if evaluators[-1].name == "nn":
        rates["nn single"] = single_rate(evaluators[-1], boards[:SINGLE])
    gnubg_rate = gnubg_static_rate(boards)
    if gnubg_rate is not None:
        rates["gnubg 0-ply"] = gnubg_rate
    print(f"static evaluations/s, batched over {boards.shape[0]:,} boards after a play:")
    for name, rate in rates.items():
        print(f"  {name:12s} {rate:14,.0f}")
    return rates


def single_rate(evaluator: object, boards: np.ndarray) -> float:
    """Evaluations per second one board a call (best of 3): what a caller without a batch gets."""
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        for i in range(boards.shape[0]):
            evaluator.evaluate_batch(boards[i : i + 1])
        best = min(best, time.perf_counter() - start)
    return boards.shape[0] / best


def gnubg_static_rate(boards: np.ndarray) -> float | None:
    """GNU Backgammon's static evaluations per second (``gnubg.evaluate``, 0 ply, cubeless).

    The same boards after a play as gammon's evaluators get, each seen from the side on
    roll, one pass: gnubg caches evaluations, so a repeated pass would only time the cache.
    """
    try:
        import gnubg
    except ImportError:
        return None
    from vs_gnubg import to_gnubg  # beside this script: the one board conversion for gnubg

    converted = []
    for board in boards:
        opponent, mover = to_gnubg(movegen.flip_board(board))
        if sum(mover) and sum(opponent):  # finished games are not evaluated
            converted.append((opponent, mover))
    cube = gnubg.cubeinfo()
    context = gnubg.evalcontext(0, 0, 0, 0, 0.0)
    start = time.perf_counter()
    for board in converted:
        gnubg.evaluate(board, cube, context)
    return len(converted) / (time.perf_counter() - start)


def gammon_decider(name: str, ply: int) -> Callable:
    player = load_player(f"{name}:{ply}")
    return lambda pid, board, d1, d2: player.choose_board(board, d1, d2)


def gnubg_decider(ply: int) -> Callable | None:
    try:
        import gnubg
    except ImportError:
        return None
    cube = gnubg.cubeinfo()
    context = gnubg.evalcontext(0, ply, 1, 1 if ply else 0, 0.0)
    return lambda pid, board, d1, d2: gnubg.findbestmove(gnubg.positionfromid(pid), cube, context, (d1, d2))


def bgsage_decider(ply: int) -> Callable | None:
    try:
        import bgsage
    except ImportError:
        return None
    analyzer = bgsage.BgBotAnalyzer(eval_level=f"{ply + 1}ply")

    def decide(pid: str, board: np.ndarray, d1: int, d2: int) -> object:
        sage = board.tolist()
        sage[0] = -sage[0]  # bgsage counts the opponent's bar as a positive number
        return analyzer.checker_play(sage, d1, d2)

    return decide


def best_rate(run: Callable[[], int]) -> float:
    """Units per CPU second of ``run`` (which returns how many it did), best of 3 after a warm-up.

    CPU time of this process (the loops run in it, on one worker): the figure that other
    work on a busy machine distorts least.
    """
    run()
    best = float("inf")
    for _ in range(3):
        start = time.process_time()
        done = run()
        best = min(best, (time.process_time() - start) / done)
    return 1.0 / best


def duel_rates(games: int) -> dict[str, float]:
    """Games per second of the duel and self-play loops, on one worker."""
    from gammon import duel as duels
    from gammon.bots.simple import SimpleWeights
    from gammon.train import selfplay, td

    def cubeless() -> int:
        return duels.duel("pubeval", "pubeval", games, seed=1, workers=1).games

    def cube() -> int:
        return duels.duel("pubeval", "pubeval", games // 8 * 2, seed=1, workers=1, cube=True).games

    def match() -> int:
        return duels.match_duel("pubeval", "pubeval", max(2, games // 80 * 2), 5, seed=1, workers=1).games_played

    kinds = np.array([selfplay.PUBEVAL, selfplay.SIMPLE])
    blocks = np.stack([selfplay.pubeval_block(), selfplay.simple_block(SimpleWeights.load().array())])

    def compiled() -> int:
        return selfplay.duplicate_match(kinds, blocks, 1, 0, 5 * games).size

    rates = {"duel cubeless": best_rate(cubeless), "duel cube": best_rate(cube), "duel 5-pt match": best_rate(match),
             "self-play compiled": best_rate(compiled)}
    try:
        from gammon.nn.evaluator import load_network

        arrays = load_network().arrays()
    except (ImportError, OSError, ValueError):
        arrays = None
    if arrays is not None:
        rates["td nn-pubeval"] = best_rate(lambda: td.duel_pubeval(*arrays, selfplay.pubeval_block(), 1, 0, games // 2).size)
    print("duel speed, games per CPU second on one worker (pubeval vs pubeval; compiled: pubeval vs simple, nn vs pubeval):")
    for name, rate in rates.items():
        print(f"  {name:20s} {rate:10,.1f}")
    return rates


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", nargs="?", default=str(DEFAULT_CORPUS))
    parser.add_argument("--positions", type=int, default=200, help="decision positions (default 200)")
    parser.add_argument("--player", default="pubeval", help="gammon evaluator for decisions (default pubeval)")
    parser.add_argument("--static", type=int, default=2000, help="corpus lines whose children are evaluated")
    parser.add_argument("--duel-games", type=int, default=200, help="games of a cubeless duel (default 200)")
    parser.add_argument("--duel-only", action="store_true", help="time the duel loops only")
    args = parser.parse_args()
    if args.duel_only:
        duel_rates(args.duel_games)
        return

    rows = read_corpus(Path(args.corpus))
    static_rates(rows[: args.static])
    positions, warm_up = real_choices(rows, args.positions)
    print(f"\nmove decision, CPU ms: building the player, its first decision (a contact position), then, after "
          f"one {' / '.join(CLASSES)} position each, median / mean over {len(positions)} positions with a real choice:")
    engines: dict[str, Callable[[int], Callable | None]] = {
        f"gammon {args.player}": lambda ply: gammon_decider(args.player, ply),
        "gammon nn": lambda ply: gammon_decider("nn", ply),
        "gnubg": gnubg_decider,
        "bgsage": bgsage_decider,
    }
    figures: dict[str, list[tuple[float, float, float, float] | None]] = {}
    for engine, make in engines.items():
        figures[engine] = [decision_ms(functools.partial(make, ply), positions, warm_up) for ply in PLIES]
    print(f"  {'engine':14s}" + "".join(f"{f'{p}-ply: build  first  median / mean':>38s}" for p in PLIES))
    for engine, row in figures.items():
        print(f"  {engine:14s}" + "".join(
            f"{'n/a':>38s}" if v is None else f"{f'{v[0]:.1f}  {v[1]:.1f}  {v[2]:.3f} / {v[3]:.3f}':>38s}" for v in row))
    print("\ncost growth per ply, by the mean (x times the previous ply):")
    table = {engine: [None if v is None else v[3] for v in row] for engine, row in figures.items()}
    for engine, row in table.items():
        if None in row:
            print(f"  {engine:18s} n/a")
            continue
        print(f"  {engine:18s} 0->1: x{row[1] / row[0]:.0f}   1->2: x{row[2] / row[1]:.0f}")
    print()
    duel_rates(args.duel_games)


if __name__ == "__main__":
    main()
