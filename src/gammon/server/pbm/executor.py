"""Running play-by-mail commands: every door (the line port, ``POST /pbm``, e-mail) calls :func:`run`.

A command reaches the same matches as the JSON API, through the same match service and
account checks (passwords count towards the same log-in limits); its answer is text: what
happened, then the board. Each address may send so many commands a minute. An answer names
the registered, confirmed addresses it may be mailed to: only those of accounts the command
proved with their password (or whose own address sent it), so the server cannot be made to
mail anyone else.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from ...errors import GammonError
from ...events import MatchEvent, event_from_data
from ...narration import RESIGNATION_WORDS, Narrator
from ...notation import pbm as pbm_notation
from ...position import Color
from ..accounts import Account, Accounts
from ..database import Readers
from ..errors import Forbidden, NotFound, ServerError, TooManyRequests, Unprocessable
from ..limits import Buckets
from ..matches import store
from ..matches.live import LiveMatch, side_name, written
from ..matches.rules import API_MODES, MAIL_MODES
from ..matches.service import Applied, MatchService
from ..matches.store import EventRow
from ..profiles import toplist
from ..seats import BOT_PREFIX, DEFAULT_BOTS, check_bot
from ..settings import Settings
from .board_text import draw, frame_color
from .language import ALIASES, USAGE, Command, MailCommandError, parse

log = logging.getLogger("gammon.server.pbm")
LIST_LIMIT = 50


class Host(Protocol):
    """What a door gives the executor: the services, the settings, the per-address buckets and the mailer."""

    settings: Settings
    readers: Readers
    accounts: Accounts
    service: MatchService
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
    """Parse and run one command line from ``address`` (``sender``: the From of a mail); every
    failure is an answer, never an exception."""
    wait = host.commands.take(address)
    if wait:
        return Answer(f"error: too many commands from your address: try again in {int(wait) + 1} seconds", False,
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
    if command.move_number is not None:
        number = await move_number(host, live)
        if command.move_number != number:
            when = "an earlier" if command.move_number < number else "a later"
            raise Unprocessable(f"this is move {number} of board {live.info.id}, not move {command.move_number}: "
                                f"the move was meant for {when} turn, so nothing was played")
    applied = await _act(host, user, live, command)
    color = applied.live.color_of(user.id)
    narrator = Narrator(applied.live.names, color)
    news = [narrator.tell(_event(EventRow.of(row))) for row in applied.rows]
    return "\n".join([*news, "", await report(host, applied.live)])


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
        return await service.accept(seat, info.id)
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
        frame = frame_color(color, await ohs_of(host, live))
        try:
            play = pbm_notation.parse_play(command.move or "", state.position, dice, frame)
        except GammonError as error:
            legal = sorted({pbm_notation.format_play(p, frame) or "(no move)" for p in match.legal_plays})
            raise Unprocessable(f"{error}\nYour legal moves with {dice[0]}-{dice[1]}:\n  "
                                + "\n  ".join(legal)) from None
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
        opponent = (await host.accounts.bot(BOT_PREFIX + check_bot(second[len(BOT_PREFIX):],
                                                                   host.settings.external_bots))).seat
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
                                           modes=modes, confirmed=command.password is not None)
    info = applied.live.info
    if info.status == "invited":
        first_play = f", {challenger.name} taking the higher die of the first opening roll (-force)" if force else ""
        text = f"Board {info.id}: {challenger.name} challenges {opponent.name} to {_length(info.length)}{first_play}.\n"
        if not info.challenger_confirmed:
            return text + (f"It was sent without {challenger.name}'s password, so {challenger.name} confirms it first: "
                           f"accept {info.id} {challenger.name} PASSWORD")
        return text + (f"{opponent.name} accepts with: accept {info.id} {opponent.name} PASSWORD\n"
                       f"(or declines with: decline {info.id} {opponent.name} PASSWORD)")
    return await report(host, applied.live)


async def _email(host: Host, user: Account, address: str) -> str:
    if address.lower() == "none":
        await host.accounts.forget_address(user)
        return f"{user.name}: your address is removed; no mail will be sent to you."
    if host.mailer is None:
        raise Unprocessable("email: this server sends no mail, so an address cannot be confirmed")
    code = await host.accounts.request_address(user, address)
    if code is None:
        return f"{user.name}: your answers and turns already go to {address}."
    host.mailer.confirmation(address, user.name, code)
    return (f"{user.name}: a code was mailed to {address}; your mail goes there once you confirm it: "
            f"confirm {user.name} PASSWORD CODE")


def _help(words: tuple[str, ...]) -> str:
    if words:
        topic = ALIASES.get(words[0], words[0])
        if topic not in USAGE:
            raise MailCommandError(f"help: no command {words[0][:40]!r}; the commands are {', '.join(USAGE)}")
        return USAGE[topic]
    return ("Commands (each may start with 'backgammon'; one a line):\n"
            + "\n".join(f"  {text}" for text in USAGE.values())
            + "\nPoints: eks (X) moves up from 1 to 24, ohs (O) down from 24 to 1; ohs moves first.")


# -- what players read ----------------------------------------------------------------------------
async def ohs_of(host: Host, live: LiveMatch) -> Color:
    """Ohs: whoever moved first in the match's first game (white until the opening roll)."""
    opener = await host.readers.run(lambda connection: store.first_opener(connection, live.info.id))
    return Color.BLACK if opener == "black" else Color.WHITE


async def move_number(host: Host, live: LiveMatch) -> int:
    """The number of the turn now to be played: turns played so far in the match, plus one."""
    info = live.info
    played = await host.readers.run(lambda connection: store.count_plays(connection, info.id, info.next_seq))
    return played + 1


def _length(length: int) -> str:
    return f"a {length}-point match" if length else "a money game"


async def report(host: Host, live: LiveMatch) -> str:
    """The board as the seed's server draws it, with the dice, cube, score, modes and whose turn it is."""
    info = live.info
    names = live.names
    if info.status == "invited" or info.status in store.UNPLAYED or live.match is None:
        where = "waiting for " + names[Color.BLACK] + " to accept" if info.status == "invited" else info.status
        return f"Board {info.id}: {names[Color.WHITE]} challenges {names[Color.BLACK]} to {_length(info.length)} ({where})."
    ohs = await ohs_of(host, live)
    match = live.match
    state = match.state
    o, x = names[ohs], names[ohs.other]
    lines = [f"Board {info.id}: {o} is ohs (O, moves 24 to 1), {x} is eks (X, moves 1 to 24); {_length(info.length)}."]
    lines += draw(state.position, ohs)
    score = f"Score: {o} {state.score[ohs]}, {x} {state.score[ohs.other]}"
    if info.length:
        score += f" (to {info.length}" + ("; Crawford game)" if state.crawford else ")")
    lines.append(score + f".  Pips: {o} {state.position.pip_count(ohs)}, {x} {state.position.pip_count(ohs.other)}.")
    owner = "in the middle" if state.cube_owner is None else f"owned by {names[state.cube_owner]}"
    lines.append(f"Cube: {state.cube}, {owner}.")
    gnubg_id = written(state.gnubg_id)
    if gnubg_id:
        lines.append(f"GNU Backgammon ID: {gnubg_id}")
    if info.pbm_modes:
        for color in (ohs, ohs.other):
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
    if state.double_offered:
        lines.append(f"Move {number}: {who} is offered the cube at {state.cube * 2}: take (or roll) or drop.")
    elif state.resignation is not None:
        lines.append(f"Move {number}: {who} is offered a resignation ({RESIGNATION_WORDS[state.resignation]}): "
                     f"accept or reject.")
    elif state.dice is not None:
        lines.append(f"Move {number}: {who} ({'O' if to_act == ohs else 'X'}) to play {state.dice[0]}-{state.dice[1]}:")
        lines.append(f"  move {info.id} {who} PASSWORD YOURMOVE#{number}")
    else:
        lines.append(f"Move {number}: {who} to roll (roll {info.id} {who} PASSWORD"
                     + (", or double" if match.can_double() else "") + ").")
    return "\n".join(lines)


async def _history(host: Host, live: LiveMatch) -> str:
    rows = await host.service.events(live.info.id, -1, live.info.next_seq)
    narrator = Narrator(live.names)
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
        lines.append(f"  Board {info.id}: against {other.name}, {_length(info.length)}, {mine}-{theirs}, {state}")
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
