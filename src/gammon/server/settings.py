"""How a server runs, in one typed place: every setting, its command-line flag, its variable.

``gammon serve`` reads the environment first and its flags second (a flag wins), and hands
worker processes their settings through the same variables, so ``uvicorn``'s own workers
and any process manager can start the app from the environment alone
(:func:`gammon.server.app.app_from_environment`). docs/server.md lists every variable;
:func:`environment_table` writes that list, so it cannot drift.

>>> settings = Settings.from_environment({"GAMMON_DB": "sqlite:////tmp/x.db", "GAMMON_WORKERS": "2"})
>>> settings.db_url, settings.workers, settings.limits.login_per_name
('sqlite:////tmp/x.db', 2, 10)
>>> Settings.from_environment(settings.environment()) == settings
True
"""

from __future__ import annotations

import dataclasses
import ipaddress
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..players import DEFAULT_HINT_PLAYER
from .errors import ServerConfigError

PREFIX = "GAMMON_"


def _setting(variable: str, help: str, default: Any = None) -> Any:  # noqa: A002 - the name the API gives it
    return field(default=default, metadata={"variable": variable, "help": help})


@dataclass(frozen=True)
class Limits:
    """What one client may do, and how much the server takes on at once (docs/server.md explains each)."""

    login_per_address: int = _setting("LIMIT_LOGIN_PER_ADDRESS", "log-in attempts from one address per window", 30)
    login_per_name: int = _setting("LIMIT_LOGIN_PER_NAME",
                                   "log-in attempts for one name from devices it never logged in from, per window", 10)
    login_per_device: int = _setting("LIMIT_LOGIN_PER_DEVICE",
                                     "log-in attempts for one name from a device it logged in from before, per window", 10)
    login_window: int = _setting("LIMIT_LOGIN_WINDOW", "seconds a log-in attempt counts against the limits", 900)
    registrations_per_address: int = _setting("LIMIT_REGISTRATIONS", "accounts opened from one address per hour", 10)
    commands_per_address: int = _setting("LIMIT_COMMANDS", "play-by-mail commands from one client per minute (by "
                                         "e-mail: from one sender, never the relay)", 120)
    commands_per_request: int = _setting("LIMIT_COMMANDS_PER_REQUEST", "commands read from one POST /pbm or mail", 20)
    challenges_per_user: int = _setting("LIMIT_CHALLENGES", "invitations one person may send per hour (one sent "
                                        "without its challenger's password: its sender's address)", 30)
    invitations_per_target: int = _setting("LIMIT_INVITATIONS", "invitations one person may be sent per hour, by "
                                           "everyone together", 20)
    mails_per_address: int = _setting("LIMIT_MAILS", "mails to one confirmed address per hour about what its owner "
                                      "did, and as many about what each other player did (an address gets at most "
                                      "3 codes an hour from one account)", 60)
    analyses_per_user: int = _setting("LIMIT_ANALYSES", "analyses one person may ask for per hour (of a match or an "
                                      "uploaded record)", 10)
    analyses_waiting: int = _setting("LIMIT_ANALYSES_WAITING", "analyses of one person queued or running at once", 2)
    analyses_at_once: int | None = _setting("LIMIT_ANALYSES_AT_ONCE", "analyses this server runs at once, each in a "
                                            "process of its own (default: half the bot workers, at least 1)")
    analysis_seconds: float = _setting("LIMIT_ANALYSIS_SECONDS", "seconds an analysis may run before its process is "
                                       "killed and it fails", 900.0)
    job_workers: int | None = _setting("LIMIT_JOB_WORKERS", "processes that read uploads, replay matches and draw "
                                       "boards for requests (default: cores, 2 to 4)")
    job_seconds: float = _setting("LIMIT_JOB_SECONDS", "seconds one such job may take before its process is killed "
                                  "(the request gets 422 or 503)", 30.0)
    job_memory: int = _setting("LIMIT_JOB_MEMORY", "MiB a job or an analysis may take beyond its process's start", 1024)
    job_queue: int = _setting("LIMIT_JOB_QUEUE", "jobs waiting for a process before requests are refused (503)", 64)
    hash_workers: int = _setting("LIMIT_HASH_WORKERS", "password hashes computed at once", 2)
    hash_queue: int = _setting("LIMIT_HASH_QUEUE", "password hashes waiting before log-ins are refused (503)", 64)
    write_queue: int = _setting("LIMIT_WRITE_QUEUE", "writes waiting for the database before requests are refused (503)",
                                2000)
    read_queue: int = _setting("LIMIT_READ_QUEUE", "reads waiting for the database before requests are refused (503)",
                               2000)
    connections_per_address: int = _setting("LIMIT_CONNECTIONS", "open connections from one address", 256)
    websockets_per_address: int = _setting("LIMIT_WEBSOCKETS", "event streams open from one address", 4096)
    header_timeout: float = _setting("LIMIT_HEADER_TIMEOUT", "seconds a client has to send a request's headers", 10.0)
    body_timeout: float = _setting("LIMIT_BODY_TIMEOUT", "seconds a client has to send a request's body", 10.0)
    provisional_matches: int = _setting("PROVISIONAL_MATCHES",
                                        "distinct opponents (bots together as one, nobody seen on the player's "
                                        "network) a rating is measured against before it counts", 5)
    pair_matches_per_day: int = _setting("PAIR_MATCHES_PER_DAY", "rated matches between the same two players per day", 3)


@dataclass(frozen=True)
class Settings:
    """A server's settings; :meth:`from_environment` reads them, :meth:`environment` writes them."""

    db_url: str | None = _setting("DB", "database URL (default: SQLite in the user data folder)")
    host: str = _setting("HOST", "address to listen on", "127.0.0.1")
    port: int = _setting("PORT", "HTTP port (0: any free port, printed at start)", 8000)
    workers: int = _setting("WORKERS", "server processes sharing the port (PostgreSQL only for more than 1)", 1)
    redis_url: str | None = _setting("REDIS", "Redis for events between servers, e.g. redis://127.0.0.1:6379")
    bot_workers: int | None = _setting("BOT_WORKERS", "processes thinking for bots (default: cores, at most 2)")
    external_bots: tuple[str, ...] = _setting("BOTS", "external engines offered as bots, comma-separated (gnubg:0)", ())
    hint_player: str = _setting("HINT_PLAYER", "who answers hints where a match allows them", DEFAULT_HINT_PLAYER)
    analysis_player: str = _setting("ANALYSIS_PLAYER", "who judges a match analysed after it ends, NAME[:PLY] (the net "
                                    "at 0 ply: a match in seconds)", "nn:0")
    pbm_port: int | None = _setting("PBM_PORT", "the play-by-mail line port")
    smtp_port: int | None = _setting("SMTP_PORT", "the SMTP port taking commands by mail (needs GAMMON_SMTP_RELAY)")
    smtp_relay: str | None = _setting("SMTP_RELAY", "HOST:PORT that mails are sent through")
    mail_from: str = _setting("MAIL_FROM", "the From of the server's mails", "gammon@localhost")
    public_url: str | None = _setting("PUBLIC_URL", "the address players reach the site at (https://... makes cookies Secure)")
    trusted_proxies: str | None = _setting("TRUSTED_PROXIES", "reverse proxies whose X-Forwarded-For/Proto are "
                                           "believed, comma-separated addresses or networks (none: every peer is "
                                           "the client)")
    session_days: int = _setting("SESSION_DAYS", "days a log-in lasts without being used", 30)
    invitation_hours: float = _setting("INVITATION_HOURS", "hours an unanswered invitation stays open", 72.0)
    idle_days: float = _setting("IDLE_DAYS", "days a match waits for a person to act before they lose it", 14.0)
    shutdown_seconds: float = _setting("SHUTDOWN_SECONDS", "seconds open connections get when the server stops", 2.0)
    migrate: bool = _setting("MIGRATE", "bring the schema up to date when the app starts (gammon serve does it once)", True)
    limits: Limits = field(default_factory=Limits)

    @classmethod
    def from_environment(cls, environ: Mapping[str, str] | None = None, **overrides: Any) -> Settings:
        """The settings that ``GAMMON_*`` variables give (unset ones keep their defaults), then ``overrides``."""
        environ = os.environ if environ is None else environ
        limits = Limits(**_read(Limits, environ))
        values: dict[str, Any] = {"limits": limits, **_read(cls, environ)}
        values.update({key: value for key, value in overrides.items() if value is not None})
        settings = cls(**values)
        settings.check()
        return settings

    def environment(self) -> dict[str, str]:
        """These settings as ``GAMMON_*`` variables (what a worker process is started with)."""
        out: dict[str, str] = {}
        for owner in (self, self.limits):
            for item in dataclasses.fields(owner):
                if "variable" not in item.metadata:
                    continue
                value = getattr(owner, item.name)
                if value is None:
                    continue
                if isinstance(value, tuple):
                    value = ",".join(value)
                elif isinstance(value, bool):
                    value = "1" if value else "0"
                out[PREFIX + item.metadata["variable"]] = str(value)
        return out

    def check(self) -> None:
        """Refuse settings that cannot work, naming the variable (or flag) and what was expected."""
        for name, port in (("PORT", self.port), ("PBM_PORT", self.pbm_port), ("SMTP_PORT", self.smtp_port)):
            if port is not None and not 0 <= port < 65536:
                raise ServerConfigError(f"{PREFIX}{name}: expected a port 0-65535, got {port}")
        if not 1 <= self.workers <= 64:
            raise ServerConfigError(f"{PREFIX}WORKERS: expected 1-64, got {self.workers}")
        if self.bot_workers is not None and not 1 <= self.bot_workers <= 64:
            raise ServerConfigError(f"{PREFIX}BOT_WORKERS: expected 1-64, got {self.bot_workers}")
        if self.smtp_port is not None and not self.smtp_relay:
            raise ServerConfigError("--smtp-port needs --smtp-relay HOST:PORT: answers are sent through a relay")
        if self.smtp_relay:
            host, _, relay_port = self.smtp_relay.rpartition(":")
            if not host or not relay_port.isdigit() or not 0 < int(relay_port) < 65536:
                raise ServerConfigError(f"--smtp-relay: expected HOST:PORT such as 127.0.0.1:25, got {self.smtp_relay!r}")
        if self.session_days < 1:
            raise ServerConfigError(f"{PREFIX}SESSION_DAYS: expected at least 1, got {self.session_days}")
        trusted_networks(self.trusted_proxies)
        limits = self.limits
        for name, count, low, high in (("ANALYSES_WAITING", limits.analyses_waiting, 1, 1000),
                                       ("ANALYSES_AT_ONCE", limits.analyses_at_once, 1, 64),
                                       ("JOB_WORKERS", limits.job_workers, 1, 64),
                                       ("JOB_MEMORY", limits.job_memory, 64, 2**20),
                                       ("JOB_QUEUE", limits.job_queue, 0, 100_000)):
            if count is not None and not low <= count <= high:
                raise ServerConfigError(f"{PREFIX}LIMIT_{name}: expected {low}-{high}, got {count}")
        for name, seconds in (("ANALYSIS_SECONDS", limits.analysis_seconds), ("JOB_SECONDS", limits.job_seconds)):
            if not 0 < seconds < 10**6:
                raise ServerConfigError(f"{PREFIX}LIMIT_{name}: expected seconds above 0, got {seconds:g}")

    @property
    def secure_cookies(self) -> bool:
        """Cookies carry ``Secure`` when players reach the site over HTTPS."""
        return bool(self.public_url and self.public_url.startswith("https://"))


def trusted_networks(spec: str | None) -> tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]:
    """The networks ``GAMMON_TRUSTED_PROXIES`` names (none when empty); a wrong one is refused, named.

    >>> trusted_networks("127.0.0.1, 10.0.0.0/8")
    (IPv4Network('127.0.0.1/32'), IPv4Network('10.0.0.0/8'))
    """
    networks = []
    for part in (spec or "").split(","):
        if not part.strip():
            continue
        try:
            networks.append(ipaddress.ip_network(part.strip(), strict=False))
        except ValueError:
            raise ServerConfigError(f"{PREFIX}TRUSTED_PROXIES: expected addresses or networks such as 127.0.0.1 or "
                                    f"10.0.0.0/8, comma-separated; got {part.strip()[:60]!r}") from None
    return tuple(networks)


def _read(cls: type, environ: Mapping[str, str]) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for item in dataclasses.fields(cls):
        variable = item.metadata.get("variable")
        if variable is None or PREFIX + variable not in environ:
            continue
        raw = environ[PREFIX + variable].strip()
        kind = item.type if isinstance(item.type, str) else getattr(item.type, "__name__", str(item.type))
        try:
            if "tuple" in kind:
                values[item.name] = tuple(part.strip() for part in raw.split(",") if part.strip())
            elif kind.startswith("bool"):
                if raw.lower() not in ("1", "0", "true", "false", "yes", "no", "on", "off"):
                    raise ValueError(raw)
                values[item.name] = raw.lower() in ("1", "true", "yes", "on")
            elif kind.startswith("int"):
                values[item.name] = int(raw)
            elif kind.startswith("float"):
                values[item.name] = float(raw)
            else:
                values[item.name] = raw or None if "None" in kind else raw
        except ValueError:
            expected = kind.split(" |")[0]
            raise ServerConfigError(f"{PREFIX}{variable}: expected {expected}, got {raw!r}") from None
    return values


def environment_table() -> str:
    """The Markdown table of every variable, for docs/server.md."""
    rows = ["| variable | flag | what it sets | default |", "| --- | --- | --- | --- |"]
    for owner in (Settings, Limits):
        for item in dataclasses.fields(owner):
            if "variable" not in item.metadata:
                continue
            default = item.default if item.default is not dataclasses.MISSING else None
            if isinstance(default, tuple):
                default = ",".join(default) or None
            flag = "--" + item.name.replace("_", "-") if owner is Settings else ""
            rows.append(f"| `{PREFIX}{item.metadata['variable']}` | {f'`{flag}`' if flag else ''} | "
                        f"{item.metadata['help']} | {'' if default is None else f'`{default}`'} |")
    return "\n".join(rows)
