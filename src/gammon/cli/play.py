"""``gammon play``: a game or match in the terminal, you (white) against a bot.

The loop only reads commands and reports; every rule is the :class:`~gammon.match.Match`'s,
so a bad command gets the match's own error message and the prompt again. The opponent is
pluggable (:class:`Opponent`); the default plays random legal moves, never doubles and
takes every double.
"""

from __future__ import annotations

import argparse
import random
import re
from collections.abc import Callable
from dataclasses import dataclass

from .. import diagram
from ..dice import SeededDice
from ..errors import GammonError, IllegalActionError
from ..match import Match
from ..notation import whole_number
from ..players import Player, load_player
from ..players.decisions import accepts_resignation, takes, wants_double
from ..evaluation import Response
from ..play import BAR, OFF, LegalPlays, Play
from ..position import Color
from ..state import GameState, MAX_MATCH_LENGTH, Resignation

Chooser = Callable[[GameState, LegalPlays], Play]
#: Who gives cube hints in the terminal game.
CUBE_HINT_PLAYER = "nn:2"

HELP = """\
Commands (Enter rolls the dice, or finishes a complete play):
  8/5 6/5        a whole play in move text (also 24/18*, bar/22, 6/off, 8/5(2))
  13/8 or 13 8   one checker (13/8/5 for one checker over two dice); 6 6 bears off
                 from the 6-point; with a checker on the bar, 22 enters it on 22
  u              undo the last checker move      l    list the legal plays
  #N             make legal play number N        d    double
  t / take       take a double                   p / drop   drop a double
  r [g|b]        resign a single game (g: gammon, b: backgammon)
  ch             cube hint: double, take or pass (before rolling or when doubled)
  pips, score, cube, dice, turn, e (bar and borne-off counts), board
  h / ?          this help                       q    quit"""


@dataclass
class Opponent:
    """A bot: how it plays a roll, and its cube and resignation decisions."""

    choose: Chooser
    double: Callable[[GameState], bool] = lambda state: False
    take: Callable[[GameState], bool] = lambda state: True
    accept: Callable[[GameState], bool] = lambda state: True
    name: str = "bot"


def random_opponent(seed: int | None = None) -> Opponent:
    """Random legal plays; never doubles, takes every double, accepts every resignation."""
    rng = random.Random(seed)
    return Opponent(choose=lambda state, legal: legal[rng.randrange(len(legal))], name="random bot")


def player_opponent(player: Player) -> Opponent:
    """An engine player as the opponent: its plays, cube decisions and resignation answers
    all come from its cubeful search at its own depth (score and cube included), decided as
    every host decides a bot's turn (:mod:`gammon.players.decisions`)."""
    return Opponent(choose=player,
                    double=lambda state: wants_double(player, state),
                    take=lambda state: takes(player, state) is not Response.PASS,
                    accept=lambda state: accepts_resignation(player, state), name=f"{player.name} bot")


class _Quit(Exception):
    pass


_PAIR = re.compile(r"^([0-9]{1,2}|bar)\s+([0-9]{1,2}|off)$")
_POINT = re.compile(r"^[0-9]{1,2}$")


class _Session:
    def __init__(self, match: Match, opponent: Opponent, read: Callable[[str], str],
                 write: Callable[[str], None], plain: bool, human: Color) -> None:
        self.match, self.bot, self.read, self.write = match, opponent, read, write
        self.hint_player: Player | None = None
        self.plain, self.human = plain, human

    # -- the loop -----------------------------------------------------------------------------
    def run(self) -> None:
        match = self.match
        while True:
            if match.game_over:
                if not self.game_over():
                    return
            elif match.to_act is None:
                hi, lo = match.roll()
                winner = match.state.position.turn
                self.write(f"Opening roll: {self.who(winner)} {hi}, {self.who(winner.other)} {lo}. "
                           f"{self.who(winner).capitalize()} {self.verb(winner, 'play')} {hi}-{lo}.")
                if winner == self.human:
                    self.show()
            elif match.to_act == self.human:
                self.human_turn()
            else:
                self.bot_turn()

    def game_over(self) -> bool:
        """Report the game; start the next one. False when the match is over."""
        match = self.match
        result = match.result
        if result is not None:
            self.write(f"Game {match.game_number}: {self.who(result.winner)} {self.verb(result.winner, 'win')} "
                       f"{result.points} point{'s' if result.points != 1 else ''} ({result.detail}).")
        self.write(self.score_text())
        if match.is_over:
            self.write(f"{self.who(match.winner).capitalize()} {self.verb(match.winner, 'win')} the match.")  # type: ignore[arg-type]
            return False
        if match.length == 0 and self.read("Enter for another game, q to quit> ").strip().lower() in ("q", "quit"):
            self.quit()
        match.new_game()
        self.write(f"Game {match.game_number}.")
        return True

    def bot_turn(self) -> None:
        match, bot = self.match, self.bot
        state = match.state
        if state.double_offered:
            if bot.take(state):
                match.take()
                self.write(f"The {bot.name} takes. The cube is at {match.state.cube}.")
            else:
                match.drop()
                self.write(f"The {bot.name} drops.")
        elif state.resignation is not None:
            if bot.accept(state):
                match.accept()
            else:
                match.reject()
                self.write(f"The {bot.name} rejects your resignation.")
        elif state.dice is None and match.can_double() and bot.double(state):
            match.double()
            self.write(f"The {bot.name} doubles to {state.cube * 2}.")
        else:
            dice = state.dice or match.roll()
            play = bot.choose(match.state, match.legal_plays)
            match.play(play)
            self.write(f"The {bot.name} rolls {dice[0]}-{dice[1]} and "
                       + (f"plays {play}." if play.moves else "cannot move."))
            if not match.game_over:
                self.show()

    def human_turn(self) -> None:
        match = self.match
        state = match.state
        if state.double_offered:
            prompt = f"The {self.bot.name} doubles to {state.cube * 2}. Take or drop (t/p)> "
        elif state.resignation is not None:
            prompt = f"The {self.bot.name} resigns a {state.resignation.name.lower()}. Accept or reject (a/n)> "
        elif state.dice is None:
            prompt = "Your roll: Enter to roll" + (", d to double" if match.can_double() else "") + "> "
        elif self.complete():
            prompt = "Play complete: Enter to finish it, u to undo> "
        else:
            prompt = f"You rolled {state.dice[0]}-{state.dice[1]}; to play: {self.dice_left()}> "
        line = self.read(prompt)
        try:
            self.command(line.strip().lower())
        except GammonError as error:
            self.write(f"Not possible: {error}")

    # -- commands -----------------------------------------------------------------------------
    def command(self, text: str) -> None:
        match = self.match
        state = match.state
        word, _, rest = text.partition(" ")
        if text in ("q", "quit", "exit"):
            self.quit()
        elif text in ("h", "?", "help"):
            self.write(HELP)
        elif text in ("b", "board"):
            self.show()
        elif text in ("pips", "score", "cube", "dice", "c", "turn", "e", "status"):
            self.write(self.status(text))
        elif text in ("ch", "cube hint", "hint cube"):
            self.write(self.cube_hint(state))
        elif text in ("l", "list", "moves"):
            self.write(self.legal_list())
        elif text == "":
            self.enter(state)
        elif text in ("u", "undo"):
            undone = match.undo(self.human)
            self.write("Undone: " + " ".join(map(str, undone)) + f". To play: {self.dice_left()}.")
        elif text in ("d", "double"):
            match.double(self.human)
            self.write(f"You double to {state.cube * 2}.")
        elif text in ("t", "take", "y", "yes"):
            match.take(self.human)
            self.write(f"You take. The cube is at {match.state.cube}.")
        elif text in ("p", "drop", "n", "no", "pass"):
            if state.resignation is not None:
                match.reject(self.human)
                self.write("You reject the resignation.")
            else:
                match.drop(self.human)
        elif text in ("a", "accept"):
            match.accept(self.human)
        elif text in ("reject",):
            match.reject(self.human)
        elif word in ("r", "resign"):
            kind = {"": Resignation.SINGLE, "s": Resignation.SINGLE, "single": Resignation.SINGLE,
                    "g": Resignation.GAMMON, "gammon": Resignation.GAMMON,
                    "b": Resignation.BACKGAMMON, "backgammon": Resignation.BACKGAMMON}.get(rest.strip())
            if kind is None:
                raise IllegalActionError(f"resign what? {rest!r}: say r, r g (gammon) or r b (backgammon)")
            match.resign(kind, self.human)
            self.write(f"You offer to resign a {kind.name.lower()}.")
        elif text.startswith("#"):
            self.choose_numbered(text[1:])
        else:
            self.moves(text)

    def cube_hint(self, state: GameState) -> str:
        """The cube advice of the hint player: for the doubler, or for you facing a double."""
        from .cube import decision_for, describe

        if state.dice is not None:
            return "The cube is decided before rolling; ask again at your next turn."
        if self.hint_player is None:
            self.hint_player = load_player(CUBE_HINT_PLAYER)
        context, decision = decision_for(state, self.hint_player)
        return describe(state, context, decision, self.hint_player)

    def enter(self, state: GameState) -> None:
        """Enter rolls, or finishes a complete play."""
        match = self.match
        if state.dice is None and not state.double_offered and state.resignation is None:
            d1, d2 = match.roll(self.human)
            if match.legal_plays.is_pass():
                match.commit(self.human)
                self.write(f"You rolled {d1}-{d2} and cannot move.")
            else:
                self.write(f"You rolled {d1}-{d2}.")
        elif state.dice is not None and self.complete():
            self.finished(match.commit(self.human))
        elif state.dice is not None:
            self.write(f"Enter your moves first (to play: {self.dice_left()}), or h for help.")
        else:
            self.write("Answer first (h for help).")

    def moves(self, text: str) -> None:
        """A whole play in move text, or checker moves one by one."""
        match = self.match
        if match.state.dice is None:
            raise IllegalActionError(f"{text!r}: roll first (Enter)")
        whole_error: GammonError | None = None
        if not match.pending_moves:
            try:
                self.finished(match.play(text, self.human))
                return
            except GammonError as error:
                whole_error = error
        steps = self.parse_steps(text)
        if steps is None:
            raise whole_error or IllegalActionError(f"{text!r} is not a move: try 13/8, 13 8 or h for help")
        made = 0
        try:
            for source, target in steps:
                match.move(source, target, self.human)
                made += 1
        except GammonError as error:
            for _ in range(made):
                match.undo(self.human)
            raise (whole_error if whole_error is not None and len(steps) > 1 else error) from None
        self.show()
        if not self.complete():
            self.write(f"To play: {self.dice_left()}.")

    def parse_steps(self, text: str) -> list[tuple[int, int]] | None:
        """Checker moves as (source, target) in the player's numbering, or None if not that form."""
        pair = _PAIR.match(text)
        if pair:
            source, target = (_point(p) for p in pair.groups())
            # Selecting the same point twice bears a checker off (the founding rules' way).
            return [(source, OFF if target == source else target)]
        if _POINT.match(text):
            if self.match.current_position.bar(self.human):
                return [(BAR, int(text))]
            raise IllegalActionError(f"{text!r}: say where from and where to, e.g. {text}/{max(int(text) - 5, 0)} "
                                     f"or {text} {max(int(text) - 5, 0)}")
        steps: list[tuple[int, int]] = []
        for token in text.replace(",", " ").split():
            points = token.rstrip("*").replace("*", "").split("/")
            if len(points) < 2 or not all(re.fullmatch(r"[0-9]{1,2}|bar|off", p) for p in points):
                return None
            numbers = [_point(p) for p in points]
            steps.extend(zip(numbers, numbers[1:]))
        return steps or None

    def choose_numbered(self, text: str) -> None:
        legal = self.match.legal_plays
        number = whole_number(text, 1, len(legal))
        if number is None:
            raise IllegalActionError(f"#{text}: choose a play number 1-{len(legal)} (l lists them)")
        self.finished(self.match.play(legal[number - 1], self.human))

    def finished(self, play: Play) -> None:
        self.write(f"You play {play}." if play.moves else "You cannot move.")

    # -- reports ------------------------------------------------------------------------------
    def complete(self) -> bool:
        match = self.match
        return match.state.dice is not None and len(match.pending_moves) == len(match.legal_plays[0].moves)

    def dice_left(self) -> str:
        return " ".join(map(str, self.match.remaining_dice)) or "nothing"

    def legal_list(self) -> str:
        legal = self.match.legal_plays
        return "\n".join(f"#{i + 1:<3} {play or 'no move'}" for i, play in enumerate(legal))

    def status(self, what: str) -> str:
        match = self.match
        state = match.state
        position = match.current_position
        you, bot = self.human, self.human.other
        if what == "pips":
            return f"Pips: you {position.pip_count(you)}, {self.bot.name} {position.pip_count(bot)}."
        if what == "score":
            return self.score_text()
        if what == "cube":
            if match.length == 1:
                return "No doubling cube in a 1-point match."
            owner = "centred" if state.cube_owner is None else f"owned by {self.who(state.cube_owner)}"
            crawford = " Crawford game: no doubling." if state.crawford else ""
            return f"Cube: {state.cube}, {owner}.{crawford}"
        if what in ("dice", "c"):
            return f"To play: {self.dice_left()}." if state.dice else "The dice have not been rolled."
        if what == "turn":
            return f"{self.who(match.to_act).capitalize()} to act." if match.to_act is not None else "No one to act."
        return (f"Bar: you {position.bar(you)}, {self.bot.name} {position.bar(bot)}. "
                f"Borne off: you {position.borne_off(you)}, {self.bot.name} {position.borne_off(bot)}.")

    def score_text(self) -> str:
        match = self.match
        you, bot = match.score[self.human], match.score[self.human.other]
        if match.length == 0:
            return f"Money play: you {you}, {self.bot.name} {bot}."
        state = match.state
        extra = ", Crawford game" if state.crawford and not match.game_over else ""
        return f"Score: you {you}, {self.bot.name} {bot} in a {match.length}-point match{extra}."

    def show(self) -> None:
        state = self.match.state
        if self.match.pending_moves:
            state = state.replace(position=self.match.current_position)
        self.write(diagram.render(state, plain=self.plain, perspective=self.human))

    def who(self, color: Color) -> str:
        return "you" if color == self.human else f"the {self.bot.name}"

    def verb(self, color: Color, verb: str) -> str:
        return verb if color == self.human else verb + "s"

    def quit(self) -> None:
        raise _Quit


def _point(text: str) -> int:
    return BAR if text == "bar" else OFF if text == "off" else int(text)


def run(match: Match, opponent: Opponent, *, read: Callable[[str], str] = input,
        write: Callable[[str], None] = print, plain: bool = False, human: Color = Color.WHITE) -> int:
    """Play ``match`` in the terminal; returns the exit status. End of input ends the game quietly."""
    try:
        _Session(match, opponent, read, write, plain, human).run()
    except EOFError:
        write("")
    except _Quit:
        write("Bye.")
    except GammonError as error:  # e.g. fixed or typed dice that ran out
        write(f"Game stopped: {error}")
        return 1
    return 0


def _match_length(text: str) -> int:
    value = whole_number(text, 0, MAX_MATCH_LENGTH)
    if value is None:
        raise argparse.ArgumentTypeError(f"match length must be 1-{MAX_MATCH_LENGTH}, or 0 for money play: {text!r}")
    return value


def _command(args: argparse.Namespace) -> int:
    money = args.match == 0
    if (args.jacoby or args.beavers) and not money:
        raise IllegalActionError("--jacoby and --beavers are money-play rules: use them with --match 0")
    match = Match(args.match, dice=SeededDice(args.seed), jacoby=args.jacoby, beavers=args.beavers)
    bot_seed = None if args.seed is None else args.seed + 1
    if args.bot == "random":
        opponent = random_opponent(bot_seed)
    else:
        opponent = player_opponent(load_player(args.bot, seed=bot_seed or 0))
    return run(match, opponent, plain=args.plain)


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("play", help="play backgammon in the terminal against a bot",
                                   description="Play a game or match in the terminal against a bot (random legal moves by default).")
    parser.add_argument("--match", type=_match_length, default=1, metavar="N",
                        help="match length 1-25, or 0 for money play (default 1)")
    parser.add_argument("--seed", type=int, default=None, help="seed the dice and the bot, for a repeatable game")
    parser.add_argument("--bot", default="random", metavar="NAME[:PLY]",
                        help="the opponent: random (default), simple, pubeval, pubeval:1, ... (see gammon hint)")
    parser.add_argument("--plain", action="store_true", help="describe the board in words (for screen readers)")
    parser.add_argument("--jacoby", action="store_true", help="money play: the Jacoby rule")
    parser.add_argument("--beavers", action="store_true", help="money play: allow beavers")
    parser.set_defaults(handler=_command)
