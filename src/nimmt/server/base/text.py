"""Names and free text from strangers: normalized, comparable, and without tricks.

A display name is shown to everyone at a table and in the history, so two names
that *look* alike must count as one name, and a name must show something. Chat
and table names are shown as typed, so they may not carry the characters that
reorder the text around them.

**Names** are normalized to NFC, their runs of white space made one space, and
refused when they hold control, format, private-use, unassigned or invisible
characters, or nothing visible at all. Two names are the same name when their
:func:`name_key` is equal: the UTS #39 *skeleton* (each character replaced by the
prototype of its confusable class, from the Unicode confusables data), taken
again after case folding, so "José" composed and decomposed, "Ana" and "Аna"
(Cyrillic А), "paypal" and "pаypal", "Il" and "ll" are each one name. The
skeletons come from ICU's ``SpoofChecker`` (PyICU, from the ``pyicu-wheels``
binary wheels, which carry their own ICU and so its own copy of the Unicode data),
never from a table kept here. The store keeps each player's key under a unique
index (migration ``0002``).

**Text** (chat, table names) loses control characters, lone surrogates and the
bidirectional controls (embeddings, overrides, isolates and marks): a U+202E in a
table name would otherwise reverse the heading of every page that shows it. A run
of combining marks on one character is cut at :data:`MARKS_MAX` (no script stacks
more; hundreds drawn on one letter cover the lines around it). The web client also
shows every name and text inside a ``<bdi>``, so right-to-left text stays in its
place. A **chat line** (:func:`chat_line`) must also show something, by the rule
names follow: a line of zero-width characters, Hangul fillers or braille blanks is
refused as empty.
"""

from __future__ import annotations

import icu  # type: ignore[import-untyped]

from ... import wire as P

__all__ = [
    "BIDI_CONTROLS",
    "MARKS_MAX",
    "NAME_MAX",
    "VISIBLE_BLANKS",
    "BadName",
    "chat_line",
    "check_name",
    "clean_text",
    "has_visible",
    "name_key",
]

#: Longest display name, in code points after NFC.
NAME_MAX = 24
#: Longest name key: a skeleton may be longer than its name (U+FDFA becomes 18
#: characters); the bound keeps the unique index's entries small on every database.
SKELETON_MAX = 512

#: Combining marks kept on one character: Vietnamese, Hebrew with points and cantillation,
#: Thai and Tibetan stay within it (Unicode's stream-safe format allows 30).
MARKS_MAX = 8

#: Embeddings, overrides, isolates and the implicit directional marks (LRM, RLM, ALM).
BIDI_CONTROLS = frozenset(
    "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"
)
#: Characters that draw nothing and yet are neither default-ignorable nor white space
#: in current Unicode data (the Hangul fillers are default-ignorable now; they are
#: named here too, for data that predates that).
VISIBLE_BLANKS = frozenset("\u2800\u3164\u115f\u1160\uffa0\U0001d159")

_NFC = icu.Normalizer2.getNFCInstance()
_MARK = icu.UnicodeSet(r"[[:Mn:][:Me:]]")
_SPOOF = icu.SpoofChecker()
_SPACE = icu.UnicodeSet(r"[:White_Space:]")
_BLANKS = "".join(f"\\U{ord(ch):08X}" for ch in sorted(VISIBLE_BLANKS))
# What a name may not hold: controls, format characters (zero-width ones and bidi
# controls among them), surrogates, private use, unassigned code points, line and
# paragraph separators, and the other default-ignorable characters (Hangul fillers,
# the combining grapheme joiner) except the variation selectors emoji need.
_FORBIDDEN = icu.UnicodeSet(
    r"[[:Cc:][:Cf:][:Cs:][:Co:][:Cn:][:Zl:][:Zp:]"
    r"[[:Default_Ignorable_Code_Point:]-[:Variation_Selector:]]]"
)
# What shows: letters, digits, punctuation and symbols, minus the blanks and the
# invisible. Marks alone draw on nothing, so they do not count.
_VISIBLE = icu.UnicodeSet(
    r"[[:L:][:N:][:P:][:S:]-[:Default_Ignorable_Code_Point:]-[:White_Space:]-[" + _BLANKS + "]]"
)


def _no_surrogates(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def has_visible(text: str) -> bool:
    """Whether ``text`` shows anything: a letter, digit, punctuation mark or symbol that is
    neither white space, default-ignorable nor one of :data:`VISIBLE_BLANKS`.

    >>> has_visible("\\u3164\\u2800 \\u200b"), has_visible("\\u3164a")
    (False, True)
    """
    return bool(_VISIBLE.containsSome(text))


def name_key(name: str) -> str:
    """What two names must not share: the UTS #39 skeleton of the case-folded skeleton.

    The inner skeleton lets capital I meet small l (their skeletons are both l)
    before folding; the outer one maps what folding made (capitals of other scripts
    become small letters with confusables of their own).

    >>> name_key("Аna") == name_key("ANA") == name_key("ana")
    True
    >>> name_key("paypal") == name_key("pаypal"), name_key("Ana") == name_key("Anna")
    (True, False)
    """
    first: str = _SPOOF.getSkeleton(0, name)
    key: str = _SPOOF.getSkeleton(0, first.casefold())
    return key


class BadName(P.ProtocolError):
    """A string that cannot be a name (``bad_name``): who looks a name up by what a person
    typed (the store, the operator's commands) catches this alone."""

    def __init__(self, message: str) -> None:
        super().__init__("bad_name", message)


def check_name(raw: str) -> str:
    """A display name as it is kept: NFC, single spaces, 1 to :data:`NAME_MAX` code points,
    something visible, nothing invisible or controlling; else ``bad_name``.

    >>> check_name("  Jose\\u0301   Luis ")
    'José Luis'
    """
    if not _no_surrogates(raw):
        raise BadName("a name may not hold a lone surrogate")
    name = _NFC.normalize(raw)
    name = " ".join("".join(" " if _SPACE.contains(ch) else ch for ch in name).split())
    if not name or len(name) > NAME_MAX:
        raise BadName(f"a name holds 1 to {NAME_MAX} characters")
    if _FORBIDDEN.containsSome(name):
        bad = next(ch for ch in name if _FORBIDDEN.contains(ch))
        raise BadName(f"a name may not hold control or invisible characters such as "
                      f"U+{ord(bad):04X}")
    if not has_visible(name):
        raise BadName("a name must show at least one letter, digit or symbol")
    if len(name_key(name)) > SKELETON_MAX:
        raise BadName("that name is too long once spelled out")
    return name


def clean_text(text: str) -> str:
    """Plain text: NFC; line breaks and tabs become spaces; other control characters, lone
    surrogates and bidi controls (:data:`BIDI_CONTROLS`) go.

    >>> clean_text("ab\\u202ecd\\nef\\x00")
    'abcd ef'
    """
    out = []
    for ch in text:
        o = ord(ch)
        if ch in "\r\n\t":
            out.append(" ")
        elif (o < 32 or 0x7F <= o < 0xA0 or 0xD800 <= o < 0xE000 or ch in BIDI_CONTROLS
              or ch in "\u2028\u2029\ufeff"):
            continue
        else:
            out.append(ch)
    cleaned: str = _NFC.normalize("".join(out))
    if _MARK.containsSome(cleaned):
        cleaned = _cut_marks(cleaned)
    return cleaned.strip()


def _cut_marks(text: str) -> str:
    """``text`` with each run of combining marks cut at :data:`MARKS_MAX`."""
    out: list[str] = []
    run = 0
    for ch in text:
        run = run + 1 if _MARK.contains(ch) else 0
        if run <= MARKS_MAX:
            out.append(ch)
    return "".join(out)


def chat_line(raw: str, most: int) -> str:
    """A chat line as kept (:func:`clean_text`), or its refusal: ``chat_empty`` when it
    shows nothing (:func:`has_visible`), ``chat_too_long`` past ``most`` characters.

    >>> chat_line(" hi\u0301\u0301 ", 10)
    'hí\u0301'
    >>> chat_line("\u200b\u3164\u2800", 10)
    Traceback (most recent call last):
    ...
    nimmt.wire.frames.ProtocolError: the chat message is empty or shows nothing
    """
    text = clean_text(raw)
    if not has_visible(text):
        raise P.ProtocolError("chat_empty", "the chat message is empty or shows nothing")
    if len(text) > most:
        raise P.ProtocolError("chat_too_long", f"chat messages hold at most {most} "
                              f"characters, not {len(text)}")
    return text
