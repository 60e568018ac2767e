"""Keys and typed commands, read the same way by both faces.

The Playroom's shortcuts (docs/rules.md §9) — V rows, 1–4 one row, C bullheads, T who
has chosen, S scores — plus W (who is at the table), A (the hand), R (the last reveal
again), H (a hint: the expert's advice on the decision asked) and K or ? (the keys) are
*actions*, declared with the web client's in :mod:`nimmt.keymap`, so a key means the
same in both clients. The Textual app binds them to single keys; the plain mode reads
them as a letter typed and Enter. Either way :class:`Interpreter` turns an action into its
sentence, taken from the session's sheet (the server's, online), so the faces and
the web client say the same thing for the same key. A :class:`Keymap` can move a
shortcut to another key or turn the single keys off (``--keys``); the commands
``/rows``, ``/scores`` … always work, and ``/repeat`` says the last announcement
again.

A line typed in the plain mode (or in the Textual command line) is one of: a
number (a card to play, or the row to take), a shortcut letter (``v``, ``v2``,
``c 55``), Enter alone (the question again), ``/command [argument]`` or
``'message`` (chat).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ..cards import parse_card
from ..keymap import actions_of, client_text, help_texts
from .session import InputRefused, Session

__all__ = ["ACTIONS", "ALIASES", "DEFAULT_KEYS", "Interpreter", "Keymap", "KeymapError",
           "Outcome"]

#: The single-key actions a keymap may move (nimmt.keymap), in the order help lists them.
_MOVABLE = tuple(a for a in actions_of("terminal") if not a.fixed)
ACTIONS = tuple(a.action for a in _MOVABLE)

DEFAULT_KEYS: Mapping[str, str] = {a.action: a.key for a in _MOVABLE}

#: Other keys that do an action (``?`` lists the keys), unless a keymap gives them another.
ALIASES: Mapping[str, str] = {k: a.action for a in _MOVABLE for k in a.aliases}

#: Commands by name (``/scores``) for every action, whatever the keymap says.
_ACTION_COMMANDS = {"rows": "rows", "bullheads": "bullheads", "chosen": "chosen",
                    "scores": "scores", "who": "who", "reveal": "reveal", "help": "keys",
                    "keys": "keys", "hint": "hint"}
_TABLE_COMMANDS = ("start", "bot", "sit", "rematch", "leave", "say", "invite", "accept",
                   "decline")


class KeymapError(ValueError):
    """A ``--keys`` value that cannot be used; the message says why."""


@dataclass(frozen=True, slots=True)
class Keymap:
    """Which key does which action; ``on`` is false when single-key shortcuts are off."""

    keys: Mapping[str, str]
    on: bool = True

    @classmethod
    def parse(cls, spec: str | None) -> Keymap:
        """``None`` or ``""``: the defaults; ``off``: no single keys; ``rows=x,scores=p``:
        those actions moved (each key one letter, digit or ``?``, used once)."""
        keys = dict(DEFAULT_KEYS)
        if not spec:
            return cls(keys)
        if spec.strip().lower() == "off":
            return cls(keys, on=False)
        for part in spec.split(","):
            action, sep, key = part.partition("=")
            action, key = action.strip().lower(), key.strip().lower()
            if not sep or action not in DEFAULT_KEYS:
                raise KeymapError(f"{part.strip()!r}: write ACTION=KEY with an action among "
                                  f"{', '.join(ACTIONS)}")
            if len(key) != 1 or not (key.isalnum() or key == "?"):
                raise KeymapError(f"{part.strip()!r}: a key is one letter, digit or ?")
            keys[action] = key
        taken: dict[str, str] = {}
        for action, key in keys.items():
            if key in taken:
                raise KeymapError(f"the key {key!r} is given to both {taken[key]} and {action}")
            taken[key] = action
        return cls(keys)

    def action(self, key: str) -> str | None:
        """The action of a single key (or of an alias no action was moved to), when
        shortcuts are on."""
        if not self.on:
            return None
        key = key.lower()
        return next((a for a, k in self.keys.items() if k == key), None) or ALIASES.get(key)


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a typed line came to: a sentence to ``say`` (a shortcut's or a refusal, when
    ``urgent``), or ``quit``; an answer or a table command has already been made."""

    say: str = ""
    urgent: bool = False
    quit: bool = False


class Interpreter:
    """Reads keys and lines for one session; remembers the current row or card for C."""

    def __init__(self, session: Session, keymap: Keymap | None = None) -> None:
        self.session = session
        self.keymap = keymap or Keymap.parse(None)
        #: The row (1–4) last spoken or focused, for C.
        self.row: int | None = None
        #: The card last named or focused, for C.
        self.card: int | None = None

    # -- actions ------------------------------------------------------------------------

    def speak(self, action: str) -> str:
        """The sentence of a shortcut action, for the table as it is now."""
        s = self.session
        snap = s.snapshot
        sheet = snap.sheet
        labels = s.labels
        if action == "keys":
            return self.help()
        if action == "reveal":
            return s.last_reveal or client_text(s.lang, "reveal.none")
        if action == "hint":
            return s.hint()
        if action == "who":
            # Before a game too: the sheet then names the seats.
            return sheet.who or labels("no_game")
        if not snap.playing:
            return labels("no_game")
        if action == "rows":
            self.row = None
            return sheet.rows
        if action.startswith("row"):
            n = int(action[3:])
            self.row, self.card = n, None
            return sheet.row[n - 1] if n <= len(sheet.row) else labels("no_row", row=n)
        if action == "bullheads":
            return self.bullheads()
        if action == "chosen":
            return sheet.chosen
        if action == "scores":
            return sheet.scores
        if action == "hand":
            return sheet.hand or sheet.idle
        raise ValueError(f"unknown action {action!r}")

    def bullheads(self, card: int | None = None) -> str:
        """C: the bullheads of a card (named, or the one in focus), else of the current row,
        else of every row."""
        sheet = self.session.snapshot.sheet
        card = self.card if card is None else card
        if card is not None:
            return sheet.card(card) or self.session.narrator.bullheads_sentence(card)
        if self.row is not None and self.row <= len(sheet.row_bullheads):
            return sheet.row_bullheads[self.row - 1]
        return " ".join(sheet.row_bullheads)

    def help(self) -> str:
        """Every key and command, one sentence each (the plain mode prints them as lines)."""
        labels = self.session.labels
        lines = [labels("help.title"), labels("help.number"), labels("help.enter")]
        if self.keymap.on:
            lines += self.key_lines()
            lines.append(labels("help.typed", rows=self.keymap.keys["rows"].upper(),
                                bullheads=self.keymap.keys["bullheads"].upper()))
        else:
            lines.append(labels("keys_off"))
        lines += [labels("help.hand"), labels("help.say"), labels("help.table"),
                  labels("help.quit")]
        return "\n".join(lines)

    def key_lines(self) -> list[str]:
        """``KEY: what it does`` for each shortcut, in the words the web client lists them."""
        texts = help_texts(self.session.lang)
        return [f"{self.keymap.keys[a].upper()}: {texts[a]}" for a in ACTIONS]

    def question(self) -> str:
        """Enter alone: the decision asked again, or who the table waits for."""
        snap = self.session.snapshot
        if snap.ask is not None and snap.sheet.typed_decision:
            return snap.sheet.typed_decision
        if snap.status == "over":
            return self.session.labels("status.over")
        if not snap.playing:
            return self.session.labels("status.open")
        return snap.sheet.chosen or self.session.labels("nothing_asked")

    # -- lines ----------------------------------------------------------------------------

    def line(self, text: str) -> Outcome:
        """Act on one typed line; see the module's description for what a line may be."""
        text = text.strip()
        try:
            return self._line(text)
        except InputRefused as exc:
            return Outcome(str(exc), urgent=True)

    def _line(self, text: str) -> Outcome:
        s = self.session
        if not text:
            return Outcome(self.question())
        if text.startswith("'"):
            s.command("say", text[1:].strip())
            return Outcome()
        if text.startswith("/"):
            return self._command(text[1:])
        number = _number(text)
        if number is not None:
            return self._number(text, number)
        key, rest = text[0], text[1:].strip()
        action = self.keymap.action(key)
        if action is None:
            raise InputRefused(s.labels("unknown_key", key=text))
        if rest:
            arg = _number(rest)
            if action == "rows" and arg is not None and 1 <= arg <= 4:
                return Outcome(self.speak(f"row{arg}"))
            if action == "bullheads" and arg is not None:
                self.card, self.row = arg, None
                return Outcome(self.bullheads(arg))
            raise InputRefused(s.labels("unknown_key", key=text))
        return Outcome(self.speak(action))

    def _number(self, text: str, number: int) -> Outcome:
        s = self.session
        ask = s.snapshot.ask
        if ask is None:
            action = self.keymap.action(text) if len(text) == 1 else None
            if action is not None and action.startswith("row"):
                return Outcome(self.speak(action))
            raise InputRefused(s.labels("nothing_asked"))
        if ask.kind == "row":
            if not 1 <= number <= 4:
                raise InputRefused(s.labels("not_a_row"))
            s.answer(number)
            return Outcome()
        s.answer(number)
        self.card = number
        return Outcome()

    def _command(self, text: str) -> Outcome:
        s = self.session
        word, _, arg = text.strip().partition(" ")
        word, arg = word.lower(), arg.strip()
        if word in ("quit", "exit", "q"):
            return Outcome(quit=True)
        if word == "chat":
            word = "say"
        if word in _TABLE_COMMANDS:
            s.command(word, arg)
            return Outcome()
        if word == "row" and arg.isdigit() and 1 <= int(arg) <= 4:
            return Outcome(self.speak(f"row{arg}"))
        if word == "bullheads" and arg:
            card = _number(arg)
            if card is None:
                raise InputRefused(s.labels("not_a_card", text=arg))
            self.card, self.row = card, None
            return Outcome(self.bullheads(card))
        if word == "repeat":
            return Outcome(s.last_said)
        if word == "hand":
            return Outcome(self.speak("hand") or s.labels("no_game"))
        if word in _ACTION_COMMANDS:
            return Outcome(self.speak(_ACTION_COMMANDS[word]))
        raise InputRefused(s.labels("unknown_command", command="/" + word))


def _number(text: str) -> int | None:
    """A card or row typed as a number: ``55``, or a joker ``0.3`` / ``0,3``."""
    text = text.strip().replace(",", ".")
    try:
        return parse_card(text)
    except ValueError:
        return int(text) if text.isdigit() else None

