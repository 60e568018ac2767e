"""The narration's catalogs: complete, compiled, plurals right, no English left in sr/cs."""

from __future__ import annotations

import io
import re
import shutil
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog, Message
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_file
from babel.messages.frontend import CommandLineInterface
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

from nimmt import Deal, Game, NimmtError, Rules
from nimmt.events import (
    EVENT_TYPES,
    CardChosen,
    CardDrafted,
    CardPlaced,
    CardsRevealed,
    DraftStarted,
    Event,
    GameOver,
    HandDealt,
    PlayerEliminated,
    RoundScored,
    RoundStarted,
    RowChoiceNeeded,
    RowsDealt,
    RowTaken,
    TurnStarted,
)
from nimmt.narrate import (
    LOCALE_DIR,
    Narrator,
    UnknownLanguage,
    available_languages,
)
from nimmt.record import load_record, replay

TEMPLATE = LOCALE_DIR / "nimmt.pot"
#: What scripts/i18n extracts: Babel's default keywords and ``_n`` for plurals.
KEYWORDS = {**DEFAULT_KEYWORDS, "_n": (1, 2)}
LANGUAGES = ["en", "sr", "cs"]
TRANSLATED = ["sr", "cs"]
NAMES = ["Ana", "Bob", "Cleo"]
PLACEHOLDER = re.compile(r"\{(\w+)\}")


def _catalogs() -> list[str]:
    """Every language with a catalog source, compiled or not."""
    return sorted(p.parent.parent.name for p in LOCALE_DIR.glob("*/LC_MESSAGES/nimmt.po"))


def _po(lang: str) -> Path:
    return LOCALE_DIR / lang / "LC_MESSAGES" / "nimmt.po"


def _read(path: Path) -> Catalog:
    with path.open("rb") as f:
        return read_po(f)


def _key(message: Message) -> str:
    return message.id[0] if isinstance(message.id, tuple | list) else message.id


def _forms(message: Message) -> list[str]:
    return list(message.string) if isinstance(message.string, tuple | list) else [message.string]


# -- the template and the catalogs ----------------------------------------------------


def test_template_holds_every_message_of_the_code() -> None:
    in_code = {
        m if isinstance(m, str) else tuple(m)
        for module in sorted((LOCALE_DIR.parent / "narrate").glob("*.py"))
        for _, m, _, _ in extract_from_file("python", module, keywords=KEYWORDS)
    }
    template = {m.id for m in _read(TEMPLATE) if m.id}
    assert in_code == template, "run scripts/i18n extract"
    assert len(template) > 80


def test_the_three_languages_are_installed() -> None:
    assert set(LANGUAGES) <= set(available_languages()) == set(_catalogs())


@pytest.mark.parametrize("lang", _catalogs())
def test_catalog_is_complete_and_not_fuzzy(lang: str) -> None:
    template = {m.id: m for m in _read(TEMPLATE) if m.id}
    catalog = _read(_po(lang))
    assert not catalog.fuzzy, "the header is marked fuzzy: gettext tools skip the catalog"
    entries = {m.id: m for m in catalog if m.id}
    assert set(entries) == set(template), "run scripts/i18n update"
    for msgid, message in entries.items():
        forms = _forms(message)
        assert not message.fuzzy, f"{lang}: fuzzy {msgid!r}"
        assert all(forms), f"{lang}: untranslated {msgid!r}"
        if isinstance(msgid, tuple):
            assert len(forms) == catalog.num_plurals, f"{lang}: plural forms of {msgid!r}"
        wanted = set(PLACEHOLDER.findall(_key(message)))
        for form in forms:
            assert set(PLACEHOLDER.findall(form)) == wanted, f"{lang}: fields of {form!r}"
            form.format(**dict.fromkeys(wanted, "x"))  # no stray braces
    assert not list(catalog.check())


@pytest.mark.parametrize(("lang", "forms"), [("en", 2), ("sr", 3), ("cs", 3)])
def test_plural_forms_header(lang: str, forms: int) -> None:
    catalog = _read(_po(lang))
    assert catalog.num_plurals == forms
    assert f"nplurals={forms};" in catalog.plural_forms


@pytest.mark.parametrize("lang", _catalogs())
def test_compiled_catalog_matches_its_source(lang: str) -> None:
    """The committed ``.mo`` is what ``pybabel compile`` makes of the ``.po`` today."""
    compiled = io.BytesIO()
    write_mo(compiled, _read(_po(lang)))
    mo = _po(lang).with_suffix(".mo")
    assert mo.is_file(), "run scripts/i18n compile"
    assert mo.read_bytes() == compiled.getvalue(), "run scripts/i18n compile"


@pytest.mark.parametrize("lang", TRANSLATED)
def test_no_message_is_left_in_english(lang: str) -> None:
    """Every message with words of its own has a translation that differs from the English."""
    for message in _read(_po(lang)):
        if not message.id:
            continue
        words = re.sub(r"\{\w+\}|[^A-Za-z]", "", _key(message))
        if words:
            for form in _forms(message):
                assert form != _key(message), f"{lang}: {form!r} is the English text"


# -- plurals ----------------------------------------------------------------------------

COUNTS = [1, 2, 3, 4, 5, 11, 21, 22, 25]
PLURALS = {
    ("en", "bullheads"): "bullhead bullheads bullheads bullheads bullheads bullheads "
    "bullheads bullheads bullheads",
    ("en", "cards"): "card cards cards cards cards cards cards cards cards",
    ("sr", "bullheads"): "bod boda boda boda bodova bodova bod boda bodova",
    ("sr", "cards"): "karta karte karte karte karata karata karta karte karata",
    ("sr", "seconds"): "sekunda sekunde sekunde sekunde sekundi sekundi sekunda sekunde sekundi",
    ("cs", "bullheads"): "bod body body body bodů bodů bodů bodů bodů",
    ("cs", "cards"): "karta karty karty karty karet karet karet karet karet",
    ("cs", "seconds"): "sekunda sekundy sekundy sekundy sekund sekund sekund sekund sekund",
}


@pytest.mark.parametrize(("lang", "what"), sorted(PLURALS))
def test_plural_forms(lang: str, what: str) -> None:
    narrator = Narrator(lang)
    said = {
        "bullheads": narrator.count_bullheads,
        "cards": narrator.count_cards,
        "seconds": narrator.timer_sentence,
    }[what]
    words = PLURALS[(lang, what)].split()
    for n, word in zip(COUNTS, words, strict=True):
        assert re.search(rf"\b{n} {word}\b", said(n)), (n, said(n))


def test_plurals_inside_sentences() -> None:
    sr, cs = Narrator("sr"), Narrator("cs")
    out = [sr.describe(PlayerEliminated(0, n), NAMES) for n in (1, 2, 5, 21, 22, 25)]
    assert out == [
        "Ana ispada iz igre, ima 1 bod.",
        "Ana ispada iz igre, ima 2 boda.",
        "Ana ispada iz igre, ima 5 bodova.",
        "Ana ispada iz igre, ima 21 bod.",
        "Ana ispada iz igre, ima 22 boda.",
        "Ana ispada iz igre, ima 25 bodova.",
    ]
    assert [cs.describe(RowTaken(1, 2, (5,), n, "full"), NAMES) for n in (1, 2, 5)] == [
        "Bob bere řadu 2, 1 bod.",
        "Bob bere řadu 2, 2 body.",
        "Bob bere řadu 2, 5 bodů.",
    ]
    assert sr.row(1, (1, 2, 3, 4, 6)) == "Skup 1: 1, 2, 3, 4, 6 — 5 karata, 5 bodova."
    assert cs.row(1, (1, 2)) == "Řada 1: 1, 2 — 2 karty, 2 body."
    assert sr.describe(DraftStarted((1, 2), 0), NAMES) == (
        "Biranje karata sa stola, otvorene su 2 karte: 1, 2. Prvo bira Ana."
    )
    assert cs.describe(DraftStarted((1, 2, 3, 4, 5), 0), NAMES, viewer=0) == (
        "Výběr karet, vyloženo je 5 karet: 1, 2, 3, 4, 5. Jako první vybíráte vy."
    )
    assert sr.rules_sentence(Rules.preset("classic", 5, end="rounds", rounds=5)) == (
        "Pravila: Klasična, 5 igrača, 5 rundi."
    )
    assert cs.rules_sentence(Rules.preset("classic", 2, end="rounds", rounds=3)) == (
        "Pravidla: Klasická, 2 hráči, 3 kola."
    )


def test_jokers_and_raised_rows_take_the_decimal_comma() -> None:
    assert Narrator("en").card(-7) == "joker 0.3"
    assert Narrator("sr").card(-7) == "džoker 0,3"
    assert Narrator("cs").card(-10) == "žolík 0,0"
    assert Narrator("sr").row(2, (87, -1)) == (
        "Skup 2: 87, džoker 0,9 (vrednost na kraju 87,9) — 2 karte, 2 boda."
    )
    with pytest.raises(ValueError, match="not a card"):
        Narrator("cs").card(0)


# -- every event, in every language -----------------------------------------------------

#: Every event type, with its variants, and who reads it (``None``: a record).
EVENTS: list[tuple[Event, int | None]] = [
    (RoundStarted(2, (0, 1, 2), 104), None),
    (RoundStarted(2, (0, 1, 2), 34), 1),
    (HandDealt(1, (3, 55, -4)), None),
    (HandDealt(1, (3, 55, -4)), 1),
    (DraftStarted((1, 2, 3), 2), None),
    (DraftStarted((1, 2, 3), 2), 2),
    (CardDrafted(0, 17), None),
    (CardDrafted(0, 17), 0),
    (RowsDealt(((12,), (40, 55), (77,), (90, -3))), None),
    (TurnStarted(3), None),
    (TurnStarted(3, 1), None),
    (TurnStarted(3, 1), 1),
    (CardChosen(2, 44), None),
    (CardChosen(2, 44), 2),
    (CardChosen(2, None), None),
    (CardChosen(2, 44), 1),
    (CardChosen(2, 44, True), None),
    (CardChosen(2, 44, True), 2),
    (CardsRevealed(((0, 12), (1, 40), (2, 77))), 1),
    (RowChoiceNeeded(0, 7, "too_low"), None),
    (RowChoiceNeeded(0, 7, "too_low"), 0),
    (RowChoiceNeeded(0, -1, "joker"), None),
    (RowChoiceNeeded(0, -1, "joker"), 0),
    (RowTaken(1, 3, (33, 42, 50, 57, 64), 11, "full"), None),
    (RowTaken(1, 3, (33, 42, 50, 57, 64), 11, "full"), 1),
    (CardPlaced(0, 12, 1), None),
    (CardPlaced(0, 12, 1), 0),
    (CardPlaced(0, 12, 1, "left"), None),
    (CardPlaced(0, 12, 1, "left"), 0),
    (CardPlaced(0, 12, 1, "right", True), None),
    (CardPlaced(0, 12, 1, "right", True), 0),
    (RoundScored(1, (5, 0, 11), (5, 0, 11)), 2),
    (PlayerEliminated(1, 68), None),
    (PlayerEliminated(1, 68), 1),
    (GameOver((2,), (70, 68, 23)), None),
    (GameOver((2,), (70, 68, 23)), 2),
    (GameOver((0, 2), (30, 41, 30)), 2),
    (GameOver((), (30, 41, 30)), None),
]


def _english_only_words(lang: str) -> set[str]:
    """Words of the English templates that the catalog of ``lang`` never uses."""

    def words(text: str) -> set[str]:
        return {w.lower() for w in re.findall(r"[A-Za-z]{3,}", PLACEHOLDER.sub(" ", text))}

    english: set[str] = set()
    used: set[str] = set()
    for message in _read(_po(lang)):
        if message.id:
            ids = message.id if isinstance(message.id, tuple) else (message.id,)
            for msgid in ids:
                english |= words(msgid)
            for form in _forms(message):
                used |= words(form)
    return english - used


def _everything_said(narrator: Narrator) -> list[str]:
    """Every kind of sentence the narrator makes, from events, views, the clock and errors."""
    said = [narrator.describe(e, NAMES, viewer=v) for e, v in EVENTS]
    take_and_start = [RowTaken(1, 3, (5,), 1, "full"), CardPlaced(1, 9, 3, "right", True)]
    said.append(narrator.announce(take_and_start, NAMES))
    said.append(narrator.announce(take_and_start, NAMES, viewer=1))
    rows = ((9, 12, 21), (19, 24), (33, 42, 50, 57), (69, 72, 81))
    game = Game(Rules.preset("classic", 3), deals=[Deal(rows=rows, hands=((23,), (88,), (7,)))])
    said += [
        narrator.your_decision_sentence(game.view(0)),
        narrator.chosen_sentence(game.view(0), NAMES),
    ]
    game.play_card(0, 23)
    said += [narrator.chosen_sentence(game.view(1), NAMES), narrator.hand_sentence(game.view(0))]
    game.play_card(1, 88)
    game.play_card(2, 7)
    view = game.view(2)
    said += [
        narrator.your_decision_sentence(view),
        narrator.chosen_sentence(view, NAMES),
        narrator.rows_sentence(view),
        narrator.row_sentence(view, 4),
        narrator.bullheads_sentence(55),
        narrator.bullheads_sentence(view.rows[0], 1),
        narrator.bullheads_sentence(view.rows[0]),
        narrator.scores_sentence(view, NAMES),
        narrator.pending_sentence(view.pending, NAMES),
    ]
    game.take_row(2, 2)
    view = game.view(None)
    said += [
        narrator.hand_sentence(view),
        narrator.chosen_sentence(view, NAMES),
        narrator.rows_sentence(view),
        narrator.row_sentence(view, 1),
        narrator.hand_sentence(game.view(1)),
        narrator.timer_sentence(5),
        narrator.timeout_sentence(0, NAMES),
        narrator.timeout_sentence(0, NAMES, viewer=0),
        narrator.players_sentence(NAMES),
        narrator.rules_sentence(Rules.preset("classic", 4)),
        narrator.rules_sentence(Rules.preset("classic", 4, end="elimination")),
        narrator.row(1, ()),
    ]
    said += [narrator.error_sentence(e) for e in _errors()]
    return [s for s in said if s is not None]


def _errors() -> list[BaseException]:
    game = Game(Rules.preset("classic", 2), seed=1)
    errors: list[BaseException] = [KeyError("x")]
    for attempt in (
        lambda: game.play_card(0, 999),
        lambda: game.take_row(0, 1),
        lambda: game.take_row(0, 9),
        lambda: Rules.parse("nonsense"),
    ):
        try:
            attempt()
        except ValueError as exc:
            errors.append(exc)
    return errors


def test_every_event_type_is_exercised() -> None:
    assert {type(e) for e, _ in EVENTS} == set(EVENT_TYPES.values())


@pytest.mark.parametrize("lang", TRANSLATED)
def test_no_english_leaks_into_a_translation(lang: str) -> None:
    english = _everything_said(Narrator("en"))
    local = _everything_said(Narrator(lang))
    assert len(local) == len(english) > 60
    leaks = _english_only_words(lang)
    assert {"row", "takes", "bullheads", "you", "joker"} <= leaks
    for en_text, text in zip(english, local, strict=True):
        assert text != en_text
        found = {w.lower() for w in re.findall(r"[A-Za-z]+", text)} & leaks
        assert not found, f"{lang}: English {found} in {text!r}"
        assert "{" not in text and "None" not in text


def test_the_seed_example_in_serbian_and_czech() -> None:
    names = ["Alisa", "Bob", "Celia", "David"]
    rows = ((9, 12, 21), (19, 24), (33, 42, 50, 57), (69, 72, 81))
    game = Game(
        Rules.preset("classic", 4), deals=[Deal(rows=rows, hands=((23,), (88,), (7,), (64,)))]
    )
    for seat, card in ((0, 23), (1, 88), (3, 64)):
        game.play_card(seat, card)
    step = game.play_card(2, 7)
    step += game.take_row(2, 4)
    step = [e for e in step if not isinstance(e, CardChosen | RoundScored)]
    # As the seed says it: the sixth card, the cards taken, what they are worth.
    assert Narrator("sr").announce(step, names, viewer=1) == (
        "Otkrivene karte: Celia: 7; Alisa: 23; David: 64; vi: 88. "
        "Izbor skupa: Celia ima kartu 7, manju od svih skupova. "
        "Celia uzima skup 4, 3 boda, i započinje ga kartom 7. "
        "Alisa stavlja 23 u skup 1. David stavlja 64 u skup 3. "
        "Vaša karta 88 je šesta u skupu 3: uzimate 33, 42, 50, 57 i 64, ukupno 11 bodova, "
        "a 88 započinje skup iznova."
    )
    assert Narrator("cs").announce(step, names, viewer=3) == (
        "Odkryté karty: Celia: 7; Alisa: 23; vy: 64; Bob: 88. "
        "Výběr řady: Celia má kartu 7, nižší než všechny řady. "
        "Celia bere řadu 4, 3 body, a začíná ji kartou 7. "
        "Alisa přidává 23 do řady 1. Přidáváte 64 do řady 3. "
        "Karta 88 je šestá v řadě 3: Bob bere 33, 42, 50, 57 a 64, celkem 11 bodů, "
        "a 88 začíná řadu znovu."
    )


# -- languages --------------------------------------------------------------------------


def test_language_tags_and_unknown_languages() -> None:
    assert Narrator("sr-Latn-RS").language == "sr"
    assert Narrator("cs_CZ").language == "cs"
    assert Narrator("EN").language == "en"
    with pytest.raises(UnknownLanguage, match="no catalog for language 'xx'; known: "):
        Narrator("xx")
    with pytest.raises(UnknownLanguage):
        Narrator("")
    # A NimmtError like every refusal of the package (and still a ValueError).
    assert issubclass(UnknownLanguage, NimmtError) and issubclass(UnknownLanguage, ValueError)


def test_a_new_language_is_a_new_catalog(tmp_path: Path) -> None:
    """The steps of docs/translating.md, run for German in a scratch catalog directory."""
    locales = tmp_path / "locales"
    locales.mkdir()
    with pytest.raises(UnknownLanguage):
        Narrator("de", locale_dir=locales)
    cli = CommandLineInterface()
    template = shutil.copy(TEMPLATE, locales / "nimmt.pot")
    cli.run(["pybabel", "-q", "init", "-i", str(template), "-d", str(locales), "-D", "nimmt",
             "-l", "de"])
    po = locales / "de" / "LC_MESSAGES" / "nimmt.po"
    catalog = _read(po)
    assert catalog.num_plurals == 2
    german = {
        "{count} bullhead": ("{count} Hornochse", "{count} Hornochsen"),
        "{name} takes row {row}, {bullheads}.": "{name} nimmt Reihe {row}, {bullheads}.",
        "you": "du",
    }
    for message in catalog:
        if message.id and _key(message) in german:
            message.string = german[_key(message)]
    with po.open("wb") as f:
        write_po(f, catalog)
    cli.run(["pybabel", "-q", "compile", "-d", str(locales), "-D", "nimmt"])

    assert available_languages(locales) == ("de", "en")
    de = Narrator("de", locale_dir=locales)
    assert de.describe(RowTaken(1, 2, (5,), 1, "full"), NAMES) == "Bob nimmt Reihe 2, 1 Hornochse."
    assert de.describe(RowTaken(1, 2, (5,), 8, "full"), NAMES) == "Bob nimmt Reihe 2, 8 Hornochsen."
    assert de.describe(CardsRevealed(((1, 4),)), NAMES, viewer=1) == "Cards revealed: du: 4."
    assert de.card(-1) == "joker 0,9"  # untranslated text falls back; Babel gives the comma
    # English needs no catalog of its own.
    assert Narrator("en", locale_dir=locales).describe(TurnStarted(1), NAMES) == "Turn 1."


GOLDEN = Path(__file__).resolve().parent / "golden"


@pytest.mark.parametrize("path", sorted(GOLDEN.glob("*.json")), ids=lambda p: p.stem)
def test_every_golden_game_in_every_language(path: Path) -> None:
    """Whole games of every variant, told to a seat and to a record, in each language."""
    record = load_record(path)
    events = replay(record).events
    names = [f"N{seat}" for seat in range(len(record.players))]  # no English in the names
    english = Narrator("en")
    for lang in TRANSLATED:
        narrator = Narrator(lang)
        leaks = _english_only_words(lang)
        for viewer in (None, 0):
            told = narrator.narrate(events, names, viewer)
            assert len(told) == len(english.narrate(events, names, viewer))
            for text in told:
                assert "{" not in text and "None" not in text
                found = {w.lower() for w in re.findall(r"[A-Za-z]+", text)} & leaks
                assert not found, f"{lang}: English {found} in {text!r}"
