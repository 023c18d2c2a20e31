"""``gammon hint``, ``gammon duel`` and ``gammon train simple``: the bots from the shell."""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from ..players import LEVELS, check_variant, parse_player, player_names
from ..cube.context import CubeContext
from ..errors import GammonError, InvalidPlayerError
from ..evaluation import NOT_EVALUATED
from ..notation import whole_number
from ..variant import Variant, VariantError
from .positions import read_dice, read_state

if TYPE_CHECKING:
    from ..evaluation import Hint

PLAYER_HELP = (
    "NAME[:PLY][:LEVEL]: NAME one of {names}, PLY 0-3, LEVEL one of {levels}"
)


#: The cube limit of money duels with the cube unless --cube-limit says otherwise.
DUEL_CUBE_LIMIT = 64


class DuelArgumentError(GammonError, ValueError):
    """A duel or training argument out of range; the message names it."""


def count(minimum: int = 1, *, even: bool = False) -> Callable[[str], int]:
    """An argparse ``type`` for a count: a whole number >= ``minimum`` (and even, if asked).

    Anything else is refused as argparse refuses a bad value: usage, the option, what it
    expected, exit status 2.
    """
    expected = f"{'an even' if even else 'a'} whole number >= {minimum}"

    def parse(text: str) -> int:
        value = whole_number(text)
        if value is None or value < minimum or (even and value % 2):
            raise argparse.ArgumentTypeError(f"expected {expected}, got {text!r}")
        return value

    return parse


def writable_file(option: str, text: str) -> Path:
    """The path of a file a command will write, its folder made now (not after hours of work)."""
    path = Path(text)
    if path.is_dir():
        raise DuelArgumentError(f"{option} {text}: is a folder; {option} names a file (in that folder, if you like)")
    _make_folder(option, text, path.parent)
    return path


def writable_folder(option: str, text: str) -> Path:
    """A folder a command will write into, made now if missing."""
    return _make_folder(option, text, Path(text))


def _make_folder(option: str, text: str, folder: Path) -> Path:
    if folder.exists() and not folder.is_dir():
        raise DuelArgumentError(f"{option} {text}: {folder} is a file, not a folder; choose another path")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise DuelArgumentError(
            f"{option} {text}: cannot make the folder {folder} ({error.strerror or error}); choose another path"
        ) from None
    return folder


def register(subparsers: argparse._SubParsersAction) -> None:
    player_help = PLAYER_HELP.format(names=", ".join(player_names()), levels=", ".join(LEVELS))

    hint = subparsers.add_parser(
        "hint",
        help="rank every legal play of a roll",
        description="Rank every legal play of POSITION for the roll D1 D2 (or the position's own dice): "
        "cubeful equity with the position's cube and score (match: MWC shown as equity per cube; a bare "
        "Position ID is a money game, cube centred), the five probabilities (win, win gammon, win backgammon, lose gammon, lose "
        "backgammon, for the side to act after its play) and the equity lost against the best.",
    )
    hint.add_argument("position", metavar="POSITION", help="BPN, XGID, GNUbg ID, FIBS board or Position ID")
    hint.add_argument("dice", metavar="DIE", nargs="*", help="two dice 1-6")
    hint.add_argument("--player", default=None, help=f"the evaluating player (default nn:2); {player_help}")
    hint.add_argument("--limit", type=count(1), default=None, metavar="N", help="show only the best N plays")
    hint.add_argument("--json", action="store_true", help="one JSON object")
    hint.set_defaults(handler=_hint)

    duel = subparsers.add_parser(
        "duel",
        help="play two players against each other",
        description="Games between A and B with duplicate dice (each dice sequence played twice, seats "
        "swapped). Cubeless money games by default; --cube adds the doubling cube (and resignations), "
        "--match N plays N-point matches with the cube and the Crawford rule. Prints A's points per "
        "game, or A's share of the matches, with a 95% confidence interval.",
    )
    duel.add_argument("a", metavar="A", help=player_help)
    duel.add_argument("b", metavar="B", help=player_help)
    duel.add_argument("--games", type=int, default=None,
                      help="number of games, or of matches with --match; even (default 1000 games, 100 matches)")
    duel.add_argument("--seed", type=int, default=0, help="dice and noise seed (default 0)")
    duel.add_argument("--workers", type=int, default=None, help="processes (default: every core)")
    duel.add_argument("--cube", action="store_true", help="money games with the doubling cube")
    duel.add_argument("--match", type=int, default=None, metavar="N", help="N-point matches (implies --cube)")
    duel.add_argument("--jacoby", action="store_true", help="money play: the Jacoby rule (implies --cube)")
    duel.add_argument("--beavers", action="store_true", help="money play: beavers allowed (implies --cube)")
    duel.add_argument("--cube-limit", type=int, default=None, metavar="N",
                      help=f"money play: the largest cube, a power of two, or 0 for none (implies --cube; "
                      f"default {DUEL_CUBE_LIMIT}: two bots that both misjudge a position redouble each other "
                      "without end, and a few such games would decide the mean)")
    duel.add_argument("--variant", default="standard",
                      help="the rules: standard, or a comma-separated list of nackgammon (its starting position) "
                      "and two-move-doubles (a double is played as two moves, not four); gammon's own players only")
    duel.add_argument("--json", action="store_true", help="print one JSON object")
    duel.set_defaults(handler=_duel)

    train = subparsers.add_parser(
        "train",
        help="train an evaluator",
        description="Train gammon's evaluators by self-play: simple (hill-climb the hand-made heuristic's "
        "weights), td (TD(lambda) training of the neural nets from random weights), rollouts (refine a "
        "net on rolled-out positions) and average (one net from several snapshots). Long runs show "
        "progress, and an interrupted run resumes when the same command is run again.",
    )
    which = train.add_subparsers(dest="evaluator", metavar="EVALUATOR")
    simple = which.add_parser(
        "simple",
        help="hill-climb the article's heuristic by self-play",
        description="Hill climbing: a nudged candidate replaces the incumbent when it wins more than 51% "
        "of GAMES duplicate-dice self-play games. Resumable: rerun the same command to continue "
        "from --state. Writes the calibrated weights to --output.",
    )
    simple.add_argument("--iterations", type=count(1), default=200, help="total iterations (default 200)")
    simple.add_argument("--games", type=count(2, even=True), default=3000, help="games per candidate, even (default 3000)")
    simple.add_argument("--seed", type=count(0), default=0)
    simple.add_argument("--state", default="simple-training.json",
                        help="resumable state file (its folder is made if missing)")
    simple.add_argument("--output", default="simple.json", help="where to write the trained weights")
    simple.add_argument("--calibration-games", type=count(1), default=20000,
                        help="self-play games that calibrate the score into a win probability (default 20000)")
    simple.set_defaults(handler=_train_simple)
    _register_td(which)
    _register_distill(which)
    train.set_defaults(handler=lambda args: (train.print_help(), 2)[1])


def _hint(args: argparse.Namespace) -> int:
    from ..players import DEFAULT_HINT_PLAYER, hint, load_player

    state = read_state(args.position)
    d1, d2 = read_dice(args.dice, state)
    player = load_player(args.player or DEFAULT_HINT_PLAYER)
    context = CubeContext.from_state(state)
    try:
        hints = hint(state, d1, d2, player)
    finally:
        player.close()
    depths = _depths(hints)
    if args.limit is not None:
        hints = hints[: args.limit]
    if args.json:
        print(json.dumps({"position": state.position.position_id(), "dice": [d1, d2], "player": player.name,
                          "context": context.describe(), "plays": [h.as_dict() for h in hints]}))
        return 0
    print(f"{state.position.position_id()} {d1}-{d2}, {player.name}, {context.describe()}; "
          "cubeful equity per cube; probabilities: win wg wbg - lose lg lbg")
    width = max(len(h.play_text()) for h in hints)
    for h in hints:
        p = h.probabilities
        equity = "     -" if h.equity is None else f"{h.equity:+.3f}"
        loss = "" if h.rank == 1 or h.loss is None else f"({-h.loss:+.3f})"
        chances = NOT_EVALUATED if p is None else (
            f"{p.win:.3f} {p.win_gammon:.3f} {p.win_backgammon:.3f} - {p.lose:.3f} {p.lose_gammon:.3f} {p.lose_backgammon:.3f}")
        print(f"{h.rank:3d}. {h.play_text():<{width}}  {h.ply}-ply  {equity} {loss:>8}  {chances}")
    if depths:
        print(depths)
    return 0


def _depths(hints: list[Hint]) -> str:
    """What a ranking of mixed depths compares, said in words (empty when every play has one depth).

    The search scores every play at 0 ply and takes only the candidates its move filters keep
    deeper (GNU Backgammon's way), so the ply column differs from play to play.
    """
    counts = Counter(h.ply for h in hints)
    if len(counts) < 2:
        return ""
    parts = ", ".join(f"{n} at {ply}-ply" for ply, n in sorted(counts.items(), reverse=True))
    return (f"Depths: {parts}. Every play is scored at 0 ply and only the best candidates deeper; "
            "a deeper play ranks first, and a loss across depths compares a shallower estimate with a deeper value.")


def _duel(args: argparse.Namespace) -> int:
    from ..duel import duel, match_duel
    from ..cube.met import MAX_AWAY

    money_rules = args.jacoby or args.beavers or args.cube_limit is not None
    what = "--games"
    if args.match is not None:
        if not 1 <= args.match <= MAX_AWAY:
            raise DuelArgumentError(f"--match {args.match}: a match length of 1-{MAX_AWAY} points")
        if money_rules:
            raise DuelArgumentError("--jacoby, --beavers and --cube-limit are money-play rules: not with --match")
        what = "--games (matches)"
    games = args.games if args.games is not None else (100 if args.match is not None else 1000)
    if games < 2 or games % 2:
        raise DuelArgumentError(f"{what} {games}: an even number >= 2 (each dice sequence is played twice)")
    if args.seed < 0:
        raise DuelArgumentError(f"--seed {args.seed}: must be >= 0")
    if args.workers is not None and args.workers < 1:
        raise DuelArgumentError(f"--workers {args.workers}: must be >= 1")
    cube = args.cube or money_rules
    limit = (DUEL_CUBE_LIMIT if cube else None) if args.cube_limit is None else (args.cube_limit or None)
    if limit is not None and (limit < 1 or limit & (limit - 1)):
        raise DuelArgumentError(f"--cube-limit {args.cube_limit}: a power of two (1, 2, 4, 8, ...) or 0 for no limit")
    try:
        variant = Variant.parse(args.variant)
    except VariantError as error:
        raise DuelArgumentError(f"--variant: {error}") from None
    for name in (args.a, args.b):  # fail before starting workers
        try:
            check_variant(parse_player(name), variant)
        except InvalidPlayerError as error:
            raise DuelArgumentError(f"--variant: {error}") from None
    progress = sys.stderr.isatty()
    if args.match is not None:
        result = match_duel(args.a, args.b, games, args.match, args.seed, args.workers, progress, variant=variant)
    else:
        result = duel(args.a, args.b, games, args.seed, args.workers, progress, cube=cube,
                      jacoby=args.jacoby, beavers=args.beavers, cube_limit=limit, variant=variant)
    for note in result.notes:
        print(f"gammon duel: {note}", file=sys.stderr)
    print(result.to_json() if args.json else result.summary())
    return 0


def _train_simple(args: argparse.Namespace) -> int:
    from ..train.simple import train

    state_path = writable_file("--state", args.state)
    output = writable_file("--output", args.output)
    try:
        state, weights = train(state_path, args.iterations, args.games, args.seed, True, args.calibration_games)
    except ValueError as error:
        raise DuelArgumentError(str(error)) from None
    output.write_text(weights.to_json() + "\n")
    print(f"{state.iteration} iterations, {len(state.accepted)} accepted; weights written to {args.output}")
    return 0


def _register_td(which: argparse._SubParsersAction) -> None:
    from ..train.settings import Settings  # not the training loops: every bots command registers this

    d = Settings()
    td = which.add_parser(
        "td",
        help="TD(lambda) self-play training of the neural nets",
        description="TD(lambda) self-play from random weights on every core. Every --eval-every games the net "
        "plays --eval-games duplicate-dice games against pubeval; OUTPUT gets td.log, learning-curve.png, "
        "best.npz (the best net so far) and state.npz. Resumable: rerun the same command to continue.",
    )
    td.add_argument("--games", type=count(1), required=True, help="total self-play games to reach")
    td.add_argument("--output", default="training/td", help="directory for the log, curve and weights")
    td.add_argument("--state", default=None, help="resumable state file (default OUTPUT/state.npz)")
    td.add_argument("--snapshots", default=None, help="directory keeping the weights of every evaluation")
    td.add_argument("--seed", type=count(0), default=d.seed)
    td.add_argument("--hidden", type=count(1), default=d.hidden, help=f"hidden units per net (default {d.hidden})")
    td.add_argument("--workers", type=count(1), default=d.workers, help=f"processes (default {d.workers})")
    td.add_argument("--round-games", type=count(1), default=d.round_games, help="games per worker between merges")
    td.add_argument("--alpha", type=float, default=d.alpha, help="initial learning rate")
    td.add_argument("--alpha-final", type=float, default=d.alpha_final, help="learning-rate floor")
    td.add_argument("--anneal", type=float, default=d.anneal, help="alpha / (1 + games / ANNEAL)")
    td.add_argument("--lambda", dest="lam", type=float, default=d.lam, help="trace decay early on")
    td.add_argument("--lambda-until", type=count(0), default=d.lam_until, help="games after which lambda is 0")
    td.add_argument("--eval-every", type=count(1), default=d.eval_every, help="games between pubeval duels")
    td.add_argument("--eval-games", type=count(2, even=True), default=d.eval_games, help="games per pubeval duel, even")
    td.add_argument("--eval-seed", type=count(0), default=d.eval_seed)
    td.add_argument("--merge", choices=("mean", "sum"), default=d.merge, help="how workers' results combine")
    td.add_argument("--features", type=int, default=d.features, help=f"input encoding version (default {d.features})")
    td.add_argument("--init", default="", help="start from these weights (.npz) instead of random ones; "
                    "a net with fewer hidden units is widened to --hidden")
    td.set_defaults(handler=_train_td)

    ro = which.add_parser(
        "rollouts",
        help="refine the net on rolled-out self-play positions",
        description="Supervised refinement: POSITIONS after-play boards from the net's self-play, each rolled "
        "out TRIALS times by the net at 0 ply, then EPOCHS of SGD towards the rollout averages. The data "
        "set is saved chunk by chunk (--data) and reused when the command is rerun.",
    )
    ro.add_argument("--weights", required=True, help="the net to refine (.npz)")
    ro.add_argument("--output", required=True, help="where to write the refined net (.npz)")
    ro.add_argument("--positions", type=count(1), default=20000)
    ro.add_argument("--trials", type=count(1), default=36,
                    help="rollout games per position (each first roll equally often when a multiple of 36)")
    ro.add_argument("--truncate", type=count(0), default=0,
                    help="plays per trial before the net scores the board (0: to the end; 1 with 36 trials: 1 ply)")
    ro.add_argument("--hidden", type=count(0), default=0, help="widen the net to this many hidden units first")
    ro.add_argument("--epochs", type=count(0), default=3)
    ro.add_argument("--alpha", type=float, default=0.01)
    ro.add_argument("--alpha-final", type=float, default=None, help="step size of the last epoch (geometric decay)")
    ro.add_argument("--seed", type=count(0), default=1)
    ro.add_argument("--data", default=None, help="data set file (default OUTPUT with .rollouts.npz)")
    ro.add_argument("--workers", type=count(1), default=2)
    ro.add_argument("--ray", default=None, metavar="auto|ADDRESS",
                    help="build the data set on a Ray cluster: HOST:PORT as 'ray start --head' prints it, or auto "
                         "(the one running here); RAY_AUTH_MODE=token sends Ray's token; pip install gammon[ray]")
    ro.set_defaults(handler=_train_rollouts)

    pd = which.add_parser(
        "phase-data",
        help="grow a data set of rolled-out positions for the race or crashed net",
        description="POSITIONS positions of a phase (race: races from self-play and drawn ones, stragglers "
        "and gammonish races among them; crashed: crashed positions from self-play and bear-offs hit late; "
        "gammonish: lopsided races, a gammon or backgammon likely, for the race net), "
        "each rolled out TRIALS times by the net at 0 ply to the end. Saved once a minute to --data; rerun "
        "with a larger --positions to grow it.",
    )
    pd.add_argument("--kind", choices=("race", "crashed", "gammonish"), required=True)
    pd.add_argument("--data", required=True, help="the data set (.npz), created or grown")
    pd.add_argument("--positions", type=count(1), required=True, help="positions the data set should reach")
    pd.add_argument("--trials", type=count(2), default=36, help="rollout trials per position (default 36)")
    pd.add_argument("--seed", type=count(0), default=1)
    pd.add_argument("--workers", type=count(1), default=1)
    pd.add_argument("--player", default="nn", help="the player whose rollouts label the positions (default nn)")
    pd.add_argument("--ray", default=None, metavar="auto|ADDRESS",
                    help="label on a Ray cluster (auto: the running one); pip install gammon[ray]")
    pd.set_defaults(handler=_train_phase_data)

    pt = which.add_parser(
        "phase-td",
        help="TD self-play from drawn race or late-hit positions (games end at the bear-off tables)",
        description="GAMES self-play games of TD(lambda), each from a drawn position of the phase (race: "
        "stragglers, uneven and gammonish races; crashed: bear-offs hit late), ended exactly where the "
        "bear-off tables cover a position, from the nets in --weights.",
    )
    pt.add_argument("--kind", choices=("race", "crashed", "gammonish"), required=True)
    pt.add_argument("--weights", required=True, help="the net to start from (.npz)")
    pt.add_argument("--output", required=True, help="where to write the trained net (.npz)")
    pt.add_argument("--games", type=count(1), required=True)
    pt.add_argument("--alpha", type=float, default=0.005)
    pt.add_argument("--lambda", dest="lam", type=float, default=0.7)
    pt.add_argument("--seed", type=count(0), default=1)
    pt.add_argument("--workers", type=count(1), default=1)
    pt.set_defaults(handler=_train_phase_td)

    pf = which.add_parser(
        "phase-fit",
        help="train the phase nets of a weights file on rolled-out data sets",
        description="EPOCHS of SGD of each position's net (net_of: contact, race, crashed) towards the data "
        "sets' rollout targets, the step falling from ALPHA to ALPHA_FINAL; 5 percent held out.",
    )
    pf.add_argument("data", nargs="+", metavar="DATA", help="data sets made by phase-data (.npz)")
    pf.add_argument("--weights", required=True, help="the net to start from (.npz)")
    pf.add_argument("--output", required=True, help="where to write the trained net (.npz)")
    pf.add_argument("--epochs", type=count(1), default=20)
    pf.add_argument("--alpha", type=float, default=0.05)
    pf.add_argument("--alpha-final", type=float, default=0.002)
    pf.add_argument("--seed", type=count(0), default=1)
    pf.add_argument("--siblings", type=count(0), default=0, metavar="N",
                    help="about N boards of the plays of one roll from the net's self-play (no straggler races, "
                    "no bear-offs), fitted beside the data to the starting net's differences between them: "
                    "they keep how TD ranked the plays while the rollouts set the level (default 0)")
    pf.set_defaults(handler=_train_phase_fit)

    avg = which.add_parser(
        "average",
        help="average snapshots of a run into one net",
        description="The mean of the weights of several snapshots of one run (e.g. the last evaluations of "
        "`gammon train td --snapshots DIR`): less noise than any single one.",
    )
    avg.add_argument("snapshots", nargs="+", metavar="SNAPSHOT", help="weights files (.npz) of one run")
    avg.add_argument("--output", required=True, help="where to write the averaged net (.npz)")
    avg.add_argument("--note", default="", help="free text stored in the file's metadata (how it was made)")
    avg.set_defaults(handler=_train_average)


def _train_td(args: argparse.Namespace) -> int:
    from ..train.td import Settings, TrainingStateError, train

    settings = Settings(
        seed=args.seed,
        hidden=args.hidden,
        workers=args.workers,
        round_games=args.round_games,
        alpha=args.alpha,
        alpha_final=args.alpha_final,
        anneal=args.anneal,
        lam=args.lam,
        lam_until=args.lambda_until,
        eval_every=args.eval_every,
        eval_games=args.eval_games,
        eval_seed=args.eval_seed,
        init=args.init,
        features=args.features,
        merge=args.merge,
    )
    writable_folder("--output", args.output)
    if args.state is not None:
        writable_file("--state", args.state)
    if args.snapshots is not None:
        writable_folder("--snapshots", args.snapshots)
    from ..nn.features import VERSION_INPUTS

    if args.features not in VERSION_INPUTS:
        raise DuelArgumentError(f"--features {args.features}: one of {', '.join(map(str, VERSION_INPUTS))}")
    if args.eval_every % (args.workers * args.round_games):
        raise DuelArgumentError(
            f"--eval-every {args.eval_every}: must be a multiple of workers x round games "
            f"({args.workers * args.round_games})"
        )
    command = (
        f"gammon train td --games {args.games} --seed {args.seed} --hidden {args.hidden} --workers {args.workers} "
        f"--round-games {args.round_games} --alpha {args.alpha} --alpha-final {args.alpha_final} "
        f"--anneal {args.anneal:g} --lambda {args.lam} --lambda-until {args.lambda_until} "
        f"--eval-every {args.eval_every} --eval-games {args.eval_games} --eval-seed {args.eval_seed} "
        f"--features {args.features} --merge {args.merge}"
        + (f" --init {args.init}" if args.init else "")
    )
    try:
        train(args.output, args.games, settings, args.state, True, command, args.snapshots)
    except TrainingStateError as error:
        raise DuelArgumentError(str(error)) from None
    print(f"done: {args.games} games; best weights in {Path(args.output) / 'best.npz'}")
    return 0


def _train_rollouts(args: argparse.Namespace) -> int:
    from ..nn.network import NetworkFileError
    from ..train.rollouts import train
    from ..workers import ray_module

    writable_file("--output", args.output)
    if args.data is not None:
        writable_file("--data", args.data)
    if args.ray is not None:
        ray_module()  # Ray missing: say how to install it before any work
    try:
        train(args.weights, args.output, args.positions, args.trials, args.epochs, args.alpha, args.seed,
              args.data, args.workers, truncate=args.truncate, hidden=args.hidden, alpha_final=args.alpha_final,
              ray=args.ray)
    except NetworkFileError as error:
        raise DuelArgumentError(str(error)) from None
    print(f"refined net written to {args.output}")
    return 0


def _train_phase_data(args: argparse.Namespace) -> int:
    from ..train.phases import build

    from ..workers import ray_module

    writable_file("--data", args.data)
    if args.ray is not None:
        ray_module()  # Ray missing: say how to install it before any work
    data = build(args.data, args.kind, args.positions, args.trials, args.seed, args.workers, args.player,
                 ray=args.ray)
    print(f"{args.data}: {data['boards'].shape[0]} positions, mean standard error {data['errors'].mean():.4f}")
    return 0


def _train_phase_td(args: argparse.Namespace) -> int:
    from ..nn.network import NetworkFileError
    from ..train.phases import td

    writable_file("--output", args.output)
    try:
        td(args.weights, args.output, args.kind, args.games, args.alpha, args.lam, args.seed, args.workers)
    except NetworkFileError as error:
        raise DuelArgumentError(str(error)) from None
    print(f"trained net written to {args.output}")
    return 0


def _train_phase_fit(args: argparse.Namespace) -> int:
    from ..nn.network import NetworkFileError
    from ..train.phases import fit

    writable_file("--output", args.output)
    try:
        fit(args.weights, args.data, args.output, args.epochs, args.alpha, args.alpha_final, args.seed,
            sibling_boards=args.siblings)
    except NetworkFileError as error:
        raise DuelArgumentError(str(error)) from None
    print(f"trained net written to {args.output}")
    return 0


def _register_distill(which: argparse._SubParsersAction) -> None:
    dd = which.add_parser(
        "distill-data",
        help="grow a data set of decisions labelled by a teacher net's 2-ply search",
        description="DECISIONS decisions from the pupil's self-play (some of the rare kinds: crashed, "
        "containment, backgames, prime against prime, bearing off against contact), one seeded roll each: "
        "its 0-ply candidate window (up to 8 plays within 0.16) valued by the teacher at PLIES ply. Saved "
        "once a minute to --data (compressed); rerun with a larger --decisions to grow it.",
    )
    dd.add_argument("--data", required=True, help="the data set (.npz), created or grown")
    dd.add_argument("--decisions", type=count(1), required=True, help="kept decisions the data set should reach")
    dd.add_argument("--pupil", required=True, help="the net whose self-play and 0-ply window make the decisions (.npz)")
    dd.add_argument("--teacher", required=True, help="the net whose search labels the plays (.npz)")
    dd.add_argument("--plies", type=count(1), default=2, help="the teacher's depth (default 2)")
    dd.add_argument("--sample", type=float, default=1.0,
                    help="the share of decisions kept where 0 ply and the teacher agree (default 1: all)")
    dd.add_argument("--seed", type=count(0), default=1)
    dd.add_argument("--workers", type=count(1), default=1)
    dd.set_defaults(handler=_train_distill_data)

    df = which.add_parser(
        "distill-fit",
        help="fit the nets to distillation data sets: the differences within each decision, and the level",
        description="EPOCHS of Adam over the decisions of the data sets: each play's equity less its decision's "
        "mean against the teacher's (weighted RANKING, BOOST times more where the teacher disagreed with "
        "0 ply), and cross-entropy on the teacher's probabilities (weighted LEVEL). A share is held out; the "
        "held-out teacher loss (the teacher's value of its best candidate less that of the net's choice) "
        "is printed each epoch.",
    )
    df.add_argument("data", nargs="+", metavar="DATA", help="data sets made by distill-data (.npz)")
    df.add_argument("--weights", required=True, help="the net to start from (.npz)")
    df.add_argument("--output", required=True, help="where to write the fitted net (.npz)")
    df.add_argument("--epochs", type=count(1), default=8)
    df.add_argument("--alpha", type=float, default=0.001, help="Adam's step (default 0.001)")
    df.add_argument("--ranking", type=float, default=20.0)
    df.add_argument("--boost", type=float, default=3.0)
    df.add_argument("--level", type=float, default=1.0)
    df.add_argument("--holdout", type=float, default=0.1)
    df.add_argument("--seed", type=count(0), default=1)
    df.set_defaults(handler=_train_distill_fit)


def _train_distill_data(args: argparse.Namespace) -> int:
    from ..nn.network import Network, NetworkFileError
    from ..train.distill import DataSetError, build

    writable_file("--data", args.data)
    if not 0.0 <= args.sample <= 1.0:
        raise DuelArgumentError(f"--sample must be between 0 and 1, got {args.sample}")
    try:
        for option, path in (("--pupil", args.pupil), ("--teacher", args.teacher)):
            try:
                Network.load(path)
            except NetworkFileError as error:
                raise DuelArgumentError(f"{option}: {error}") from None
        data = build(args.data, args.decisions, args.pupil, args.teacher, args.seed, args.sample, args.workers,
                     args.plies)
    except DataSetError as error:
        raise DuelArgumentError(str(error)) from None
    print(f"{args.data}: {data['starts'].shape[0]} decisions, {data['boards'].shape[0]} plays labelled")
    return 0


def _train_distill_fit(args: argparse.Namespace) -> int:
    from ..nn.network import NetworkFileError
    from ..train.distill import DataSetError, fit

    writable_file("--output", args.output)
    try:
        net = fit(args.weights, args.data, args.output, args.epochs, args.alpha, args.ranking, args.boost,
                  args.level, seed=args.seed, holdout=args.holdout)
    except (NetworkFileError, DataSetError) as error:
        raise DuelArgumentError(str(error)) from None
    record = net.meta["distill"][-1]  # type: ignore[index]
    print(f"held-out teacher loss {record['held_out_teacher_loss_before']:.5f} -> "
          f"{record['held_out_teacher_loss_after']:.5f}; fitted net written to {args.output}")
    return 0


def _train_average(args: argparse.Namespace) -> int:
    from ..nn.network import NetworkFileError
    from ..train.td import average

    try:
        net = average(args.snapshots)
    except (NetworkFileError, ValueError) as error:
        raise DuelArgumentError(str(error)) from None
    if args.note:
        net.meta["note"] = args.note
    net.save(writable_file("--output", args.output))
    print(f"{len(args.snapshots)} snapshots averaged into {args.output}")
    return 0
