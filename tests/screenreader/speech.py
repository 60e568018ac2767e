"""What a transcript shows: the checks on what Orca said in one game, and its figures.

Each check returns what it found wrong (empty: nothing), each :class:`Finding`
with the time it happened, so that one game's test can tell every failure at
once and quote the transcript around each (:func:`report`); :func:`figures`
gives the numbers docs/web.md shows.
"""

from __future__ import annotations

import functools
import json
import re
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from babel.messages.pofile import read_po

from nimmt.narrate import LOCALE_DIR, narrator

from .game import GameRun, Turn
from .orca import Utterance, cut_off, speaking_time

__all__ = [
    "MAX_KEYS_PER_TURN",
    "MAX_KEYS_TO_FIRST_CARD",
    "MAX_RECOVERIES",
    "MAX_UTTERANCES_PER_TURN",
    "OLD",
    "ORCA_PHRASES",
    "Finding",
    "browse_mode_keys",
    "busy_turns",
    "cut_reveals",
    "duplicates",
    "english",
    "english_in",
    "figures",
    "foreign_words",
    "keyed_turns",
    "old_rereads",
    "ordinary_turns",
    "report",
    "row_prompts",
    "sentences",
    "shortcut_failures",
    "turn_utterances",
    "unheard_prompts",
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


@dataclass(frozen=True)
class Finding:
    """One thing a check found wrong: what, and the wall-clock time ``t`` it happened (where
    to look in the transcript); ``since``: where what led to it began (a whole turn)."""

    t: float
    text: str
    since: float | None = None


def report(failed: dict[str, list[Finding]], timeline: Sequence[tuple[float, str]],
           before: float = 4.0, after: float = 1.5, shown: int = 3) -> str:
    """Each failed check by name with its findings, and the transcript's lines from
    ``before`` seconds before each of the first ``shown`` findings (or from its ``since``)
    to ``after`` seconds past it (times from the transcript's start, as in
    ``transcript.txt``)."""
    t0 = timeline[0][0] if timeline else 0.0
    out = []
    for check, findings in failed.items():
        out.append(f"{check} ({len(findings)}):")
        for k, f in enumerate(findings):
            out.append(f"  at {f.t - t0:.3f}: {f.text}")
            if k < shown:
                start = f.t - before if f.since is None else f.since - 0.5
                out.extend(f"    {t - t0:8.3f} {line}" for t, line in timeline
                           if start <= t <= f.t + after)
    return "\n".join(out)


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
#: twice, 60 ms apart, and further apart the busier the machine).
RESTART = 1.0


#: Where an utterance is split into the sentences a listener hears one by one.
SENTENCE = re.compile(r"(?<=[.!?])\s+")


def sentences(text: str) -> list[str]:
    """The sentences of ``text`` (white space made single)."""
    return [s for s in SENTENCE.split(_norm(text)) if s]


def duplicates(said: list[Utterance], key_times: list[float]) -> list[Finding]:
    """Sentences heard twice with no key pressed between them (a key may ask again), in
    one utterance or in two (a focus move that says row 1 while a live message says every
    row); Orca's :data:`LEAVING` context words and a :data:`RESTART` aside."""
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
        for sentence in sentences(text):
            if seen.get(sentence) == span:
                out.append(Finding(u.t, sentence if sentence == text else
                                   f"{sentence!r} again, in {text!r}"))
            seen[sentence] = span
    return out


def reveal_prefix(lang: str) -> str:
    """How the reveal sentence begins in ``lang`` ("Cards revealed:")."""
    return narrator(lang)._("Cards revealed: {plays}.").split("{plays}")[0].strip()


def cut_reveals(said: list[Utterance], lang: str, cps: float,
                live: Sequence[dict[str, Any]] = (),
                focused: Sequence[dict[str, Any]] = ()) -> list[Finding]:
    """Reveals cut short (:func:`.orca.cut_off` at ``cps`` characters a second), each with
    what cut it, where the page made the cut: its next message (``live``) or focus move
    (``focused``) came before the reveal's speaking time had passed since the page put
    the reveal up. A cut after the page waited that long is Orca starting the reveal late
    on a loaded machine (the page cannot know when a screen reader begins), not the page's.
    """
    prefix = reveal_prefix(lang)
    said = [u for u in said if u.kind in ("speech", "stop")]
    page = sorted([(item["t"], _norm(item["text"])) for item in live]
                  + [(f["t"], "") for f in focused])
    out = []
    for i, u in enumerate(said):
        if u.kind == "speech" and prefix in u.text:
            by = cut_off(said, i, cps)
            if by is None:
                continue
            text = _norm(u.text)
            posted = [t for t, added in page if added and t <= u.t + 0.05
                      and (added in text or text in added)]
            if posted:
                after = [t for t, _ in page if posted[-1] < t <= by.t + 0.05]
                if after and after[0] - posted[-1] >= speaking_time(u.text, cps):
                    continue
            out.append(Finding(by.t, f"{u.text!r} cut after {by.t - u.t:.2f} s by "
                                     f"{by.kind} {by.text!r}"))
    return out


def _between(said: list[Utterance], start: float, end: float) -> list[Utterance]:
    return [u for u in spoken(said) if start <= u.t <= end]


def unheard_prompts(run: GameRun, said: list[Utterance]) -> list[Finding]:
    """Decisions (every card and every row) whose prompt Orca never said before the player
    answered: the player would have acted on a decision never heard."""
    out = []
    previous = run.started
    for turn in run.turns:
        prompt = _norm(turn.sheet["decision"] or "")
        heard = [_norm(u.text) for u in _between(said, previous, turn.pressed)]
        if not any(prompt in h for h in heard):
            out.append(Finding(turn.pressed, f"round {turn.round} turn {turn.turn} "
                                             f"({turn.kind}): {prompt!r} not said"))
        previous = turn.pressed
    return out


def row_prompts(run: GameRun, said: list[Utterance]) -> list[Finding]:
    """Row decisions whose prompt (the rows and their cost) Orca never said before the row
    was taken; and a game without one (the jokers game the harness plays asks one)."""
    rows = [t for t in run.turns if t.kind == "row"]
    if not rows:
        return [Finding(run.ended, "no row was asked: the game must ask one")]
    row_run = GameRun(run.lang, turns=run.turns, started=run.started)
    return [f for f in unheard_prompts(row_run, said) if "(row)" in f.text]


def old_rereads(said: list[Utterance], live: list[dict[str, Any]],
                focused: Sequence[dict[str, Any]] = ()) -> list[Finding]:
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
            out.append(Finding(u.t, f"{u.text!r}, {u.t - max(times):.0f} s after it was new"))
    return out


def unspoken(said: list[Utterance], live: list[dict[str, Any]]) -> list[Finding]:
    """Live messages Orca never said (whole, in one utterance) after they were added."""
    out = []
    utterances = spoken(said)
    for item in live:
        text = _norm(item["text"])
        if not any(u.t >= item["t"] - 0.05 and text in _norm(u.text) for u in utterances):
            out.append(Finding(item["t"], f"{item['live']} {item['id']}: {text!r}"))
    return out


def shortcut_failures(run: GameRun) -> list[Finding]:
    """Shortcuts that were not pressed from the hand or did not say their answer."""
    if not run.shortcuts:
        return [Finding(run.ended, "the shortcut turn never came")]
    out = []
    for s in run.shortcuts:
        if s.expected is None:
            continue
        if not s.focus_in_hand:
            out.append(Finding(s.t, f"{s.key}: pressed with focus outside the hand"))
        if not any(_norm(s.expected) in _norm(h) for h in s.heard):
            out.append(Finding(s.t, f"{s.key}: expected {s.expected!r}, heard {s.heard!r}"))
    return out


def refusal_failures(run: GameRun) -> list[Finding]:
    """The refusal of a Start with a seat empty, unless it was said as the server's
    narration words it in the game's language."""
    want = narrator(run.lang).refusal_sentence("seats_empty")
    if any(_norm(want) in _norm(h) for h in run.refusal):
        return []
    return [Finding(run.refused_at, f"expected {want!r}, heard {run.refusal!r}")]


def _words(texts: Iterable[str]) -> set[str]:
    found: set[str] = set()
    for text in texts:
        text = re.sub(r"\{[^}]*\}", " ", text)
        found.update(w.lower() for w in re.findall(r"[A-Za-z]{3,}", text))
    return found


@functools.cache
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


#: Orca's names of the roles of a browser's own window (Firefox's tab strip and toolbar,
#: which Tab reaches past the page's end), in English where its catalog lacks them
#: ("Sto — 6 nimmt! page tab."): taken out whole, so the page's own words around them
#: are still read.
ORCA_PHRASES = re.compile(r"\b(page tab|tool bar|toggle button|menu button)\b")
#: An address, read from Firefox's address bar: its words are the site's paths
#: ("/play/#/table/…"), in no language.
ADDRESS = re.compile(r"\b[a-z][a-z0-9+.-]*://\S*")


def foreign_words(lang: str) -> frozenset[str]:
    """The words (three letters or more, lower case) of the project's English strings (the
    narration's and the web page's) that its ``lang`` strings never use: any of them in
    what a ``lang`` player hears or reads is English left untranslated."""
    english_words, own = _catalog(lang)
    return frozenset(english_words - own - ORCA_WORDS)


def english_in(text: str, lang: str) -> set[str]:
    """The words of :func:`foreign_words` in ``text``."""
    return {w.lower() for w in re.findall(r"[A-Za-z]{3,}", text)} & foreign_words(lang)


def english(said: list[Utterance], lang: str, since: float) -> list[Finding]:
    """Utterances from ``since`` on with words of the project's English strings that the
    ``lang`` strings do not use (bot names, table names, untranslated labels); Orca's own
    words (:data:`ORCA_WORDS`, :data:`ORCA_PHRASES`) and addresses aside."""
    foreign = foreign_words(lang)
    out = []
    for u in spoken(said):
        if u.t < since:
            continue
        text = ORCA_PHRASES.sub(" ", ADDRESS.sub(" ", u.text))
        words = {w.lower() for w in re.findall(r"[A-Za-z]{3,}", text)} & foreign
        if words:
            out.append(Finding(u.t, f"{u.text!r} ({', '.join(sorted(words))})"))
    return out


def turn_utterances(said: list[Utterance], before: Turn, turn: Turn) -> list[Utterance]:
    """What Orca said in a turn: from the Enter that answered ``before`` to the one that
    answered ``turn`` (what the previous Enter caused, the others' choices, the prompt)."""
    return [u for u in spoken(said) if before.pressed < u.t <= turn.pressed]


def busy_turns(run: GameRun, said: list[Utterance]) -> list[Finding]:
    """Ordinary turns with more than :data:`MAX_UTTERANCES_PER_TURN` utterances."""
    return [Finding(turn.pressed, f"round {turn.round} turn {turn.turn}: {n} utterances",
                    before.pressed)
            for before, turn in ordinary_turns(run)
            if (n := len(turn_utterances(said, before, turn))) > MAX_UTTERANCES_PER_TURN]


def keyed_turns(run: GameRun) -> list[Finding]:
    """Ordinary turns that took more than :data:`MAX_KEYS_PER_TURN` key presses."""
    return [Finding(turn.pressed, f"round {turn.round} turn {turn.turn}: {turn.keys} keys")
            for _, turn in ordinary_turns(run) if turn.keys > MAX_KEYS_PER_TURN]


#: Game keys a game may lose to Orca's browse mode (each set right by one Orca+A, as a
#: player would): Orca keeps focus mode on the hand's and the rows' list boxes by its own
#: rules, so the page never needs it; one is a reader's hiccup on a loaded machine, more
#: a fault of the page.
MAX_RECOVERIES = 1


def browse_mode_keys(run: GameRun) -> list[Finding]:
    """Keys of the game that went to Orca's browse-mode commands past :data:`MAX_RECOVERIES`."""
    if len(run.recoveries) <= MAX_RECOVERIES:
        return []
    return [Finding(t, "a key of the game went to a browse-mode command; Orca+A pressed")
            for t in run.recoveries]


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
    per_turn = [len(turn_utterances(said, before, turn)) for before, turn in ordinary_turns(run)]
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
        "cut_reveals": len(cut_reveals(said, run.lang, cps, live, focused)),
        "reveals": sum(1 for u in game if reveal_prefix(run.lang) in u.text),
        "old_rereads": len(old_rereads(said, live, focused)),
        "unspoken_live": len(unspoken(said, live)),
        "silent_row_prompts": len(row_prompts(run, said)),
        "silent_prompts": len(unheard_prompts(run, said)),
        "english": len(english(said, run.lang, run.in_language)) if run.lang != "en" else 0,
        "focus_mode_recoveries": len(run.recoveries),
    }
