"""What a transcript shows: the checks on what Orca said in one game, and its figures.

Each check returns what it found wrong (empty: nothing), so one game's test can
tell every failure at once; :func:`figures` gives the numbers docs/web.md shows.
"""

from __future__ import annotations

import json
import re
import statistics
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from babel.messages.pofile import read_po

from nimmt.narrate import LOCALE_DIR, narrator

from .game import GameRun, Turn
from .orca import Utterance, cut_off

__all__ = [
    "MAX_KEYS_PER_TURN",
    "MAX_KEYS_TO_FIRST_CARD",
    "MAX_UTTERANCES_PER_TURN",
    "OLD",
    "cut_reveals",
    "duplicates",
    "english",
    "figures",
    "old_rereads",
    "ordinary_turns",
    "row_prompts",
    "shortcut_failures",
    "unspoken",
]

STATIC = Path(__file__).resolve().parents[2] / "src" / "nimmt" / "web" / "static" / "i18n"
#: An ordinary turn (the card asked, played, revealed): at most this many utterances
#: (the reveal with its placements, "all others have chosen", the prompt, the card
#: focused) and this many key presses (the issue's aim: three).
MAX_UTTERANCES_PER_TURN = 4
MAX_KEYS_PER_TURN = 3
#: From the lobby to the first card played by the quick game (the issue's aim).
MAX_KEYS_TO_FIRST_CARD = 8
#: A live message is "old" when the page put it in a live region this many seconds
#: before Orca says it (a re-read, not news).
OLD = 10.0
#: Seconds in which Orca says the control focus moved to (a loaded machine is slow).
FOCUS_SAID = 3.0


def _norm(text: str) -> str:
    return " ".join(text.split())


def spoken(said: Iterable[Utterance]) -> list[Utterance]:
    return [u for u in said if u.kind == "speech"]


#: Orca's own words as focus leaves a container ("leaving form."; Serbian "napuštam
#: oblast."): its navigation context, said each time focus crosses the container's edge,
#: not a sentence of the page.
LEAVING = re.compile(r"^(leaving|napuštam|opouštím) [\w ]+\.?$")


#: An utterance restarted by the same words within this many seconds was heard once: the
#: first is cut after a syllable (Orca, on a loaded machine, may present one focus event
#: twice, 60 ms apart).
RESTART = 0.25


def duplicates(said: list[Utterance], key_times: list[float]) -> list[str]:
    """Sentences said twice with no key pressed between them (a key may ask again); Orca's
    :data:`LEAVING` context words and a :data:`RESTART` aside."""
    out = []
    marks = sorted(key_times)
    seen: dict[str, int] = {}
    last: Utterance | None = None
    for u in spoken(said):
        span = sum(1 for t in marks if t <= u.t)
        text = _norm(u.text)
        restart = (last is not None and u.interrupt and _norm(last.text) == text
                   and u.t - last.t < RESTART)
        last = u
        if LEAVING.match(text) or restart:
            continue
        if seen.get(text) == span:
            out.append(text)
        seen[text] = span
    return out


def reveal_prefix(lang: str) -> str:
    """How the reveal sentence begins in ``lang`` ("Cards revealed:")."""
    return narrator(lang)._("Cards revealed: {plays}.").split("{plays}")[0].strip()


def cut_reveals(said: list[Utterance], lang: str, cps: float) -> list[str]:
    """Reveals cut short (:func:`.orca.cut_off` at ``cps`` characters a second), each with
    what cut it."""
    prefix = reveal_prefix(lang)
    said = [u for u in said if u.kind in ("speech", "stop")]
    out = []
    for i, u in enumerate(said):
        if u.kind == "speech" and prefix in u.text:
            by = cut_off(said, i, cps)
            if by is not None:
                out.append(f"{u.text!r} cut after {by.t - u.t:.2f} s by "
                           f"{by.kind} {by.text!r}")
    return out


def _between(said: list[Utterance], start: float, end: float) -> list[Utterance]:
    return [u for u in spoken(said) if start <= u.t <= end]


def row_prompts(run: GameRun, said: list[Utterance]) -> list[str]:
    """Row decisions whose prompt (the rows and their cost) Orca never said before the row
    was taken."""
    out = []
    previous = run.started
    for turn in run.turns:
        if turn.kind == "row":
            prompt = _norm(turn.sheet["decision"] or "")
            heard = [_norm(u.text) for u in _between(said, previous, turn.acted)]
            if not any(prompt in h for h in heard):
                out.append(f"round {turn.round} turn {turn.turn}: {prompt!r} not said")
        previous = turn.acted
    return out


def old_rereads(said: list[Utterance], live: list[dict[str, Any]],
                focused: Sequence[dict[str, Any]] = ()) -> list[str]:
    """Utterances of a live message the page added more than :data:`OLD` seconds earlier
    and not since, unless they name the control focus had just moved to (a row's radio
    button is labelled with the row's sentence, which V or 1–4 may have said before)."""
    added: dict[str, list[float]] = {}
    for item in live:
        added.setdefault(_norm(item["text"]), []).append(item["t"])
    out = []
    for u in spoken(said):
        times = [t for t in added.get(_norm(u.text), []) if t <= u.t + 0.05]
        control = any(u.t - FOCUS_SAID <= f["t"] <= u.t + 0.05
                      and _norm(u.text) in _norm(f["text"]) for f in focused)
        if times and u.t - max(times) > OLD and not control:
            out.append(f"{u.text!r}, {u.t - max(times):.0f} s after it was new")
    return out


def unspoken(said: list[Utterance], live: list[dict[str, Any]]) -> list[str]:
    """Live messages Orca never said (whole, in one utterance) after they were added."""
    out = []
    utterances = spoken(said)
    for item in live:
        text = _norm(item["text"])
        if not any(u.t >= item["t"] - 0.05 and text in _norm(u.text) for u in utterances):
            out.append(f"{item['live']} {item['id']}: {text!r}")
    return out


def shortcut_failures(run: GameRun) -> list[str]:
    """Shortcuts that were not pressed from the hand or did not say their answer."""
    if not run.shortcuts:
        return ["the shortcut turn never came"]
    out = []
    for s in run.shortcuts:
        if s.expected is None:
            continue
        if not s.focus_in_hand:
            out.append(f"{s.key}: pressed with focus outside the hand")
        if not any(_norm(s.expected) in _norm(h) for h in s.heard):
            out.append(f"{s.key}: expected {s.expected!r}, heard {s.heard!r}")
    return out


def refusal_failures(run: GameRun) -> list[str]:
    """The refusal of a Start with a seat empty, unless it was said as the server's
    narration words it in the game's language."""
    want = narrator(run.lang).refusal_sentence("seats_empty")
    if any(_norm(want) in _norm(h) for h in run.refusal):
        return []
    return [f"expected {want!r}, heard {run.refusal!r}"]


def _words(texts: Iterable[str]) -> set[str]:
    found: set[str] = set()
    for text in texts:
        text = re.sub(r"\{[^}]*\}", " ", text)
        found.update(w.lower() for w in re.findall(r"[A-Za-z]{3,}", text))
    return found


def _catalog(lang: str) -> tuple[set[str], set[str]]:
    """The words of the project's English strings, and those of ``lang``'s translations."""
    with (LOCALE_DIR / lang / "LC_MESSAGES" / "nimmt.po").open("rb") as f:
        po = read_po(f)
    english: list[str] = []
    translated: list[str] = []
    for m in po:
        if not m.id:
            continue
        ids = m.id if isinstance(m.id, tuple) else (m.id,)
        strs = m.string if isinstance(m.string, (tuple, list)) else (m.string,)
        english.extend(str(i) for i in ids)
        translated.extend(str(s) for s in strs if s)
    ui_en = json.loads((STATIC / "en.json").read_text())
    ui = json.loads((STATIC / f"{lang}.json").read_text())

    def values(d: Any) -> Iterable[str]:
        for v in d.values():
            if isinstance(v, dict):
                yield from values(v)
            else:
                yield str(v)

    english.extend(values(ui_en))
    translated.extend(values(ui))
    return _words(english), _words(translated)


#: Words Orca itself adds for roles and states, in English where its own catalog of the
#: language lacks them ("Skupovi menu"): the screen reader's words, not the page's.
ORCA_WORDS = frozenset({"menu", "push", "button", "frame", "entry", "combo", "box", "heading",
                        "level", "list", "item", "items", "link", "dialog", "radio", "selected",
                        "not", "clickable"})


def english(said: list[Utterance], lang: str, since: float) -> list[str]:
    """Utterances from ``since`` on with words of the project's English strings that the
    ``lang`` strings do not use (bot names, table names, untranslated labels)."""
    english_words, own = _catalog(lang)
    foreign = english_words - own - ORCA_WORDS
    out = []
    for u in spoken(said):
        if u.t < since:
            continue
        words = {w.lower() for w in re.findall(r"[A-Za-z]{3,}", u.text)} & foreign
        if words:
            out.append(f"{u.text!r} ({', '.join(sorted(words))})")
    return out


def ordinary_turns(run: GameRun) -> list[tuple[Turn, Turn]]:
    """Card turns (with the turn before) after a card turn, shortcuts not pressed: the
    player heard the reveal, the others choose, the prompt, and played a card."""
    pairs = []
    for before, turn in zip(run.turns, run.turns[1:], strict=False):
        if (turn.kind == before.kind == "card" and not turn.shortcuts
                and not before.shortcuts and turn.round == before.round):
            pairs.append((before, turn))
    return pairs


def figures(run: GameRun, said: list[Utterance], live: list[dict[str, Any]],
            key_times: list[float], cps: float,
            focused: Sequence[dict[str, Any]] = ()) -> dict[str, Any]:
    """The numbers of one game: per ordinary turn, and the faults counted."""
    per_turn = [len(_between(said, before.acted + 0.001, turn.acted))
                for before, turn in ordinary_turns(run)]
    keys = [turn.keys for _, turn in ordinary_turns(run)]
    game = spoken(u for u in said if run.started <= u.t <= run.ended)
    return {
        "lang": run.lang,
        "decisions": len(run.turns),
        "row_decisions": sum(1 for t in run.turns if t.kind == "row"),
        "utterances": len(game),
        "utterances_per_ordinary_turn": statistics.median(per_turn) if per_turn else None,
        "utterances_per_ordinary_turn_max": max(per_turn, default=None),
        "keys_per_ordinary_turn": statistics.median(keys) if keys else None,
        "keys_to_first_card": run.keys_to_first_card,
        "typed_to_first_card": run.typed_to_first_card,
        "duplicates": len(duplicates(said, key_times)),
        "cut_reveals": len(cut_reveals(said, run.lang, cps)),
        "reveals": sum(1 for u in game if reveal_prefix(run.lang) in u.text),
        "old_rereads": len(old_rereads(said, live, focused)),
        "unspoken_live": len(unspoken(said, live)),
        "silent_row_prompts": len(row_prompts(run, said)),
        "english": len(english(said, run.lang, run.in_language)) if run.lang != "en" else 0,
    }
