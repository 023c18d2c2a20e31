"""Running play-by-mail commands: every door (the line port, ``POST /pbm``, e-mail) calls :func:`run`.

A command reaches the same matches as the JSON API, through the same match service and
account checks (passwords count towards the same log-in limits); its answer is text: what
happened, then the board. Each client may send so many commands a minute: the line port's and
``POST /pbm``'s by their address, a mail's by its sender (never its relay). An answer names
the registered, confirmed addresses it may be mailed to: only those of accounts the command
proved with their password (or whose own address sent it), so the server cannot be made to
mail anyone else.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from ...diagram import SYMBOL
from ...errors import GammonError
from ...events import MatchEvent, Played, event_from_data
from ...match import Match
from ...narration import RESIGNATION_WORDS, Narrator
from ...notation import pbm as pbm_notation
from ...play import OFF, Play
from ...position import Color
from ..accounts import Account, Accounts, check_email
from ..database import Readers
from ..errors import Forbidden, NotFound, ServerError, TooManyRequests, Unprocessable
from ..limits import Buckets
from ..matches import store
from ..matches.live import LiveMatch, side_name, written
from ..matches.rules import API_MODES, MAIL_MODES, match_words, modes_of, terms
from ..matches.service import Applied, MatchService
from ..matches.store import EventRow
from ..notify import Broadcaster
from ..profiles import toplist
from ..seats import BOT_PREFIX, DEFAULT_BOTS, check_bot
from ..settings import Settings
from .board_text import EKS, OHS, draw
from .language import ALIASES, USAGE, Command, MailCommandError, parse

log = logging.getLogger("gammon.server.pbm")
LIST_LIMIT = 50
#: The service's names of actions that play by mail calls otherwise.
MAIL_WORDS = {"play": "move"}
BOT_REPLY_SECONDS = 30.0  #: how long an answer waits for a bot's reply; past it, the bot's move comes with the next


class Host(Protocol):
    """What a door gives the executor: the services, the settings, the per-client buckets and the mailer."""

    settings: Settings
    readers: Readers
    accounts: Accounts
    service: MatchService
    broadcaster: Broadcaster
    commands: Buckets
    mailer: Any


@dataclass(frozen=True)
class Answer:
    """A command's answer: its text, whether it was done, and where a mail of it may go."""

    text: str
    ok: bool
    recipients: tuple[str, ...] = ()
    limited: bool = False  #: refused by a limit (HTTP 429)


async def run(host: Host, line: str, address: str, sender: str | None = None) -> Answer:
    """Parse and run one command line from ``address`` (the client every limit counts it against;
    ``sender``: the From of a mail); every failure is an answer, never an exception."""
    wait = host.commands.take(address)
    if wait:
        return Answer(f"error: too many commands from you: try again in {int(wait) + 1} seconds", False,
                      limited=True)
    try:
        command = parse(line)
    except MailCommandError as error:
        return Answer(f"error: {error}", False)
    proven: list[Account] = []
    try:
        text = await _execute(host, command, address, proven)
    except TooManyRequests as error:
        return Answer(f"error: {error.message}", False, await _recipients(host, command, proven, sender), True)
    except ServerError as error:
        return Answer(f"error: {error.message}", False, await _recipients(host, command, proven, sender))
    except GammonError as error:
        return Answer(f"error: {error}", False, await _recipients(host, command, proven, sender))
    except Exception:  # a bug must not take the door down: say so, keep the details in the log
        log.exception("play-by-mail command %r failed", command)
        return Answer("error: the server could not run this command; nothing was changed", False)
    return Answer(text, True, await _recipients(host, command, proven, sender))


async def answers(host: Host, text: str, address: str, sender: str | None = None) -> list[Answer]:
    """Each command line of ``text`` run in turn (blank lines skipped; at most the per-request limit)."""
    lines = [line for line in text.splitlines() if line.strip()]
    limit = host.settings.limits.commands_per_request
    results = [await run(host, line, address, sender) for line in lines[:limit]]
    if len(lines) > limit:
        results.append(Answer(f"error: at most {limit} commands are read at a time; {len(lines) - limit} were not",
                              False, limited=True))
    if not results:
        results.append(await run(host, "", address, sender))
    return results


async def _recipients(host: Host, command: Command, proven: list[Account], sender: str | None) -> tuple[str, ...]:
    """Where the answer may be mailed: accounts proven by password, or whose own confirmed address sent it."""
    found: list[str] = []
    for account in proven:
        fresh = await host.accounts.find(account.name)
        if fresh is not None and fresh.email and fresh.email not in found:
            found.append(fresh.email)
    if sender:
        for name in command.accounts:
            named = await host.accounts.find(name)
            if named is not None and named.email and named.email.lower() == sender.lower() \
                    and named.email not in found:
                found.append(named.email)
    return tuple(found)


# -- commands ---------------------------------------------------------------------------------
async def _execute(host: Host, command: Command, address: str, proven: list[Account]) -> str:
    word = command.word
    accounts, service = host.accounts, host.service
    if word == "help":
        return _help(command.args)
    if word == "register":
        account = await accounts.register(command.user, command.password, address)
        return (f"Welcome, {account.name}: your account is open. Give it an address for your answers and turns:\n"
                f"email {account.name} PASSWORD you@example.org")
    if word == "board":
        return await report(host, await service.current(_board(command)))
    if word == "history":
        return await _history(host, await service.current(_board(command)))
    if word == "games":
        return await _games(host, command.user or "")
    if word == "ratings":
        return await _ratings(host, command.args[0])
    if word == "challenge":
        return await _challenge(host, command, address, proven)
    user = await accounts.check(command.user, command.password, address)
    proven.append(user)
    if word == "commit":
        token, shown = await service.new_commitment(user.seat)
        return (f"{user.name}: the server's dice seed for your next challenge is drawn; its SHA-256 is {shown}.\n"
                f"Challenge with your own seed mixed in: challenge {user.name} USER2 PASSWORD -commitment {token} "
                "-seed YOURSEED (within 30 minutes; verify-dice checks the commitment once the match ends).")
    if word == "email":
        return await _email(host, user, command.args[0])
    if word == "confirm":
        confirmed = await accounts.confirm_address(user, command.args[0])
        return f"{user.name}: your answers and turns go to {confirmed} now."
    if word == "mail":
        on = command.args[0] == "on"
        await accounts.set_mail_on_turn(user, on)
        where = f" at {user.email}" if user.email else " once you give an address and confirm it"
        return (f"{user.name}: you will get a mail with the board when it is your turn{where}." if on
                else f"{user.name}: no more mails on your turn; answers to your commands still come.")
    live = await service.current(_board(command))
    if word == "move" and (command.move or "").strip() == "?":
        return _legal_list(live, user)
    if command.move_number is not None:
        number = await move_number(host, live)
        if command.move_number != number:
            raise Unprocessable(_wrong_move_number(live, command.move_number, number))
    start = live.info.next_seq
    try:
        applied = await _act(host, user, live, command)
    except ServerError as error:
        raise type(error)(_in_mail_words(error.message, live, user, command)) from None
    return await _told(host, await _bot_replies(host, applied.live), start, applied.live.color_of(user.id))


def _wrong_move_number(live: LiveMatch, given: int, number: int) -> str:
    """Why a move guarded by ``#given`` was refused, when the board is at move ``number``."""
    board = live.info.id
    if given < number:
        return (f"move {given} of board {board} was played already: the board is at move {number} now, so nothing "
                f"was played (board {board} shows it)")
    return (f"board {board} is at move {number}, not yet at move {given}: nothing was played (the number after # is "
            f"the one the board's last line shows: #{number})")


def _in_mail_words(message: str, live: LiveMatch, user: Account, command: Command) -> str:
    """A refusal of the service told to the player: "you", names, and the command that would do it."""
    color = live.color_of(user.id)
    text = Narrator(live.names, color).personal(message)
    refused, _, allowed = text.partition("; you may now: ")
    if allowed:  # the service's words for what may be done, in the commands of play by mail
        text = f"{refused}; you may now: " + ", ".join(MAIL_WORDS.get(word, word) for word in allowed.split(", "))
    match, info = live.match, live.info
    if color is None or match is None or info.status != "playing" or command.word not in ("double", "roll"):
        return text
    modes = modes_of(info.pbm_modes, side_name(color))
    if modes is not None and not modes.get("manual") and match.to_act == color and match.state.dice is not None:
        board, name = info.id, user.name
        what = "double" if command.word == "double" else "roll"
        text += (f" (manual mode is off, so the server rolls for you when your turn begins. To {what} yourself, "
                 f"turn manual mode on: manual {board} {name} PASSWORD"
                 + (f"; then double {board} {name} PASSWORD before you roll)" if what == "double" else ")"))
    return text


def _legal_list(live: LiveMatch, user: Account) -> str:
    """``move BOARD USER PASSWORD ?``: the legal moves of your roll, and nothing else."""
    match, info = live.match, live.info
    color = live.color_of(user.id)
    if color is None:
        raise Forbidden(f"{user.name} does not play on board {info.id}")
    if info.status != "playing" or match is None:
        raise Unprocessable(f"board {info.id} is {info.status}: nothing can be played")
    dice = match.state.dice
    if match.to_act != color:
        whose = f"{live.names[match.to_act]}'s turn" if match.to_act is not None else "nobody's turn"
        raise Forbidden(f"board {info.id}: it is {whose}, not yours: you have no roll to play")
    if dice is None:
        raise Unprocessable(f"board {info.id}: you have not rolled yet: roll {info.id} {user.name} PASSWORD first")
    return f"Your legal moves with {dice[0]}-{dice[1]}:\n  " + "\n  ".join(_mail_plays(match, color))


def _mail_plays(match: Match, color: Color) -> list[str]:
    return sorted({pbm_notation.format_play(play, color) or "(no move)" for play in match.legal_plays})


def _bot_to_act(live: LiveMatch) -> bool:
    info = live.info
    seat = info.seat(info.to_act_id) if info.status == "playing" and info.to_act_id is not None else None
    return seat is not None and seat.is_bot


async def _bot_replies(host: Host, live: LiveMatch) -> LiveMatch:
    """The board once no bot is to act on it, waiting at most :data:`BOT_REPLY_SECONDS` (bots think in
    the worker pool, :mod:`gammon.server.seats`): a bot's reply comes in the same answer."""
    if not _bot_to_act(live):
        return live
    loop = asyncio.get_running_loop()
    deadline = loop.time() + BOT_REPLY_SECONDS
    with host.broadcaster.watching(live.info.id) as (_, news):
        while True:
            live = await host.service.current(live.info.id)  # after watching began: no news is missed
            left = deadline - loop.time()
            if not _bot_to_act(live) or left <= 0:
                return live
            try:
                await asyncio.wait_for(news.get(), left)
            except TimeoutError:
                pass


async def _told(host: Host, live: LiveMatch, start: int, listener: Color | None) -> str:
    """What happened on the board from event ``start`` on, told to ``listener``, then the board."""
    rows = await host.service.events(live.info.id, start - 1, live.info.next_seq)
    narrator = mail_narrator(live, listener)
    news = [narrator.tell(_event(row)) for row in rows]
    return "\n".join([*news, "", await report(host, live)]) if news else await report(host, live)


def mail_narrator(live: LiveMatch, listener: Color | None = None) -> MailNarrator:
    modes = live.info.pbm_modes or {}
    greedy = [color for color in Color if (modes.get(side_name(color) or "") or {}).get("greedy")]
    return MailNarrator(live.names, listener, greedy=greedy)


class MailNarrator(Narrator):
    """The narrator as play by mail tells: every play in the board's own numbers and the seed's
    syntax, whoever made it (``1-7,12-15``, as the moves are sent), and why a play was made for
    someone (``greedy``: a bear-off using every die; ``forced``: the roll's only play)."""

    def __init__(self, names: Mapping[Color, str], listener: Color | None = None, *,
                 greedy: Collection[Color] = ()) -> None:
        super().__init__(names, listener)
        self.greedy = frozenset(greedy)

    def play_text(self, play: Play, mover: Color) -> str:
        return pbm_notation.format_play(play, mover)

    def automatic_text(self, event: Played, color: Color) -> str:
        bears_off = all(move.target == OFF for move in event.play.moves)
        why = "greedy" if color in self.greedy and bears_off else "forced"
        return f"{why}: {super().automatic_text(event, color)}"


def _board(command: Command) -> int:
    if command.board is None:
        raise MailCommandError(f"{command.word}: expected a board number")
    return command.board


def _event(row: EventRow) -> MatchEvent:
    return event_from_data(row.kind, row.game, row.color, row.data)


async def _act(host: Host, user: Account, live: LiveMatch, command: Command) -> Applied:
    word = command.word
    service, seat, info = host.service, user.seat, live.info
    if word in ("greedy", "manual"):
        return await service.set_mode(seat, info.id, word)
    if word == "accept" and info.status == "invited":
        return await service.accept(seat, info.id, seed=command.args[0] if command.args else None)
    if word == "accept" and command.args:
        raise Unprocessable(f"accept: a seed goes with accepting a challenge only, and board {info.id} is "
                            f"{info.status}: accept {info.id} {user.name} PASSWORD")
    if word == "decline" and info.status == "invited":
        return await service.decline(seat, info.id)
    if info.status != "playing" or live.match is None:
        raise Unprocessable(f"board {info.id} is {info.status}: nothing can be played")
    match = live.match
    state = match.state
    version = info.version
    color = live.color_of(user.id)
    if word == "move":
        if color is None:
            raise Forbidden(f"{user.name} does not play on board {info.id}")
        if match.to_act != color:
            raise Forbidden(f"board {info.id}: it is {live.names[match.to_act] if match.to_act is not None else 'nobody'}'s "
                            "turn, not yours")
        dice = state.dice
        if dice is None:
            raise Unprocessable(f"board {info.id}: you have not rolled yet; roll {info.id} {user.name} PASSWORD "
                                "(in manual mode), or wait for the server to roll for you")
        try:
            play = pbm_notation.parse_play(command.move or "", state.position, dice, color, state.variant)
        except GammonError as error:
            raise Unprocessable(f"{error}\nYour legal moves with {dice[0]}-{dice[1]}:\n  "
                                + "\n  ".join(_mail_plays(match, color))) from None
        return await service.act(seat, info.id, "play", play=str(play), version=version)
    if word == "roll" and state.double_offered:
        word = "take"
    elif word == "accept":
        word = "take" if state.double_offered else "accept"
    elif word == "decline":
        word = "reject"
    elif word == "resign" and state.double_offered and not command.args:
        word = "drop"
    if word == "resign":
        value = {"single": 1, "gammon": 2, "backgammon": 3}[command.args[0]] if command.args else 1
        return await service.act(seat, info.id, "resign", value=value, version=version)
    return await service.act(seat, info.id, word, version=version)


async def _challenge(host: Host, command: Command, address: str, proven: list[Account]) -> str:
    first, second = command.args
    options = dict(command.options)
    length, force = options.pop("length"), bool(options.pop("force"))
    seed, token = options.pop("seed", None), options.pop("commitment", None)
    if (seed is not None or token is not None) and command.password is None:
        raise Forbidden(f"challenge: -seed and -commitment need {first}'s password: challenge {first} {second} "
                        "PASSWORD -commitment TOKEN -seed SEED")
    challenger: Account | None
    if command.password is not None:
        challenger = await host.accounts.check(first, command.password, address)
        proven.append(challenger)
    else:
        challenger = await host.accounts.find(first[:64])
        if force:
            raise Forbidden(f"challenge: -force needs {first}'s password: challenge {first} {second} PASSWORD -force")
    if challenger is None or challenger.is_bot:
        raise NotFound(f"challenge: no user {first!r} (register USER PASSWORD opens an account)")
    if second.startswith(BOT_PREFIX):
        opponent = (await host.accounts.bot(BOT_PREFIX + check_bot(second[len(BOT_PREFIX):], host.settings.external_bots,
                                                                   options.get("variant", "standard")))).seat
    else:
        found = await host.accounts.find(second[:64])
        if found is None or found.is_bot:
            raise Unprocessable(f"opponent: no user {second[:64]!r} (a bot is named bot:PLAYER, e.g. bot:{DEFAULT_BOTS[2]})")
        opponent = found.seat
    if opponent.is_bot and command.password is None:
        raise Forbidden(f"challenge: a match against a bot starts at once, so it needs {challenger.name}'s password: "
                        f"challenge {challenger.name} {opponent.name} PASSWORD")
    modes = {"white": dict(MAIL_MODES), "black": dict(MAIL_MODES)}
    if opponent.is_bot:
        modes["black"] = dict(API_MODES)  # the bot decides its own rolls and doubles
    applied = await host.service.challenge(challenger.seat, opponent, length, options, challenger_first=force,
                                           modes=modes, confirmed=command.password is not None, requester=address,
                                           seed=seed, commitment_token=token)
    info = applied.live.info
    if info.status == "invited":
        first_play = f", {challenger.name} taking the higher die of the first opening roll (-force)" if force else ""
        text = (f"Board {info.id}: {challenger.name} challenges {opponent.name} to "
                f"{terms(info.length, info.options)}{first_play}.\n")
        if not info.challenger_confirmed:
            return text + (f"It was sent without {challenger.name}'s password, so {challenger.name} confirms it first: "
                           f"accept {info.id} {challenger.name} PASSWORD")
        return text + (f"{opponent.name} accepts with: accept {info.id} {opponent.name} PASSWORD\n"
                       f"(or declines with: decline {info.id} {opponent.name} PASSWORD)")
    return await _told(host, await _bot_replies(host, applied.live), 0, applied.live.color_of(challenger.id))


async def _email(host: Host, user: Account, address: str) -> str:
    if address.lower() == "none":
        await host.accounts.forget_address(user)
        return f"{user.name}: your address is removed; no mail will be sent to you."
    if not await give_address(host.accounts, host.mailer, user, address):
        return f"{user.name}: your answers and turns already go to {address}."
    return (f"{user.name}: a code was mailed to {address}; your mail goes there once you confirm it: "
            f"confirm {user.name} PASSWORD CODE")


async def give_address(accounts: Accounts, mailer: Any, account: Account, address: object) -> bool:
    """``account`` gives ``address`` for its mail, by any door: the code that confirms it is mailed
    there, counted against the account (False: it is the account's address already)."""
    if mailer is None:
        raise Unprocessable("email: this server sends no mail, so an address cannot be confirmed")
    mailer.reserve_code(account, check_email(address))
    code = await accounts.request_address(account, address)
    if code is None:
        return False
    mailer.confirmation(address, account.name, code)
    return True


def _help(words: tuple[str, ...]) -> str:
    if words:
        topic = ALIASES.get(words[0], words[0])
        if topic not in USAGE:
            raise MailCommandError(f"help: no command {words[0][:40]!r}; the commands are {', '.join(USAGE)}")
        return USAGE[topic]
    return ("Commands (each may start with 'backgammon'; one a line):\n"
            + "\n".join(f"  {text}" for text in USAGE.values())
            + "\nPoints: eks (X, white on the web) moves up from 1 to 24, ohs (O, black) down from 24 to 1; every "
              "board and every play told is in these numbers.")


# -- what players read ----------------------------------------------------------------------------
async def move_number(host: Host, live: LiveMatch) -> int:
    """The number of the turn now to be played: turns played so far in the match, plus one."""
    info = live.info
    played = await host.readers.run(lambda connection: store.count_plays(connection, info.id, info.next_seq))
    return played + 1


async def report(host: Host, live: LiveMatch) -> str:
    """The board as the seed's server draws it, with the dice, cube, score, modes and whose turn it is."""
    info = live.info
    names = live.names
    if info.status == "invited" or info.status in store.UNPLAYED or live.match is None:
        where = "waiting for " + names[Color.BLACK] + " to accept" if info.status == "invited" else info.status
        return (f"Board {info.id}: {names[Color.WHITE]} challenges {names[Color.BLACK]} to "
                f"{terms(info.length, info.options)} ({where}).")
    match = live.match
    state = match.state
    o, x = names[OHS], names[EKS]
    lines = [f"Board {info.id}: {o} plays O (ohs, from 24 down to 1), {x} plays X (eks, from 1 up to 24); "
             f"{match_words(info.length, info.options.get('variant', 'standard'))}."]
    lines += draw(state.position)
    score = f"Score: {o} {state.score[OHS]}, {x} {state.score[EKS]}"
    if info.length:
        score += f" (to {info.length}" + ("; the Crawford game: no doubling)" if state.crawford else ")")
    lines.append(score + f".  Pips: {o} {state.position.pip_count(OHS)}, {x} {state.position.pip_count(EKS)}.")
    owner = "in the middle" if state.cube_owner is None else f"owned by {names[state.cube_owner]}"
    lines.append(f"Cube: {state.cube}, {owner}.")
    gnubg_id = written(state.gnubg_id)
    if gnubg_id:
        lines.append(f"GNU Backgammon ID: {gnubg_id}")
    if info.pbm_modes:
        for color in (OHS, EKS):
            seat = info.white if color == Color.WHITE else info.black
            if seat.is_bot:
                continue
            modes = info.pbm_modes.get(side_name(color) or "", {})
            lines.append(f"{names[color]}: greedy {'on' if modes.get('greedy') else 'off'}, "
                         f"manual {'on' if modes.get('manual') else 'off'}.")
    if info.status == "finished":
        lines.append(f"The match is over: {info.name_of(info.winner_id)} won.")
        return "\n".join(lines)
    to_act = match.to_act
    number = await move_number(host, live)
    who = names[to_act] if to_act is not None else ""
    if to_act is not None and _bot_to_act(live):
        doing = f"to play {state.dice[0]}-{state.dice[1]}" if state.dice is not None else "to act"
        lines.append(f"Move {number}: {who} ({SYMBOL[to_act]}) {doing}: the bot is thinking; its move comes with your "
                     f"next answer (board {info.id} shows it).")
    elif state.double_offered:
        lines.append(f"Move {number}: {who} is offered the cube at {state.cube * 2}: take (or roll) or drop.")
    elif state.resignation is not None:
        lines.append(f"Move {number}: {who} is offered a resignation ({RESIGNATION_WORDS[state.resignation]}): "
                     f"accept or reject.")
    elif state.dice is not None and to_act is not None:
        lines.append(f"Move {number}: {who} ({SYMBOL[to_act]}) to play {state.dice[0]}-{state.dice[1]}:")
        lines.append(f"  move {info.id} {who} PASSWORD YOURMOVE#{number}")
    else:
        lines.append(f"Move {number}: {who} to roll (roll {info.id} {who} PASSWORD"
                     + (", or double" if match.can_double() else "") + ").")
    return "\n".join(lines)


async def _history(host: Host, live: LiveMatch) -> str:
    rows = await host.service.events(live.info.id, -1, live.info.next_seq)
    narrator = mail_narrator(live)
    lines = []
    for row in rows:
        try:
            sentence = narrator.tell(_event(row))
        except (GammonError, TypeError, ValueError):
            sentence = row.description
        lines.append(f"{row.seq:>4}  {sentence}")
    return f"Board {live.info.id}, {len(rows)} events:\n" + "\n".join(lines)


async def _games(host: Host, name: str) -> str:
    user = await host.accounts.find(name[:64])
    if user is None:
        raise NotFound(f"games: no user {name!r}")
    rows = await host.readers.run(lambda connection: store.list_matches(connection, user.id, None, LIST_LIMIT))
    if not rows:
        return f"{user.name} has no boards: challenge {user.name} OPPONENT PASSWORD starts one."
    lines = [f"Boards of {user.name}:"]
    for info in rows:
        other = info.black if info.white.id == user.id else info.white
        mine, theirs = (info.score_white, info.score_black) if info.white.id == user.id else \
            (info.score_black, info.score_white)
        if info.status == "playing":
            state = "your turn" if info.to_act_id == user.id else f"{other.name}'s turn"
        elif info.status == "finished":
            state = "won" if info.winner_id == user.id else "lost"
        else:
            state = info.status
        lines.append(f"  Board {info.id}: against {other.name}, {match_words(info.length)}, {mine}-{theirs}, {state}")
    return "\n".join(lines)


async def _ratings(host: Host, period: str) -> str:
    provisional = host.settings.limits.provisional_matches
    chosen: Literal["all", "week"] = "all" if period == "all" else "week"
    ranked = await host.readers.run(lambda connection: toplist(connection, chosen, LIST_LIMIT, provisional))
    if period == "all":
        lines = [f"{p['rank']:>3}. {p['name']:<24} {p['rating']:8.2f}  experience {p['experience']}" for p in ranked]
        return "Top players of all time:\n" + ("\n".join(lines) if lines else "  nobody has finished a rated match yet")
    lines = [f"{p['rank']:>3}. {p['name']:<24} {p['gained']:+8.2f}  won {p['won']} of {p['matches']}" for p in ranked]
    return "Top players of the last 7 days:\n" + ("\n".join(lines) if lines else "  no rated match in the last 7 days")
