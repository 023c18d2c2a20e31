"""Running play-by-mail commands: every door (the line port, ``POST /pbm``, e-mail) calls :func:`run`.

A command reaches the same matches as the JSON API through :mod:`gammon.server.games`, in
one transaction; its answer is text: what happened, then the board. Passwords are checked
with the account's argon2id hash and wrong ones count towards the log-in rate limit.
"""

from __future__ import annotations

import contextlib
import logging
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Protocol

from sqlalchemy import func, or_, select
from sqlalchemy.orm import Session as DbSession

from ...errors import GammonError
from ...notation import pbm as pbm_notation
from ...position import Color
from .. import accounts, games
from ..bots import find_opponent
from ..errors import Forbidden, NotFound, ServerError, Unprocessable
from ..models import Event, MatchRow, User
from ..toplist import toplist
from .board_text import draw, frame_color
from .language import ALIASES, USAGE, Command, CommandError, parse

log = logging.getLogger("gammon.server.pbm")
EMAIL = re.compile(r"^[^@\s<>,;\"]{1,64}@[A-Za-z0-9.-]{1,190}$")
LIST_LIMIT = 50


class Host(Protocol):
    """What a door gives the executor: database sessions, the bots offered, and who to tell of a change."""

    def db(self, write: bool = False) -> contextlib.AbstractContextManager[DbSession]: ...

    def after_action(self, match_id: int, bot_to_act: bool) -> None: ...

    @property
    def external_bots(self) -> tuple[str, ...]: ...


@dataclass(frozen=True)
class Answer:
    """A command's answer: its text, whether it was done, and where a mail of it may go.

    ``recipients`` are the registered addresses of the accounts the command names (looked up
    in the command's own transaction); a From header never adds one.
    """

    text: str
    ok: bool
    recipients: tuple[str, ...] = ()


def run(host: Host, line: str) -> Answer:
    """Parse and run one command line; every failure is an answer, never an exception."""
    try:
        command = parse(line)
    except CommandError as error:
        return Answer(f"error: {error}", False)
    changed: list[tuple[int, bool]] = []
    recipients: tuple[str, ...] = ()
    try:
        write = command.word not in ("help", "board", "history", "games", "ratings")
        with host.db(write=write) as db:
            recipients = _addresses(db, command)
            text = _execute(host, db, command, changed)
    except ServerError as error:
        return Answer(f"error: {error.message}", False, recipients)
    except GammonError as error:
        return Answer(f"error: {error}", False, recipients)
    except Exception:  # a bug must not take the door down: say so, keep the details in the log
        log.exception("play-by-mail command %r failed", command)
        return Answer("error: the server could not run this command; nothing was changed", False, recipients)
    for match_id, bot_to_act in changed:
        host.after_action(match_id, bot_to_act)
    return Answer(text, True, recipients)


def _addresses(db: DbSession, command: Command) -> tuple[str, ...]:
    found = []
    for name in command.accounts:
        user = accounts.find_user(db, name[:64])
        if user is not None and user.email and user.email not in found:
            found.append(user.email)
    return tuple(found)


# -- commands ---------------------------------------------------------------------------------
def _execute(host: Host, db: DbSession, command: Command, changed: list[tuple[int, bool]]) -> str:
    word = command.word
    if word == "help":
        return _help(command.args)
    if word == "register":
        user = accounts.register(db, command.user, command.password)
        return (f"Welcome, {user.name}: your account is open. Give it an address for your answers and turns:\n"
                f"email {user.name} PASSWORD you@example.org")
    if word == "board":
        row = games.get_row(db, command.board)  # type: ignore[arg-type]
        return report(db, row)
    if word == "history":
        return _history(db, games.get_row(db, command.board))  # type: ignore[arg-type]
    if word == "games":
        return _games(db, command.user)  # type: ignore[arg-type]
    if word == "ratings":
        return _ratings(db, command.args[0])
    if word == "challenge":
        return _challenge(host, db, command, changed)
    user = accounts.authenticate(db, command.user, command.password)
    if word == "email":
        return _email(user, command.args[0])
    if word == "mail":
        user.mail_on_turn = command.args[0] == "on"
        where = f" at {user.email}" if user.email else " once you give an address (email USER PASSWORD ADDRESS)"
        return (f"{user.name}: you will get a mail with the board when it is your turn{where}." if user.mail_on_turn
                else f"{user.name}: no more mails on your turn; answers to your commands still come.")
    row = games.get_row(db, command.board, lock=True)  # type: ignore[arg-type]
    before = row.next_seq
    if command.move_number is not None:
        number = move_number(db, row)
        if command.move_number != number:
            raise Unprocessable(f"this is move {number} of board {row.id}, not move {command.move_number}: "
                                f"the move was meant for an earlier turn, so nothing was played")
    outcome = _act(db, user, row, command)
    changed.append((row.id, outcome.bot_to_act))
    news = [item["description"] for item in games.events_between(db, row.id, before - 1, row.next_seq)]
    return "\n".join([*news, "", report(db, row)])


def _act(db: DbSession, user: User, row: MatchRow, command: Command) -> games.Outcome:
    word = command.word
    if word in ("greedy", "manual"):
        return games.set_mode(db, user, row, word)
    if word == "accept" and row.status == "invited":
        return games.accept(db, user, row)
    if word == "decline" and row.status == "invited":
        games.decline(db, user, row)
        return games.Outcome(row, None)
    if row.status != "playing":
        raise Unprocessable(f"board {row.id} is {row.status}: nothing can be played")
    match = games.load(db, row)
    state = match.state
    version = row.version
    games._cache.put(row.id, row.version, match)
    if word == "move":
        if state.dice is None:
            raise Unprocessable(f"board {row.id}: you have not rolled yet; roll BOARD USER PASSWORD (or wait for "
                                f"your opponent's move)" if match.to_act == games.user_color(row, user) else
                                f"board {row.id}: it is not your turn")
        color = games.user_color(row, user)
        if match.to_act != color:
            raise Forbidden(f"board {row.id}: it is {_name(row, match.to_act)}'s turn, not yours")
        frame = frame_color(color, ohs_of(db, row))
        try:
            play = pbm_notation.parse_play(command.move or "", state.position, state.dice, frame)  # type: ignore[arg-type]
        except GammonError as error:
            legal = sorted({pbm_notation.format_play(p, frame) or "(no move)" for p in match.legal_plays})
            raise Unprocessable(f"{error}\nYour legal moves with {state.dice[0]}-{state.dice[1]}:\n  "
                                + "\n  ".join(legal)) from None
        return games.act(db, user, row, "play", play=str(play), version=version)
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
        return games.act(db, user, row, "resign", value=value, version=version)
    return games.act(db, user, row, word, version=version)


def _challenge(host: Host, db: DbSession, command: Command, changed: list[tuple[int, bool]]) -> str:
    first, second = command.args
    challenger = accounts.find_user(db, first[:64])
    if command.password is not None:
        challenger = accounts.authenticate(db, first, command.password)
    if challenger is None or challenger.is_bot:
        raise NotFound(f"challenge: no user {first!r} (register USER PASSWORD opens an account)")
    opponent = find_opponent(db, second, host.external_bots)
    if opponent.is_bot and command.password is None:
        raise Forbidden(f"challenge: a match against a bot starts at once, so it needs {challenger.name}'s password: "
                        f"challenge {challenger.name} {opponent.name} PASSWORD")
    options = dict(command.options)
    length, force = options.pop("length"), options.pop("force")
    modes = {"white": dict(games.DEFAULT_MODES), "black": dict(games.DEFAULT_MODES)}
    if opponent.is_bot:
        modes["black"] = dict(games.API_MODES)  # the bot decides its own rolls and doubles
    outcome = games.challenge(db, challenger, opponent, length, options, challenger_first=bool(force), modes=modes)
    row = outcome.row
    changed.append((row.id, outcome.bot_to_act))
    if row.status == "invited":
        return (f"Board {row.id}: {challenger.name} challenges {opponent.name} to {_length(row)}.\n"
                f"{opponent.name} accepts with: accept {row.id} {opponent.name} PASSWORD\n"
                f"(or declines with: decline {row.id} {opponent.name} PASSWORD)")
    return report(db, row)


def _email(user: User, address: str) -> str:
    if address.lower() == "none":
        user.email = None
        return f"{user.name}: your address is removed; no mail will be sent to you."
    if len(address) > 254 or not EMAIL.match(address):
        raise Unprocessable(f"email: expected an address such as you@example.org, got {address[:60]!r}")
    user.email = address
    return f"{user.name}: your answers and turns go to {address}."


def _help(words: tuple[str, ...]) -> str:
    if words:
        topic = ALIASES.get(words[0], words[0])
        if topic not in USAGE:
            raise CommandError(f"help: no command {words[0][:40]!r}; the commands are {', '.join(USAGE)}")
        return USAGE[topic]
    return ("Commands (each may start with 'backgammon'; one a line):\n"
            + "\n".join(f"  {text}" for text in USAGE.values())
            + "\nPoints: eks (X) moves up from 1 to 24, ohs (O) down from 24 to 1; ohs moves first.")


# -- what players read ----------------------------------------------------------------------------
def ohs_of(db: DbSession, row: MatchRow) -> Color:
    """Ohs: whoever moved first in the match's first game (white until the opening roll)."""
    color = db.scalar(select(Event.color).where(Event.match_id == row.id, Event.kind == "opening")
                      .order_by(Event.seq).limit(1))
    return Color.BLACK if color == "black" else Color.WHITE


def move_number(db: DbSession, row: MatchRow) -> int:
    """The number of the turn now to be played: turns played so far in the match, plus one."""
    played = db.scalar(select(func.count()).select_from(Event).where(
        Event.match_id == row.id, Event.kind == "play", Event.seq < row.next_seq))
    return int(played or 0) + 1


def _name(row: MatchRow, color: Color | None) -> str:
    return row.white.name if color == Color.WHITE else row.black.name


def _length(row: MatchRow) -> str:
    return f"a {row.length}-point match" if row.length else "a money game"


def report(db: DbSession, row: MatchRow) -> str:
    """The board as the seed's server draws it, with the dice, cube, score, modes and whose turn it is."""
    names = {Color.WHITE: row.white.name, Color.BLACK: row.black.name}
    if row.status in ("invited", "declined"):
        state = "waiting for " + names[Color.BLACK] + " to accept" if row.status == "invited" else "declined"
        return f"Board {row.id}: {names[Color.WHITE]} challenges {names[Color.BLACK]} to {_length(row)} ({state})."
    ohs = ohs_of(db, row)
    match = games.load(db, row)
    games._cache.put(row.id, row.version, match)
    state = match.state
    o, x = names[ohs], names[ohs.other]
    lines = [f"Board {row.id}: {o} is ohs (O, moves 24 to 1), {x} is eks (X, moves 1 to 24); {_length(row)}."]
    lines += draw(state.position, ohs)
    score = f"Score: {o} {state.score[ohs]}, {x} {state.score[ohs.other]}"
    if row.length:
        score += f" (to {row.length}" + ("; Crawford game)" if state.crawford else ")")
    lines.append(score + f".  Pips: {o} {state.position.pip_count(ohs)}, {x} {state.position.pip_count(ohs.other)}.")
    owner = "in the middle" if state.cube_owner is None else f"owned by {names[state.cube_owner]}"
    lines.append(f"Cube: {state.cube}, {owner}.")
    gnubg_id = games.written(state.gnubg_id)
    if gnubg_id:
        lines.append(f"GNU Backgammon ID: {gnubg_id}")
    if row.pbm_modes:
        for color in (ohs, ohs.other):
            if (row.white if color == Color.WHITE else row.black).is_bot:
                continue
            modes = row.pbm_modes.get(games.color_name(color), {})
            lines.append(f"{names[color]}: greedy {'on' if modes.get('greedy') else 'off'}, "
                         f"manual {'on' if modes.get('manual') else 'off'}.")
    if row.status == "finished":
        winner = names[Color.WHITE] if row.winner_id == row.white_id else names[Color.BLACK]
        lines.append(f"The match is over: {winner} won.")
        return "\n".join(lines)
    to_act = match.to_act
    number = move_number(db, row)
    who = names[to_act] if to_act is not None else ""
    if state.double_offered:
        lines.append(f"Move {number}: {who} is offered the cube at {state.cube * 2}: take (or roll) or drop.")
    elif state.resignation is not None:
        lines.append(f"Move {number}: {who} is offered a resignation ({games.RESIGNATION_WORDS[state.resignation]}): "
                     f"accept or reject.")
    elif state.dice is not None:
        lines.append(f"Move {number}: {who} ({'O' if to_act == ohs else 'X'}) to play {state.dice[0]}-{state.dice[1]}:")
        lines.append(f"  move {row.id} {who} PASSWORD YOURMOVE#{number}")
    else:
        lines.append(f"Move {number}: {who} to roll (roll {row.id} {who} PASSWORD"
                     + (", or double" if match.can_double() else "") + ").")
    return "\n".join(lines)


def _history(db: DbSession, row: MatchRow) -> str:
    events = games.events_between(db, row.id, -1, row.next_seq)
    return f"Board {row.id}, {len(events)} events:\n" + "\n".join(f"{e['seq']:>4}  {e['description']}" for e in events)


def _games(db: DbSession, name: str) -> str:
    user = accounts.find_user(db, name[:64])
    if user is None:
        raise NotFound(f"games: no user {name!r}")
    rows = db.scalars(select(MatchRow).where(or_(MatchRow.white_id == user.id, MatchRow.black_id == user.id))
                      .order_by(MatchRow.updated.desc()).limit(LIST_LIMIT)).unique().all()
    if not rows:
        return f"{user.name} has no boards: challenge {user.name} OPPONENT PASSWORD starts one."
    lines = [f"Boards of {user.name}:"]
    for row in rows:
        other = row.black if row.white_id == user.id else row.white
        mine, theirs = (row.score_white, row.score_black) if row.white_id == user.id else (row.score_black, row.score_white)
        if row.status == "playing":
            state = "your turn" if row.to_act_id == user.id else f"{other.name}'s turn"
        elif row.status == "finished":
            state = "won" if row.winner_id == user.id else "lost"
        else:
            state = row.status
        lines.append(f"  Board {row.id}: against {other.name}, {_length(row)}, {mine}-{theirs}, {state}")
    return "\n".join(lines)


def _ratings(db: DbSession, period: str) -> str:
    ranked = toplist(db, period, LIST_LIMIT)  # type: ignore[arg-type]
    if period == "all":
        lines = [f"{p['rank']:>3}. {p['name']:<24} {p['rating']:8.2f}  experience {p['experience']}" for p in ranked]
        return "Top players of all time:\n" + ("\n".join(lines) if lines else "  nobody has finished a rated match yet")
    lines = [f"{p['rank']:>3}. {p['name']:<24} {p['gained']:+8.2f}  won {p['won']} of {p['matches']}" for p in ranked]
    return "Top players of the last 7 days:\n" + ("\n".join(lines) if lines else "  no rated match in the last 7 days")


def answers(host: Host, text: str) -> Iterator[Answer]:
    """Each command line of ``text`` run in turn (blank lines skipped)."""
    for line in text.splitlines():
        if line.strip():
            yield run(host, line)
