"""The server's log: one line per event that matters, readable by default, JSON on request.

Everything logs through the standard :mod:`logging` module on loggers under
``nimmt`` (``nimmt.server``, ``nimmt.server.bots``, ``nimmt.server.tutor``);
``nimmt serve`` sends them to standard error through one handler whose
formatter is chosen by ``log_format``:

- ``text`` (the default): ``2026-03-01 12:00:00.123 INFO nimmt.server: table
  K7WQ3M opened by Ana [table.created table=K7WQ3M player=12]``: the sentence,
  then the event's name and fields;
- ``json``: one object per line, ``{"time", "level", "logger", "message",
  "event", "pid", "node", …}`` with the event's fields as keys (``table``,
  ``player``, ``status``, …) and ``exception`` holding a traceback.

A line that is an *event* says so with ``extra=event("table.created",
table=code, …)``; its fields are what a log collector filters on. Every line
about a table carries ``table`` (its code), so one game can be followed through
every process of a cluster; lines of a cluster's process carry its ``node``.

Secrets are never logged: no code path logs a player's token, and the
formatter replaces the values it knows to be secret (the cluster's key, the
passwords in the database and Redis URLs) with ``***`` in every line, should one
ever reach a message (an exception's text, say).

Logging never holds the event loop up: a line is formatted where it is logged
and written by a thread of its own (:class:`LineWriter`), so a standard error
nobody reads fast enough (a full pipe, a slow journal) costs lines, counted and
said, never the game's time.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import queue
import sys
import threading
import time
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, unquote, urlsplit

if TYPE_CHECKING:
    from .settings import Settings

__all__ = ["QUEUE_MAX", "Failures", "JsonFormatter", "LineWriter", "TextFormatter", "configure",
           "configured", "event", "flush", "secrets_of", "set_context"]

#: The attributes of a log record that hold its event's name and fields.
EVENT = "nimmt_event"
FIELDS = "nimmt_fields"
#: What every line of this process carries (its cluster node, once it has one).
_CONTEXT: dict[str, object] = {}
#: Secrets shorter than this are not looked for (they would mask ordinary words).
_SHORTEST = 4
#: Lines waiting for the writer thread; past this many, new lines are dropped (and counted).
QUEUE_MAX = 10_000
#: Seconds the writer gets to write what is queued when the process ends.
FLUSH_SECONDS = 5.0
_writer: LineWriter | None = None


def event(name: str, **fields: object) -> dict[str, Any]:
    """The ``extra`` of a log call that is the event ``name`` with ``fields``:
    ``log.info("table %s opened", code, extra=event("table.created", table=code))``."""
    return {EVENT: name, FIELDS: fields}


def set_context(**fields: object) -> None:
    """Fields every later line of this process carries (``node`` in a cluster); a field
    set to None is carried no more."""
    for key, value in fields.items():
        if value is None:
            _CONTEXT.pop(key, None)
        else:
            _CONTEXT[key] = value


def secrets_of(settings: Settings) -> list[str]:
    """The secret values in ``settings``: the cluster's key and the passwords of the
    database and Redis URLs (as written and percent-decoded)."""
    found = [settings.cluster_secret.get_secret_value()]
    for url in (settings.db, settings.redis):
        if not url:
            continue
        try:
            parts = urlsplit(url)
            found.append(parts.password or "")
            found.extend(parse_qs(parts.query).get("password", []))
        except ValueError:
            continue
    found += [unquote(s) for s in found]
    return sorted({s for s in found if len(s) >= _SHORTEST}, key=len, reverse=True)


class _Redacting(logging.Formatter):
    """A formatter that replaces known secrets in its lines with ``***``."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        super().__init__()
        self.secrets = sorted({s for s in secrets if len(s) >= _SHORTEST}, key=len,
                              reverse=True)

    def redact(self, line: str) -> str:
        for secret in self.secrets:
            if secret in line:
                line = line.replace(secret, "***")
        return line

    def formatTime(self, record: logging.LogRecord, datefmt: str | None = None) -> str:
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
        return f"{stamp}.{int(record.msecs):03d}Z"


class JsonFormatter(_Redacting):
    """One JSON object per line; the event's fields are keys of their own."""

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, object] = {
            "time": self.formatTime(record),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        name = getattr(record, EVENT, None)
        if name is not None:
            out["event"] = name
        out["pid"] = os.getpid()
        for key, value in {**_CONTEXT, **(getattr(record, FIELDS, None) or {})}.items():
            out.setdefault(key, value)
        if record.exc_info:
            out["exception"] = self.formatException(record.exc_info)
        if record.stack_info:
            out["stack"] = self.formatStack(record.stack_info)
        return self.redact(json.dumps(out, ensure_ascii=False, default=str))


class TextFormatter(_Redacting):
    """``time LEVEL logger: message [event key=value …]``, a traceback below it."""

    def format(self, record: logging.LogRecord) -> str:
        line = f"{self.formatTime(record)} {record.levelname} {record.name}: " \
               f"{record.getMessage()}"
        name = getattr(record, EVENT, None)
        fields = {**_CONTEXT, **(getattr(record, FIELDS, None) or {})}
        if name is not None or fields:
            shown = [str(name)] if name is not None else []
            shown += [f"{k}={_word(v)}" for k, v in fields.items()]
            line += f" [{' '.join(shown)}]"
        if record.exc_info:
            line += "\n" + self.formatException(record.exc_info)
        if record.stack_info:
            line += "\n" + self.formatStack(record.stack_info)
        return self.redact(line)


def _word(value: object) -> str:
    """A field's value as one word of a text line (quoted when it holds spaces)."""
    text = str(value)
    if not text or any(c.isspace() or c in '"[]=' for c in text):
        return json.dumps(text, ensure_ascii=False)
    return text


class LineWriter(logging.Handler):
    """Formats each record on the thread that logs it and queues the line; a thread of its
    own writes the lines to ``stream``. When the writer is :data:`QUEUE_MAX` lines behind,
    new lines are dropped, and the next line written is preceded by one that says how
    many (``log.dropped``)."""

    def __init__(self, formatter: logging.Formatter, stream: Any) -> None:
        super().__init__()
        self.setFormatter(formatter)
        self.stream = stream
        #: Lines to write; an event to set once the lines before it are written (a flush);
        #: None to stop.
        self.lines: queue.Queue[str | threading.Event | None] = queue.Queue(QUEUE_MAX)
        self.dropped = 0
        self._count = threading.Lock()
        self._thread = threading.Thread(target=self._write, name="nimmt-log", daemon=True)
        self._thread.start()

    def emit(self, record: logging.LogRecord) -> None:
        try:
            line = self.format(record)
        except Exception:
            self.handleError(record)
            return
        try:
            self.lines.put_nowait(line)
        except queue.Full:
            with self._count:
                self.dropped += 1

    def _write(self) -> None:
        while True:
            line = self.lines.get()
            if line is None:
                return
            if isinstance(line, threading.Event):
                line.set()
                continue
            with self._count:
                dropped, self.dropped = self.dropped, 0
            if dropped:
                note = logging.LogRecord("nimmt.server", logging.WARNING, __file__, 0,
                                         "%d log lines were dropped: standard error was not "
                                         "read fast enough", (dropped,), None)
                note.__dict__.update(event("log.dropped", lines=dropped))
                line = f"{self.format(note)}\n{line}"
            with contextlib.suppress(OSError, ValueError):  # a closed or broken stream
                self.stream.write(line + "\n")
                self.stream.flush()

    def flush(self) -> None:
        """Wait until the lines queued now are written, for at most :data:`FLUSH_SECONDS`
        (a stream nobody reads is not waited for longer)."""
        if not self._thread.is_alive():
            return
        written = threading.Event()
        deadline = time.monotonic() + FLUSH_SECONDS
        try:
            self.lines.put(written, timeout=FLUSH_SECONDS)
        except queue.Full:
            return
        written.wait(max(0.0, deadline - time.monotonic()))

    def close(self) -> None:
        """Write what is queued (for at most :data:`FLUSH_SECONDS`), then stop the thread."""
        self.flush()
        with contextlib.suppress(queue.Full):
            self.lines.put_nowait(None)
        super().close()


def configure(settings: Settings) -> None:
    """Send this process's log lines to standard error in ``settings.log_format``, from
    ``settings.log_level`` up for nimmt's loggers and from ``WARNING`` up for the
    libraries' (uvicorn's among them, through the same handler)."""
    global _writer
    secrets = secrets_of(settings)
    formatter: logging.Formatter = (JsonFormatter(secrets) if settings.log_format == "json"
                                    else TextFormatter(secrets))
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
        if old is _writer:
            old.close()
    # logging.shutdown (at exit) closes it: what is queued is written then.
    _writer = LineWriter(formatter, sys.stderr)
    root.addHandler(_writer)
    level = logging.getLevelName(settings.log_level.upper())
    root.setLevel(max(level, logging.WARNING))
    logging.getLogger("nimmt").setLevel(level)
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access", "uvicorn.asgi"):
        lib = logging.getLogger(name)
        for old in list(lib.handlers):
            lib.removeHandler(old)
        lib.propagate = True
    logging.captureWarnings(True)


def flush() -> None:
    """Write the lines logged so far before going on (the server's last moments: a process
    ended by SIGTERM runs no exit handler)."""
    if _writer is not None:
        _writer.flush()


def configured() -> bool:
    """Whether :func:`configure` set this process's logging up (uvicorn then leaves it)."""
    return _writer is not None


class Failures:
    """Unexpected failures of a kind (a message type, a part), logged with their
    traceback at most once every ``every`` seconds per kind; the others are counted
    and said in the next one. A stranger who can make a request fail must not be
    able to fill the log: one address once wrote 176 tracebacks in six seconds."""

    def __init__(self, logger: logging.Logger, every: float = 60.0) -> None:
        self.log = logger
        self.every = every
        #: Per kind: when its traceback was last logged, and the failures not logged since.
        self._kinds: dict[str, tuple[float, int]] = {}

    def failed(self, kind: str, what: str) -> None:
        """Call from an ``except`` block: ``what`` failed (a sentence), of ``kind``."""
        now = time.monotonic()
        last, quiet = self._kinds.get(kind, (-self.every, 0))
        if now - last < self.every:
            self._kinds[kind] = (last, quiet + 1)
            return
        if len(self._kinds) > 1024:
            self._kinds.clear()
        self._kinds[kind] = (now, 0)
        more = f" ({quiet} more like it since the last one logged)" if quiet else ""
        self.log.exception("%s%s", what, more, extra=event("failure", kind=kind,
                                                           unlogged=quiet))
