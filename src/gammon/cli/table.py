"""Where a terminal game's match is played: on this machine against a bot, or on a gammon server.

Either table keeps a :class:`~gammon.match.Match` that the terminal reads (the board, the
dice, whose turn it is, the checker moves entered so far). The local table's match is the
referee itself; the remote table's is a mirror that replays the server's events, each of
which carries its action's one-line form, so both tables announce the same things the same
way. The terminal calls the same actions on either and never knows which it has.
"""

from __future__ import annotations

import json
import secrets
import time
from typing import Any

from ..errors import GammonError, IllegalActionError
from ..events import EventDataError, MatchEvent, event_from_data
from ..extras import require
from ..match import Action, ActionKind, Match, PlayerAction
from ..play import Play
from ..players import Player, cube_hint, hint, load_player
from ..players.decisions import decide
from ..position import Color
from ..state import Resignation
from ..variant import Variant

class TableError(GammonError, RuntimeError):
    """The table could not do what was asked: the server is unreachable or refused, in its own words."""


class Table:
    """A match and the actions of the side sitting at it (:attr:`you`)."""

    match: Match
    you: Color
    names: dict[Color, str]
    hints: bool = True  #: whether the match allows play hints
    cube_hints: bool = True  #: whether it allows cube hints
    _news: list[MatchEvent]

    def news(self) -> list[MatchEvent]:
        """The events since the last call, in order: what the terminal tells next."""
        news, self._news = self._news, []
        return news

    @property
    def finished(self) -> bool:
        """Whether the match (or the money game) is over for good."""
        return self.match.is_over

    def act(self, kind: PlayerAction | str, *, play: Play | None = None,
            resignation: Resignation | None = None) -> None:
        """Your action (a :class:`~gammon.match.PlayerAction`); ``play`` None commits the checker moves entered."""
        raise NotImplementedError

    def advance(self) -> None:
        """Let the others act (the opening roll, the opponent, a roll nobody can play) until you
        must act or a game is over."""
        raise NotImplementedError

    def next_game(self) -> None:
        """Start the next game of the match once one is over."""
        raise NotImplementedError

    def play_hints(self) -> list[dict[str, Any]]:
        """Every legal play of your roll ranked, as ``gammon hint --json`` writes each
        (``rank``, ``play``, ``equity``, ``loss``, ``ply``, ``probabilities``)."""
        raise NotImplementedError

    def cube_advice(self) -> dict[str, Any]:
        """Your cube decision as ``gammon cube --batch`` writes it (``double``, ``take``,
        ``no_double``, ``double_take``, ``double_pass``, ``action``)."""
        raise NotImplementedError

    def close(self) -> None:
        """Free what the table holds (an engine, a connection)."""


class LocalTable(Table):
    """You against a bot on this machine; the bot decides as it does on the server (:func:`decide`)."""

    def __init__(self, match: Match, opponent: Player, *, you: Color = Color.WHITE, opponent_name: str | None = None,
                 hint_player: str | Player = "nn:2", hints: bool = True, cube_hints: bool = True) -> None:
        self.match, self.opponent, self.you = match, opponent, you
        self.names = {you: "you", you.other: opponent_name or f"the {opponent.name} bot"}
        self.hint_player = hint_player
        self.hints, self.cube_hints = hints, cube_hints
        self._news = []

    def act(self, kind: PlayerAction | str, *, play: Play | None = None,
            resignation: Resignation | None = None) -> None:
        self._news += self.match.act(kind, self.you, play=play, resignation=resignation or Resignation.SINGLE)

    def advance(self) -> None:
        match, other = self.match, self.you.other
        while not match.game_over:
            if match.to_act is None:
                self._news += match.act(PlayerAction.ROLL)  # the opening roll
            elif match.state.dice is not None and match.legal_plays.is_pass() and not match.pending_moves:
                self._news += match.act(PlayerAction.PLAY, match.to_act, play=Play())  # a roll nobody can play
            elif match.to_act == other:
                state = match.state
                decision = decide(self.opponent, state, may_double=match.can_double(other),
                                  may_beaver=match.beavers and state.double_offered)
                self._news += match.act(decision.kind, other, play=decision.play)
            else:
                return

    def next_game(self) -> None:
        self._news += self.match.apply(Action(ActionKind.NEW_GAME))

    def _hinter(self) -> Player:
        if isinstance(self.hint_player, str):
            self.hint_player = load_player(self.hint_player, variant=self.match.variant)
        return self.hint_player

    def play_hints(self) -> list[dict[str, Any]]:
        state = self.match.state
        if state.dice is None:
            raise IllegalActionError("a play hint is for a roll: roll first")
        return [item.as_dict() for item in hint(state, *state.dice, self._hinter())]

    def cube_advice(self) -> dict[str, Any]:
        return cube_hint(self.match.state, self._hinter()).as_json()

    def close(self) -> None:
        for player in (self.opponent, self.hint_player):
            close = getattr(player, "close", None)
            if close is not None:
                close()


class RemoteTable(Table):
    """A match on a gammon server, through its JSON API and its event stream.

    The mirror match replays every event's action; your actions are sent with the version
    they were decided on, so a stale one is refused by the server and changes nothing.
    """

    def __init__(self, server: ServerClient, match_id: int) -> None:
        self.server, self.match_id = server, match_id
        view = server.match(match_id)
        names = view["players"]
        if server.name.lower() not in (names["white"].lower(), names["black"].lower()):
            raise TableError(f"match {match_id}: {server.name} does not play in it ({names['white']} "
                             f"against {names['black']})")
        self.you = Color.WHITE if names["white"].lower() == server.name.lower() else Color.BLACK
        self.names = {self.you: "you", self.you.other: names[_side(self.you.other)]}
        options = view["options"]
        self.hints, self.cube_hints = bool(options.get("hints")), bool(options.get("cube_hints"))
        self.match = Match(view["length"], crawford=bool(options.get("crawford", True)),
                           jacoby=bool(options.get("jacoby")), beavers=bool(options.get("beavers")),
                           variant=Variant.parse(options.get("variant") or "standard"))
        self.seq = -1
        self.status = view["status"]
        self._news = []
        self._update(server.match(match_id, history=True))

    @property
    def finished(self) -> bool:
        return self.status in ("finished", "declined", "withdrawn", "expired") or self.match.is_over

    def _update(self, view: dict[str, Any]) -> None:
        self.version, self.status = view["version"], view["status"]
        self._replay(view.get("history") or view.get("events") or [])
        if view.get("last_seq", -1) > self.seq:  # events this answer did not carry: read them
            self._replay(self.server.match(self.match_id, after=self.seq).get("history", []))

    def _replay(self, events: list[dict[str, Any]]) -> None:
        """Apply the server's events to the mirror, and keep them to be told."""
        for item in events:
            if item["seq"] <= self.seq:
                continue
            self.seq = item["seq"]
            if item.get("action"):
                self.match.apply(Action.from_text(item["action"]))
            elif item["kind"] == "new_game":  # written before new games carried their action
                self.match.apply(Action(ActionKind.NEW_GAME))
            try:
                self._news.append(event_from_data(item["kind"], item["game"], item.get("color"), item.get("data") or {}))
            except EventDataError:
                pass  # an event of a kind this client does not know: the board still shows its effect

    def act(self, kind: PlayerAction | str, *, play: Play | None = None,
            resignation: Resignation | None = None) -> None:
        try:
            kind = PlayerAction(kind)
        except ValueError:
            raise IllegalActionError(f"unknown action {kind!r}: expected one of {', '.join(PlayerAction)}") from None
        body: dict[str, Any] = {"action": kind.value, "version": self.version}
        if kind == "play":
            if play is None:  # the checker moves entered: the mirror checks they are a whole play
                if len(self.match.pending_moves) < len(self.match.legal_plays[0].moves):
                    self.match.commit(self.you)  # raises, saying what is missing
                play = Play(self.match.pending_moves)
            body["play"] = str(play)
        if kind == "resign":
            body["value"] = int(resignation or Resignation.SINGLE)
        response = self.server.post(f"/api/matches/{self.match_id}/actions", body)
        if response.status_code == 409:
            self._update(self.server.match(self.match_id))
            raise TableError("the match moved on before your action arrived; look again and act anew")
        if response.status_code >= 400:
            raise IllegalActionError(_detail(response))
        self._update(response.json())

    def advance(self) -> None:
        match = self.match
        while not self.finished and not match.game_over and match.to_act != self.you:
            self._wait_for_events()
        if match.to_act == self.you and match.state.dice is not None and match.legal_plays.is_pass():
            self._wait_for_events()  # the server plays a roll nobody can play

    def next_game(self) -> None:
        while self.match.game_over and not self.finished:
            self._wait_for_events()

    def _wait_for_events(self, timeout: float = 30.0) -> None:
        """Apply the events that come next on the match's stream (a lost stream is opened again)."""
        events = self.server.events(self.match_id, self.seq, timeout)
        if events:
            self._replay(events)
            view = self.server.match(self.match_id)  # the version and status to act on
            self._update(view)
        else:
            self._update(self.server.match(self.match_id))

    def play_hints(self) -> list[dict[str, Any]]:
        return self.server.get(f"/api/matches/{self.match_id}/hint")["plays"]

    def cube_advice(self) -> dict[str, Any]:
        return self.server.get(f"/api/matches/{self.match_id}/cube_hint")

    def close(self) -> None:
        self.server.close()


def _side(color: Color) -> str:
    return color.name.lower()


def _detail(response: Any) -> str:
    try:
        detail = response.json().get("detail")
    except (ValueError, AttributeError):
        detail = None
    return str(detail or f"the server answered {response.status_code}")


def require_client() -> None:
    """The server client's network packages, or MissingExtraError naming ``gammon[server]``."""
    for package in ("httpx", "websockets"):
        require(package, "playing on a server")


class ServerClient:
    """One person logged in to a gammon server: JSON requests with their token, and event streams."""

    def __init__(self, url: str, name: str, password: str, *, register: bool = False, timeout: float = 60.0) -> None:
        require_client()
        import httpx

        self.url = url.rstrip("/")
        if not self.url.startswith(("http://", "https://")):
            raise TableError(f"--server: expected a URL such as http://localhost:8000, got {url!r}")
        self.name = name
        self.http = httpx.Client(base_url=self.url, timeout=timeout)
        try:
            if register:
                response = self.http.post("/api/users", json={"name": name, "password": password})
                if response.status_code not in (201, 409):
                    raise TableError(f"register {name}: {_detail(response)}")
            response = self.http.post("/api/sessions", json={"name": name, "password": password})
        except httpx.HTTPError as error:
            raise TableError(f"cannot reach {self.url}: {error}") from None
        if response.status_code != 200:
            raise TableError(f"log in as {name}: {_detail(response)}")
        self.token = response.json()["token"]
        self.http.headers["Authorization"] = f"Bearer {self.token}"

    def _request(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        import httpx

        for attempt in range(5):
            try:
                return self.http.request(method, path, json=body)
            except httpx.TransportError as error:
                if attempt == 4:
                    raise TableError(f"lost the server {self.url}: {error}") from None
                time.sleep(0.5 * (attempt + 1))
        raise AssertionError("unreachable")

    def get(self, path: str) -> Any:
        response = self._request("GET", path)
        if response.status_code >= 400:
            raise TableError(_detail(response))
        return response.json()

    def post(self, path: str, body: dict[str, Any] | None = None) -> Any:
        return self._request("POST", path, body)

    def match(self, match_id: int, *, history: bool = False, after: int | None = None) -> dict[str, Any]:
        """The match; with ``history`` every event, with ``after`` the events numbered after it."""
        query = "?history=all" if history else f"?after={after}" if after is not None else ""
        return self.get(f"/api/matches/{match_id}{query}")

    def matches(self, status: str | None = None) -> list[dict[str, Any]]:
        query = f"/api/matches?user={self.name}" + (f"&status={status}" if status else "")
        return self.get(query)

    def challenge(self, opponent: str, length: int, options: dict[str, object]) -> dict[str, Any]:
        """Invite ``opponent``, with a dice seed of our own chosen only after the server committed to its."""
        shown = self.post("/api/commitments")
        if shown.status_code >= 400:
            raise TableError(f"challenge {opponent}: {_detail(shown)}")
        response = self.post("/api/matches", {"opponent": opponent, "length": length, "options": options,
                                              "seed": secrets.token_hex(16), "commitment": shown.json()["token"]})
        if response.status_code >= 400:
            raise TableError(f"challenge {opponent}: {_detail(response)}")
        return response.json()

    def answer(self, match_id: int, accept: bool) -> dict[str, Any]:
        """Accept (with a dice seed of our own: the invitation showed the server's commitment) or decline."""
        response = self.post(f"/api/matches/{match_id}/{'accept' if accept else 'decline'}",
                             {"seed": secrets.token_hex(16)} if accept else None)
        if response.status_code >= 400:
            raise TableError(f"match {match_id}: {_detail(response)}")
        return response.json()

    def events(self, match_id: int, after: int, timeout: float) -> list[dict[str, Any]]:
        """The events after ``after``: those there are at once, or the first to come within ``timeout``."""
        from websockets.exceptions import WebSocketException
        from websockets.sync.client import connect

        url = self.url.replace("http", "ws", 1) + f"/api/matches/{match_id}/events?after={after}"
        events: list[dict[str, Any]] = []
        try:
            with connect(url, additional_headers={"Authorization": f"Bearer {self.token}"},
                         open_timeout=timeout) as stream:
                deadline = time.monotonic() + timeout
                while True:
                    wait = 0.2 if events else deadline - time.monotonic()
                    if wait <= 0:
                        break
                    try:
                        item = json.loads(stream.recv(timeout=wait))
                    except TimeoutError:
                        break
                    if "error" in item:
                        raise TableError(item["error"])
                    if "seq" in item:
                        events.append(item)
        except (OSError, WebSocketException):
            time.sleep(0.5)  # a lost stream is opened again by the next wait; the match is read meanwhile
        return events

    def close(self) -> None:
        self.http.close()
