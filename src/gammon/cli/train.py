"""``gammon train``: the trainers of gammon's evaluators, from the shell."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..errors import GammonError
from .bots import count, writable_file, writable_folder


class TrainArgumentError(GammonError, ValueError):
    """A training argument out of range, or a file a trainer cannot use; the message names it."""


def register(subparsers: argparse._SubParsersAction) -> None:
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


def _train_simple(args: argparse.Namespace) -> int:
    from ..train.simple import train

    state_path = writable_file("--state", args.state)
    output = writable_file("--output", args.output)
    try:
        state, weights = train(state_path, args.iterations, args.games, args.seed, True, args.calibration_games)
    except ValueError as error:
        raise TrainArgumentError(str(error)) from None
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
        raise TrainArgumentError(f"--features {args.features}: one of {', '.join(map(str, VERSION_INPUTS))}")
    if args.eval_every % (args.workers * args.round_games):
        raise TrainArgumentError(
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
        raise TrainArgumentError(str(error)) from None
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
        raise TrainArgumentError(str(error)) from None
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
        raise TrainArgumentError(str(error)) from None
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
        raise TrainArgumentError(str(error)) from None
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
    df.add_argument("--alpha", type=float, default=0.0003, help="Adam's step (default 0.0003)")
    df.add_argument("--ranking", type=float, default=20.0)
    df.add_argument("--boost", type=float, default=3.0)
    df.add_argument("--level", type=float, default=1.0)
    df.add_argument("--anchor", type=float, default=0.0,
                    help="weight of the squared distance from the starting weights (default 0)")
    df.add_argument("--rollouts", nargs="*", default=[], metavar="SET",
                    help="data sets of rolled-out positions (phase-data's race, gammonish, crashed) fitted beside on "
                    "cross-entropy, so the phase nets keep what rollouts taught them")
    df.add_argument("--rollout-weight", type=float, default=1.0)
    df.add_argument("--first", type=count(1), nargs="*", default=None, metavar="N",
                    help="fit only the first N decisions of each data set, one N per set (a data set grows at its "
                    "end: this makes again a fit made when it was smaller)")
    df.add_argument("--holdout", type=float, default=0.1)
    df.add_argument("--seed", type=count(0), default=1)
    df.set_defaults(handler=_train_distill_fit)


def _train_distill_data(args: argparse.Namespace) -> int:
    from ..nn.network import Network, NetworkFileError
    from ..train.distill import DataSetError, build

    writable_file("--data", args.data)
    if not 0.0 <= args.sample <= 1.0:
        raise TrainArgumentError(f"--sample must be between 0 and 1, got {args.sample}")
    try:
        for option, path in (("--pupil", args.pupil), ("--teacher", args.teacher)):
            try:
                Network.load(path)
            except NetworkFileError as error:
                raise TrainArgumentError(f"{option}: {error}") from None
        data = build(args.data, args.decisions, args.pupil, args.teacher, args.seed, args.sample, args.workers,
                     args.plies)
    except DataSetError as error:
        raise TrainArgumentError(str(error)) from None
    print(f"{args.data}: {data['starts'].shape[0]} decisions, {data['boards'].shape[0]} plays labelled")
    return 0


def _train_distill_fit(args: argparse.Namespace) -> int:
    from ..nn.network import NetworkFileError
    from ..train.distill import DataSetError, fit

    writable_file("--output", args.output)
    try:
        net = fit(args.weights, args.data, args.output, args.epochs, args.alpha, args.ranking, args.boost,
                  args.level, seed=args.seed, holdout=args.holdout, anchor=args.anchor, rollouts=args.rollouts,
                  rollout_weight=args.rollout_weight, first=args.first)
    except (NetworkFileError, DataSetError) as error:
        raise TrainArgumentError(str(error)) from None
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
        raise TrainArgumentError(str(error)) from None
    if args.note:
        net.meta["note"] = args.note
    net.save(writable_file("--output", args.output))
    print(f"{len(args.snapshots)} snapshots averaged into {args.output}")
    return 0
