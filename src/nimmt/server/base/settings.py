"""Server configuration: command-line flags and ``NIMMT_*`` environment variables.

Every setting has a safe default, so ``nimmt serve`` alone starts a private
server on loopback with a SQLite file in the data directory. docs/server.md
lists them all.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from ...paths import default_data_dir

__all__ = [
    "Settings",
    "default_analysis_workers",
    "default_bot_workers",
    "default_hint_workers",
    "listen_address",
    "shown_url",
]


def _cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 2


def default_bot_workers() -> int:
    """One search worker per core but one (the server's own), at least one, at most eight."""
    return max(1, min(8, _cores() - 1))


def default_hint_workers() -> int:
    """Hint workers: one per four cores, one to four. Hints are short and the bots' search
    lane has most cores already; a hint's worker is started with the first hint."""
    return max(1, min(4, _cores() // 4))


def default_analysis_workers() -> int:
    """Analysis workers: one per eight cores, one to four (analyses are long, and rare)."""
    return max(1, min(4, _cores() // 8))


def shown_url(url: str) -> str:
    """``url`` as it may be printed or logged: its user and password (and a ``password``
    in its query, which Redis URLs may carry) hidden.

    >>> shown_url("rediss://:hunter2@cache:6380/0?password=x&db=1")
    'rediss://***@cache:6380/0?password=***&db=1'
    """
    scheme, sep, rest = url.partition("://")
    if not sep:
        return url
    where, q, query = rest.partition("?")
    if "@" in where:
        where = "***@" + where.rsplit("@", 1)[1]
    if q:
        query = "&".join("password=***" if part.lower().startswith("password=") else part
                         for part in query.split("&"))
    return f"{scheme}://{where}{q}{query}"


def listen_address(text: str) -> tuple[str, int]:
    """``host:port`` (``[v6]:port`` for an IPv6 address) as the pair a socket binds.

    >>> listen_address("127.0.0.1:9100"), listen_address("[::1]:0")
    (('127.0.0.1', 9100), ('::1', 0))
    """
    host, sep, port = text.strip().rpartition(":")
    if not sep or not host or not port.isascii() or not port.isdigit() or int(port) > 65535:
        raise ValueError(f"{text!r} is not host:port")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    elif ":" in host:
        raise ValueError(f"{text!r}: write an IPv6 address in brackets, [::1]:9100")
    return host, int(port)


class Settings(BaseSettings):
    """What a host may change. Environment: ``NIMMT_HOST``, ``NIMMT_PORT``, ``NIMMT_DB``, …"""

    model_config = SettingsConfigDict(env_prefix="NIMMT_", extra="ignore")

    host: str = "127.0.0.1"
    port: int = Field(default=8000, ge=0, le=65535)
    #: SQLAlchemy URL; empty means a SQLite file ``nimmt.db`` in ``data_dir``.
    db: str = ""
    data_dir: Path = Field(default_factory=default_data_dir)
    #: Largest text frame the protocol reads (bytes); larger ones get ``frame_too_large``.
    max_frame: int = Field(default=8192, ge=256, le=1 << 20)
    #: Messages per second a connection may send on average, and the burst it may send at once.
    rate: float = Field(default=20.0, gt=0)
    burst: int = Field(default=60, ge=1)
    #: Longest chat message, in characters.
    chat_max: int = Field(default=300, ge=1, le=4000)
    #: Seconds a seated player may be disconnected during a game before the default bot plays.
    disconnect_grace: float = Field(default=60.0, ge=0)
    #: Seconds a table with no seated person connected stays open (after any game ends).
    idle_close: float = Field(default=3600.0, gt=0)
    #: Seconds a bot may think per decision (search bots stop early).
    bot_seconds: float = Field(default=1.0, gt=0)
    #: Seconds past ``bot_seconds`` before the server stops a bot's worker and the default
    #: player answers for it.
    bot_grace: float = Field(default=1.0, gt=0)
    #: Seconds bots wait after cards are revealed while a person sits connected at the
    #: table, so the reveal is heard before the next plays are told (0: no wait).
    reveal_pace: float = Field(default=3.0, ge=0, le=60)
    #: Seconds the next round's deal waits after a round's end while a person sits
    #: connected at the table, so the round's score sheet can be seen (0: no wait).
    round_pause: float = Field(default=5.0, ge=0, le=60)
    #: A listener's speaking rate, characters a second (espeak-ng's default voice): a
    #: person's turn timer gets the time the narration of what led to the decision takes at
    #: it, so a player listening to a reveal is not timed out by it (0: no allowance).
    listen_cps: float = Field(default=17.0, ge=0, le=1000)
    #: At most this many seconds of that allowance per decision.
    listen_max: float = Field(default=60.0, ge=0, le=600)
    #: Worker processes for search bots (and the operator's bots); one more runs the cheap ones.
    bot_workers: int = Field(default_factory=default_bot_workers, ge=1, le=64)
    #: The operator's own bots, name → import path (``NIMMT_BOTS='{"mine": "pkg.mod:Mine"}'``,
    #: or ``nimmt serve --bot mine=pkg.mod:Mine``); hosts seat them by name.
    bots: dict[str, str] = Field(default_factory=dict)
    #: Worker processes for hints: a lane of their own, so a hint never waits behind an
    #: analysis or a bot's move (by default one per four cores, one to four).
    tutor_workers: int = Field(default_factory=default_hint_workers, ge=1, le=16)
    #: Hints computed or waiting at once; more are refused (``busy``, with the expected wait).
    tutor_queue: int = Field(default=8, ge=1, le=1000)
    #: Hints one player may have computed or waiting at once, across all their connections
    #: and tables (``hint_pending`` past it, with the expected wait).
    hints_per_player: int = Field(default=1, ge=1, le=100)
    #: Rollouts of a hint's search, and the seconds it may take.
    hint_rollouts: int = Field(default=6000, ge=10, le=1_000_000)
    hint_seconds: float = Field(default=1.0, gt=0, le=60)
    #: Tokens of the connection's message bucket a hint costs (it is a second of search).
    hint_cost: float = Field(default=10.0, ge=1)
    #: Worker processes for game analyses: a lane of their own (by default one per eight
    #: cores, one to four).
    analysis_workers: int = Field(default_factory=default_analysis_workers, ge=1, le=16)
    #: Analyses computed or waiting at once; more are refused (HTTP 503, with the expected
    #: wait in ``Retry-After``).
    analysis_queue: int = Field(default=4, ge=1, le=1000)
    #: Analyses one client address may have computed or waiting at once (HTTP 429 past it).
    analyses_per_address: int = Field(default=1, ge=1, le=1000)
    #: Analyses of games not yet analysed that one client address may ask for per minute.
    analyses_per_minute: int = Field(default=4, ge=1)
    #: Analyses kept in memory (the most recently asked for).
    analysis_cache: int = Field(default=256, ge=1)
    #: Rollouts per decision of a game analysis (the search's budget).
    analysis_rollouts: int = Field(default=2000, ge=10, le=100_000)
    #: Seconds of search per decision of an analysis, and for the whole game: when those
    #: run out, the analysis answers the decisions reviewed so far, marked partial.
    analysis_decision_seconds: float = Field(default=1.0, gt=0, le=600)
    analysis_seconds: float = Field(default=30.0, gt=0, le=3600)
    #: Seconds past a hint's or an analysis's budget before its worker is stopped (the
    #: asker is told it failed).
    advice_grace: float = Field(default=5.0, gt=0, le=600)
    #: Most tables open at once (a guard against abuse).
    max_tables: int = Field(default=5000, ge=1)

    #: Seconds a stopping server (SIGTERM, SIGINT) drains in all: it tells its clients,
    #: lets its tables store what they received (half of it at most), closes the
    #: connections (1012) and waits for open requests, then cancels what is left; pending
    #: hints and analyses are refused at once (docs/operations.md).
    drain_seconds: int = Field(default=10, ge=0, le=600)

    # -- limits on strangers (docs/security.md) ---------------------------------------------
    #: Messages per second (and burst) one player may send across all their connections.
    player_rate: float = Field(default=30.0, gt=0)
    player_burst: int = Field(default=90, ge=1)
    #: Messages per second (and burst) one client address may send across all its connections.
    address_rate: float = Field(default=60.0, gt=0)
    address_burst: int = Field(default=180, ge=1)
    #: Bytes per second (and burst) one client address may send, oversized frames included.
    address_bytes: float = Field(default=65536.0, gt=0)
    address_bytes_burst: int = Field(default=262144, ge=1024)
    #: Frames refused for rate in a row before the connection is cut off (code ``flooding``).
    flood_cutoff: int = Field(default=200, ge=1)
    #: Deepest nesting of arrays and objects a frame may hold.
    max_depth: int = Field(default=8, ge=2, le=64)
    #: Connections open at once: in all, and from one client address.
    max_connections: int = Field(default=10000, ge=1)
    connections_per_address: int = Field(default=32, ge=1)
    #: New players (``hello`` with a name) one client address may create per minute.
    names_per_minute: int = Field(default=6, ge=1)
    #: Unstarted tables one player may host, and one client address may open, at once.
    tables_per_host: int = Field(default=2, ge=1)
    tables_per_address: int = Field(default=8, ge=1)
    #: Live tables (unstarted or playing: bots play on when their host leaves) one player
    #: may host, and one client address may have opened, at once.
    running_per_host: int = Field(default=3, ge=1)
    running_per_address: int = Field(default=12, ge=1)
    #: Search bots (hard, expert, the operator's: up to ``bot_seconds`` of a worker per
    #: decision) seated at the live tables one player hosts, and at those one client
    #: address opened, at once. The quick bots are not counted: microseconds a decision.
    search_bots_per_host: int = Field(default=18, ge=1)
    search_bots_per_address: int = Field(default=36, ge=1)
    #: The highest point limit a table may ask for: a game's length grows with it (ten
    #: players at 10,000 points play some 600 rounds), and so does catching up on it.
    max_point_limit: int = Field(default=250, ge=1, le=10_000)
    #: Seconds an unstarted table with no seated person connected stays open.
    open_idle_close: float = Field(default=180.0, gt=0)
    #: Times a player may change their chosen card before the cards are revealed.
    card_changes: int = Field(default=10, ge=1)
    #: Chat messages one table keeps per game, and games (rematches) one table may play.
    chat_per_game: int = Field(default=1000, ge=1)
    games_per_table: int = Field(default=100, ge=1)
    #: Items of a table's stream kept in memory (between this and twice this); older ones
    #: are rebuilt from the store's log when a page of history asks for them.
    stream_keep: int = Field(default=512, ge=16)
    #: Bytes of frames one connection may have waiting to be sent (counted as the frames'
    #: characters, plus 64 a frame); past them the client has stopped reading and is
    #: disconnected. The largest honest burst, a rejoin at the end of a long game (its
    #: state and the catch-up, bounded by ``catchup_bytes``), is under 0.2 MB.
    send_backlog_bytes: int = Field(default=2 << 20, ge=4096)
    #: Seconds a connection's transport may take no bytes (its buffer full) before the
    #: connection is aborted.
    write_timeout: float = Field(default=30.0, gt=0)
    #: Seconds a client has to send an HTTP request's headers (and its body, if any), from
    #: the connection's start or the previous answer; then it gets 408 and is closed.
    header_timeout: float = Field(default=10.0, gt=0)
    #: TCP connections (pages, API requests, WebSockets) one address may hold open at
    #: once, counted before any request is read; more get HTTP 429. Unset:
    #: ``connections_per_address`` + 32. Trusted proxies are not counted per address.
    tcp_per_address: int | None = Field(default=None, ge=1)
    #: File descriptors the server keeps for itself (its database, workers, logs): TCP
    #: connections past the open-file limit less these get HTTP 503.
    fd_reserve: int = Field(default=128, ge=16)
    #: Items a catch-up (a rejoin or a spectator with ``last_seq``) carries at most: the
    #: newest ones, after the table's state; the frame says what it left out (``older``).
    catchup_items: int = Field(default=300, ge=0, le=100_000)
    #: Bytes of that frame at most (its view and sheet included): older items go first.
    catchup_bytes: int = Field(default=131072, ge=16384, le=64 << 20)
    #: Stream positions one page of ``history`` covers at most, and its bytes at most.
    history_items: int = Field(default=200, ge=1, le=10_000)
    history_bytes: int = Field(default=131072, ge=16384, le=64 << 20)
    #: Messages of the connection's and the player's rate a page of history costs.
    history_cost: float = Field(default=5.0, ge=1)
    #: Stream items rebuilt from the log kept in memory for the next pages (all tables).
    history_cache: int = Field(default=100_000, ge=0)
    #: Worker processes that build game replays and records, and threads that rebuild
    #: pages of old stream items and the speech endpoint's narration (never the event
    #: loop); and jobs that may wait for one: past that a page is refused
    #: ``server_busy`` and an HTTP read gets 503.
    read_processes: int = Field(default=1, ge=1, le=64)
    read_workers: int = Field(default=2, ge=1, le=64)
    read_queue: int = Field(default=32, ge=0, le=100_000)
    #: Game records and replays (``/api/games/{id}``, ``…/replay``) one client address may
    #: have built per second, and at once (HTTP 429 past it); answers already built are
    #: served from memory without counting.
    read_rate: float = Field(default=1.0, gt=0)
    read_burst: int = Field(default=20, ge=1)
    #: Bytes of built game records and replays kept in memory (stored games never change).
    read_cache_bytes: int = Field(default=64 << 20, ge=0)
    #: Speech requests (``/api/speech/{code}``) per second and at once: per player (by the
    #: token; per address without one) and per client address in all (HTTP 429 past it).
    speech_rate: float = Field(default=10.0, gt=0)
    speech_burst: int = Field(default=100, ge=1)
    speech_address_rate: float = Field(default=40.0, gt=0)
    speech_address_burst: int = Field(default=400, ge=1)
    #: Players one player may follow (``follow`` past it: ``quota``).
    follows_max: int = Field(default=500, ge=1, le=100_000)
    #: Players one player may mute or block, together (``mute``/``block`` past it: ``quota``),
    #: and the mutes and blocks one player may make or lift a minute (each one tells every
    #: server process).
    relations_max: int = Field(default=1000, ge=1, le=100_000)
    relations_per_minute: int = Field(default=30, ge=1)
    #: Invitations one player may send a minute (``quota`` past it); seconds an invitation
    #: waits for its answer; invitations waiting for one player (past it the oldest go);
    #: invitations one player hears a minute, from everyone together (each rings and is
    #: spoken: past it the inviter is refused, ``quota``, and told when to try again).
    invites_per_minute: int = Field(default=10, ge=1)
    invite_ttl: float = Field(default=600.0, gt=0)
    invites_pending: int = Field(default=20, ge=1, le=1000)
    invites_heard_per_minute: int = Field(default=5, ge=1)
    #: The lobby chat: the longest line (characters; ``chat_too_long``), the lines one
    #: player may write a minute (``quota``), the newest lines kept and the ones a
    #: connection that starts listening is sent.
    lobby_chat_max: int = Field(default=300, ge=1, le=4000)
    lobby_chat_per_minute: int = Field(default=6, ge=1)
    lobby_keep: int = Field(default=500, ge=1)
    lobby_backlog: int = Field(default=30, ge=0, le=500)
    #: Private messages between friends: the longest (``chat_too_long``), how many one
    #: player may send a minute (``quota``), and the newest kept per player received.
    private_max: int = Field(default=1000, ge=1, le=4000)
    private_per_minute: int = Field(default=20, ge=1)
    private_keep: int = Field(default=200, ge=1)
    #: Invitation links (``invite_link``) one player may make an hour (``quota``), and how
    #: long one works.
    invite_links_per_hour: int = Field(default=20, ge=1)
    invite_link_ttl: float = Field(default=86400.0, gt=0)
    #: Seconds between two pushes of one player's presence to their followers (a change
    #: sooner is sent at the end of the interval, the changes between coalesced).
    presence_interval: float = Field(default=2.0, ge=0)
    #: Who is online (``online``, to the connections that listen to the lobby with it): the
    #: most names one list holds, and the seconds between two pushes of it (someone coming
    #: or going sooner is sent at the end of the interval, the changes between coalesced).
    online_max: int = Field(default=100, ge=1, le=1000)
    online_interval: float = Field(default=2.0, ge=0)
    #: Reports one player may make an hour (``quota`` past it), and the longest reason, in
    #: characters (longer ones are cut).
    reports_per_hour: int = Field(default=10, ge=1)
    report_max: int = Field(default=500, ge=1, le=4000)
    #: Reports waiting per reported player (one per reporter; past it the oldest go), and
    #: days a resolved report is kept.
    reports_per_target: int = Field(default=50, ge=1, le=10_000)
    reports_keep_days: float = Field(default=90.0, gt=0)
    #: Leaderboard pages (``/api/leaderboard``): the most rows of one, and how many seconds
    #: one is kept before the store is asked again (one query per page and period).
    leaderboard_page: int = Field(default=50, ge=1, le=500)
    leaderboard_cache: float = Field(default=30.0, ge=0)
    #: Leaderboard and player pages built from the store per second by one client
    #: address, and at once (HTTP 429 past it; pages kept in memory cost nothing).
    board_rate: float = Field(default=2.0, gt=0)
    board_burst: int = Field(default=20, ge=1)
    #: Web origins allowed to open the WebSocket besides the server's own (comma-separated,
    #: e.g. ``https://play.example.org``); ``*`` allows any (not for the open internet).
    allowed_origins: str = ""
    #: Reverse proxies whose ``X-Forwarded-For`` is believed (comma-separated addresses or
    #: networks); empty: the header is ignored and the peer's address counts.
    trusted_proxies: str = ""

    # -- accounts and sessions (docs/accounts.md) --------------------------------------------
    #: Passwords hashed (argon2id) or checked at once, each in a thread of its own: each
    #: holds ``argon2_memory`` KiB while it runs.
    hash_workers: int = Field(default=2, ge=1, le=64)
    #: Password operations waiting for a thread at once, beyond those running; more are
    #: refused (``sign_in_busy``).
    hash_queue: int = Field(default=32, ge=1, le=10_000)
    #: argon2id's cost: memory (KiB), passes and lanes of one hash. Hashes made with other
    #: costs still verify, and are made again with these at the next sign-in.
    argon2_memory: int = Field(default=19456, ge=1024, le=4 << 20)
    argon2_time: int = Field(default=2, ge=1, le=20)
    argon2_parallelism: int = Field(default=1, ge=1, le=16)
    #: Shortest and longest password, in characters.
    password_min: int = Field(default=8, ge=4, le=128)
    password_max: int = Field(default=256, ge=16, le=1024)
    #: Password checks (sign-ins, password changes, recovery) one client address may ask
    #: for per minute, whether they succeed or not: each costs a hash.
    password_checks_per_minute: int = Field(default=20, ge=1)
    #: Failed sign-ins on one account before each further one must wait; the wait doubles
    #: from one second with each failure, up to ``signin_delay_max`` seconds.
    signin_free: int = Field(default=5, ge=1)
    signin_delay_max: float = Field(default=60.0, gt=0, le=86400)
    #: The same per client address (all the names it tries): failures before waits, and
    #: the longest wait.
    signin_address_free: int = Field(default=20, ge=1)
    signin_address_delay_max: float = Field(default=300.0, gt=0, le=86400)
    #: Seconds without a failure after which an account's or an address's failures are
    #: forgotten.
    signin_window: float = Field(default=900.0, gt=0)
    #: Sessions one player may hold; a sign-in past it ends their least recently used one.
    sessions_per_player: int = Field(default=50, ge=1, le=10_000)
    #: Days an account's session may go unused before it ends (a guest's one session,
    #: which is their only key to their name, never ends by itself).
    session_days: float = Field(default=180.0, gt=0)
    #: Days a guest's name (no password) may go unused before it is released for others
    #: (its player, rating and games are kept); 0: never.
    guest_release_days: float = Field(default=90.0, ge=0)
    #: Seconds between two looks at the ``signals`` table, where operator actions (bans,
    #: renames, closed tables) and ended sessions wait for every server process: how soon
    #: they reach open connections.
    signal_poll: float = Field(default=1.0, ge=0.05, le=60)

    # -- many processes (docs/scaling.md) ------------------------------------------------------
    #: Redis URL (``redis://host:6379/0``): processes sharing it and one PostgreSQL store
    #: serve the same tables. Empty: one process, on its own.
    redis: str = ""
    #: Prefix of every Redis key and channel, so several deployments can share one Redis.
    redis_prefix: str = "nimmt:"
    #: Seconds a table's lease lasts unless its owner renews it: how long a dead owner's
    #: tables wait before another process takes them over.
    lease_ttl: float = Field(default=3.0, ge=0.5, le=300)
    #: Seconds between renewals of the leases (and looks for tables nobody owns).
    heartbeat: float = Field(default=1.0, ge=0.05, le=100)
    #: Server processes sharing the port (``nimmt serve --workers N``); more than one needs
    #: ``redis``.
    workers: int = Field(default=1, ge=1, le=256)
    #: The key every process signs its messages through Redis with (HMAC-SHA256), at least
    #: 32 characters; the same on every process. Empty: the key the first process made and
    #: stored in the database (every process of a cluster shares the database).
    cluster_secret: SecretStr = SecretStr("")
    #: Seconds a message between processes stays valid: older ones (and ones stamped further
    #: in the future) are refused as replays. The processes' clocks must agree within it.
    cluster_window: float = Field(default=30.0, ge=1, le=3600)
    #: Bytes of one message between processes; a larger one is dropped unread (a batch of
    #: frames is split to fit; a single frame past it sends its connection to reconnect).
    cluster_message_max: int = Field(default=64 << 20, ge=1 << 16, le=512 << 20)
    #: Seconds an HTTP read of a table another process owns waits for the owner's answer
    #: before it is answered 503.
    cluster_read_timeout: float = Field(default=5.0, gt=0, le=120)
    #: HTTP reads waiting for other processes' answers at once; more are answered 503.
    cluster_reads: int = Field(default=256, ge=1, le=100_000)

    # -- running it (docs/operations.md) -------------------------------------------------------
    #: ``host:port`` of the operations listener: ``/metrics`` (Prometheus), ``/healthz`` and
    #: ``/readyz`` on a socket of their own, never the game's (with ``workers`` N, process
    #: k listens on port + k). Empty: no ``/metrics`` at all; the game's port still answers
    #: ``/healthz`` and ``/readyz``.
    metrics_address: str = ""
    #: Log lines as readable text, or one JSON object per line (for a log collector).
    log_format: Literal["text", "json"] = "text"
    #: The least important lines of nimmt's own loggers written (``debug`` adds the bot
    #: workers' starts); other libraries write their warnings and errors.
    log_level: Literal["debug", "info", "warning", "error"] = "info"
    #: Seconds ``/readyz`` waits for the database (and Redis) before it says it failed.
    ready_timeout: float = Field(default=2.0, gt=0, le=60)

    @field_validator("metrics_address")
    @classmethod
    def _address(cls, value: str) -> str:
        if value.strip():
            listen_address(value)
        return value.strip()

    @field_validator("cluster_secret")
    @classmethod
    def _long_secret(cls, value: SecretStr) -> SecretStr:
        if 0 < len(value.get_secret_value()) < 32:
            raise ValueError("a cluster secret has at least 32 characters")
        return value

    def database_url(self) -> str:
        """The database URL, with the default SQLite file in the data directory."""
        if self.db:
            return self.db
        return f"sqlite+aiosqlite:///{self.data_dir / 'nimmt.db'}"
