"""The shortcut keys of both clients, declared once.

``web/static/keymap.json`` lists every single-key action: its default key, the id of
its help text and the clients that have it (``web``, ``terminal`` or both). The web
client imports that file as a module (``keys.js``); the terminal reads it here, so
the two cannot give a key two meanings: R repeats the last reveal and K (or ``?``)
lists the keys in both. The help texts are the web catalogs' (``web/static/i18n``),
so a key is described in the same words by both clients.

A key marked ``fixed`` (the terminal's Ctrl+Q, Escape and F6) is not moved by a
keymap; the others may be (the web's Settings, the terminal's ``--keys``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Literal

__all__ = ["KEYMAP_FILE", "KEY_ACTIONS", "Client", "KeyAction", "actions_of", "client_text",
           "help_texts"]

Client = Literal["web", "terminal"]

#: The declared key map, a static file of the web client.
KEYMAP_FILE = Path(__file__).parent / "web" / "static" / "keymap.json"
_CATALOGS = Path(__file__).parent / "web" / "static" / "i18n"


@dataclass(frozen=True, slots=True)
class KeyAction:
    """One shortcut: ``action`` done by ``key`` (and its ``aliases``) in ``clients``,
    described by the catalog text ``help``."""

    action: str
    key: str
    help: str
    clients: tuple[Client, ...]
    aliases: tuple[str, ...] = ()
    fixed: bool = False


def _action(entry: dict[str, Any]) -> KeyAction:
    return KeyAction(entry["action"], entry["key"], entry["help"], tuple(entry["clients"]),
                     tuple(entry.get("aliases", ())), bool(entry.get("fixed", False)))


#: Every action, in the order the key lists give them.
KEY_ACTIONS: tuple[KeyAction, ...] = tuple(
    _action(e) for e in json.loads(KEYMAP_FILE.read_text(encoding="utf-8"))["actions"])


def actions_of(client: Client) -> tuple[KeyAction, ...]:
    """The actions ``client`` has, in order."""
    return tuple(a for a in KEY_ACTIONS if client in a.clients)


@cache
def _catalog(code: str) -> dict[str, Any]:
    if not code.isalpha():  # a language code only: never a path
        return {}
    try:
        data: dict[str, Any] = json.loads((_CATALOGS / f"{code}.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data


def client_text(lang: str, key: str) -> str:
    """A text of the clients' catalogs in ``lang`` (English where it has none): what both
    clients say of themselves (a key's help, that no cards were revealed yet)."""
    value = _catalog(lang).get(key) or _catalog("en")[key]
    return str(value)


def help_texts(lang: str) -> dict[str, str]:
    """Each action's help text in ``lang`` (English where the language has none)."""
    return {a.action: client_text(lang, a.help) for a in KEY_ACTIONS}
