"""Rules: presets, variants, their combinations, refusals, player counts, end modes."""

from __future__ import annotations

import itertools
import re

import pytest

from nimmt import PRESETS, VARIANTS, EndMode, Rules, RulesError

REFUSED = {
    frozenset({"open", "tactics"}): (
        "tactics cannot be combined with open: open takes card 1 out as the first-player "
        "marker, so a tactics deck of 10n+4 cards cannot be dealt"
    ),
    frozenset({"open", "logic"}): (
        "logic cannot be combined with open: logic drafts the whole tactics deck including "
        "card 1, which open takes out as the first-player marker"
    ),
    frozenset({"jokers", "tactics"}): (
        "tactics cannot be combined with jokers: jokers replace one number card in every hand, "
        "so n cards of the tactics deck would stay unseen and the deck would no longer be known"
    ),
    frozenset({"jokers", "logic"}): (
        "logic cannot be combined with jokers: the logic draft has no jokers to pick"
    ),
}


def allowed_variant_sets() -> list[frozenset[str]]:
    """Every subset of the variants that contains no refused pair."""
    out = []
    for k in range(len(VARIANTS) + 1):
        for combo in itertools.combinations(VARIANTS, k):
            s = frozenset(combo)
            if not any(pair <= s for pair in REFUSED):
                out.append(s)
    return out


ALLOWED = allowed_variant_sets()


def test_variant_and_preset_names() -> None:
    assert VARIANTS == ("tactics", "logic", "professional", "open", "open-hands", "jokers")
    assert PRESETS == {"classic": 66, "category5": 75}
    # Deck-changing variants: {}, tactics, logic, tactics+logic, open, jokers, open+jokers;
    # each with or without professional and open-hands: 7 x 4.
    assert len(ALLOWED) == 28


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_presets_by_name(name: str) -> None:
    rules = Rules.preset(name, players=5)
    assert rules.players == 5
    assert rules.limit == PRESETS[name]
    assert rules.end is EndMode.CLASSIC
    assert rules.variants == frozenset()
    assert rules.name == name
    assert Rules.parse(name, players=5) == rules


def test_default_rules_are_classic_four_players() -> None:
    rules = Rules()
    assert (rules.players, rules.limit, rules.end, rules.rounds) == (4, 66, EndMode.CLASSIC, None)
    assert rules.name == "classic"
    assert rules.deck(4) == tuple(range(1, 105))
    assert rules.number_cards_per_hand() == 10
    assert rules.joker_cards() == ()


@pytest.mark.parametrize("variant", VARIANTS)
def test_each_variant_by_name(variant: str) -> None:
    rules = Rules.parse(variant, players=4)
    assert rules.variants == {variant}
    assert rules.name == f"classic+{variant}"
    assert rules.limit == 66


@pytest.mark.parametrize("variants", ALLOWED, ids=lambda s: "+".join(sorted(s)) or "none")
@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_every_allowed_combination_parses_and_round_trips(
    preset: str, variants: frozenset[str]
) -> None:
    spec = "+".join([preset, *sorted(variants)])
    rules = Rules.parse(spec, players=3)
    assert rules.variants == variants
    assert rules.preset_name == preset
    assert rules.limit == PRESETS[preset]
    # The canonical name lists the variants in VARIANTS order and parses back.
    assert rules.name == "+".join([preset, *(v for v in VARIANTS if v in variants)])
    assert Rules.parse(rules.name, players=3) == rules
    assert Rules.from_dict(rules.to_dict()) == rules


@pytest.mark.parametrize(
    "spec",
    [
        "tactics+professional",
        "tactics+open-hands",
        "category5+tactics+professional",
        "logic+professional",
        "open+open-hands+professional",
        "jokers+professional+open",
        "jokers+open-hands",
    ],
)
@pytest.mark.parametrize(
    ("end", "extra"),
    [("classic", {}), ("elimination", {"limit": 30}), ("rounds", {"rounds": 3})],
)
def test_combinations_with_any_end_mode_and_limit(
    spec: str, end: str, extra: dict[str, int]
) -> None:
    rules = Rules.parse(spec, players=4, end=end, **extra)
    assert rules.end is EndMode(end)
    assert rules.limit == extra.get("limit", PRESETS[rules.preset_name])
    assert rules.rounds == extra.get("rounds")
    assert Rules.from_dict(rules.to_dict()) == rules


@pytest.mark.parametrize("pair", list(REFUSED), ids=lambda p: "+".join(sorted(p)))
def test_refused_combinations_name_the_pair_and_reason(pair: frozenset[str]) -> None:
    message = REFUSED[pair]
    for spec in ("+".join(sorted(pair)), "+".join(sorted(pair, reverse=True))):
        with pytest.raises(RulesError, match=f"^{re.escape(message)}$"):
            Rules.parse(spec)
        with pytest.raises(RulesError, match=f"^{re.escape(message)}$"):
            Rules.parse(f"category5+professional+{spec}", end="elimination")
    with pytest.raises(RulesError, match=f"^{re.escape(message)}$"):
        Rules(variants=pair)


def test_refused_combination_is_refused_by_from_dict() -> None:
    with pytest.raises(RulesError, match=r"^logic cannot be combined with jokers"):
        Rules.from_dict({"preset": "classic", "variants": ["logic", "jokers"]})


@pytest.mark.parametrize("players", range(2, 11))
def test_player_counts_2_to_10(players: int) -> None:
    assert Rules.preset("classic", players=players).players == players
    assert Rules.parse("logic", players=players).players == players


@pytest.mark.parametrize("players", [0, 1, 11, -3])
def test_player_counts_outside_2_to_10_refused(players: int) -> None:
    with pytest.raises(RulesError, match=f"^{players} players: 2 to 10 may play$"):
        Rules.preset("classic", players=players)


@pytest.mark.parametrize("players", range(2, 10))
def test_open_allows_2_to_9(players: int) -> None:
    assert Rules.parse("open", players=players).players == players


@pytest.mark.parametrize("players", [1, 10])
def test_open_refuses_outside_2_to_9(players: int) -> None:
    msg = f"{players} players: 2 to 9 may play with open (card 1 is the marker)"
    with pytest.raises(RulesError, match=f"^{re.escape(msg)}$"):
        Rules.parse("open", players=players)


@pytest.mark.parametrize("players", [4.0, "4", True, None])
def test_player_count_must_be_int(players: object) -> None:
    with pytest.raises(RulesError, match=r"^players must be a whole number from 2 to 10$"):
        Rules(players=players)  # type: ignore[arg-type]


@pytest.mark.parametrize("limit", [0, -1, 66.0, "66", True])
def test_bad_limits_refused(limit: object) -> None:
    with pytest.raises(RulesError, match=r"^the limit must be a positive whole number"):
        Rules.preset("classic", limit=limit)


@pytest.mark.parametrize("limit", [1, 5, 66, 100, 1000])
def test_any_positive_limit(limit: int) -> None:
    assert Rules.preset("category5", limit=limit, end="elimination").limit == limit


@pytest.mark.parametrize("rounds", [None, 0, -2, 1.5, "3", True])
def test_rounds_end_needs_positive_rounds(rounds: object) -> None:
    msg = f"the fixed-rounds end needs a positive whole number of rounds, not {rounds!r}"
    with pytest.raises(RulesError, match=f"^{re.escape(msg)}$"):
        Rules.preset("classic", end="rounds", rounds=rounds)


@pytest.mark.parametrize("end", ["classic", "elimination"])
def test_rounds_only_with_rounds_end(end: str) -> None:
    msg = (
        f"a number of rounds only applies to the rounds end, not {end}; "
        "give end='rounds' or no rounds"
    )
    with pytest.raises(RulesError, match=f"^{re.escape(msg)}$"):
        Rules.preset("classic", end=end, rounds=3)


def test_end_modes() -> None:
    assert [m.value for m in EndMode] == ["classic", "elimination", "rounds"]
    assert Rules.preset("classic", end="rounds", rounds=2).end is EndMode.ROUNDS
    assert Rules.preset("classic", end=EndMode.ELIMINATION).end is EndMode.ELIMINATION


def test_bad_end_mode_refused_with_the_valid_ends() -> None:
    msg = "^unknown end 'sudden'; known ends: classic, elimination, rounds$"
    with pytest.raises(RulesError, match=msg):
        Rules.parse("classic", end="sudden")
    with pytest.raises(RulesError, match=msg):
        Rules.preset("classic", end="sudden")
    with pytest.raises(RulesError, match=msg):
        Rules.from_dict({"end": "sudden"})


VARIANT_LIST = "tactics, logic, professional, open, open-hands, jokers"
EMPTY = (
    "empty rules name; give a preset (classic, category5) and/or variants "
    f"({VARIANT_LIST}) joined by +"
)
AFTER = f"after it come variants ({VARIANT_LIST})"


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("", EMPTY),
        (" + ", EMPTY),
        (
            "tactic",
            "unknown rules 'tactic': the first part is a preset (classic, category5) or a "
            "variant (tactics, logic, professional, open, open-hands, jokers)",
        ),
        (
            "classic+tactic",
            "unknown variant 'tactic'; known variants: tactics, logic, professional, "
            "open, open-hands, jokers",
        ),
        ("classic+category5", f"'category5' is a preset and must come first, once; {AFTER}"),
        ("tactics+classic", f"'classic' is a preset and must come first, once; {AFTER}"),
        ("tactics+tactics", "a variant is named twice in 'tactics+tactics'"),
    ],
)
def test_bad_names_refused(spec: str, message: str) -> None:
    with pytest.raises(RulesError, match=f"^{re.escape(message)}$"):
        Rules.parse(spec)


def test_unknown_preset_refused() -> None:
    with pytest.raises(
        RulesError, match=r"^unknown preset 'take5'; known presets: classic, category5$"
    ):
        Rules.preset("take5")
    with pytest.raises(RulesError, match=r"^unknown preset 'take5'"):
        Rules(preset_name="take5")


def test_parse_is_case_and_space_tolerant() -> None:
    assert Rules.parse(" Category5 + TACTICS ", players=3) == Rules.parse("category5+tactics", 3)


def test_only_variants_start_from_classic() -> None:
    rules = Rules.parse("professional+tactics", players=3)
    assert rules.preset_name == "classic"
    assert rules.name == "classic+tactics+professional"


def test_category5_limit_75_and_changeable() -> None:
    assert Rules.parse("category5+tactics", players=5).limit == 75
    assert Rules.parse("category5", limit=80).limit == 80


def test_to_dict_exact() -> None:
    rules = Rules.parse("category5+open-hands+professional", players=6, end="rounds", rounds=4)
    assert rules.to_dict() == {
        "preset": "category5",
        "players": 6,
        "limit": 75,
        "end": "rounds",
        "rounds": 4,
        "variants": ["professional", "open-hands"],
    }


def test_from_dict_defaults_and_refusals() -> None:
    assert Rules.from_dict({}) == Rules()
    assert Rules.from_dict({"preset": "category5"}).limit == 75
    with pytest.raises(
        RulesError,
        match=r"^unknown rules field 'speed'; known fields: end, limit, players, preset, "
        r"rounds, variants$",
    ):
        Rules.from_dict({"speed": 2})
    with pytest.raises(RulesError, match=r"^variants must be a list of names \(tactics, "):
        Rules.from_dict({"variants": "tactics"})
    with pytest.raises(RulesError, match=r"^unknown variant 'nifty'"):
        Rules.from_dict({"variants": ["nifty"]})


def test_rules_are_frozen_and_hashable() -> None:
    rules = Rules.parse("tactics", players=3)
    with pytest.raises(AttributeError):
        rules.players = 5  # type: ignore[misc]
    assert len({rules, Rules.parse("tactics", players=3)}) == 1


@pytest.mark.parametrize("active", range(2, 11))
def test_tactics_and_logic_decks(active: int) -> None:
    for spec in ("tactics", "logic", "tactics+logic"):
        assert Rules.parse(spec, players=10).deck(active) == tuple(range(1, 10 * active + 5))


def test_open_deck_removes_card_1() -> None:
    assert Rules.parse("open").deck(4) == tuple(range(2, 105))


def test_jokers_hand_split() -> None:
    rules = Rules.parse("jokers")
    assert rules.number_cards_per_hand() == 9
    assert rules.joker_cards() == tuple(range(-10, 0))


def test_variants_given_as_one_string_get_a_clear_error() -> None:
    with pytest.raises(RulesError) as refused:
        Rules.from_dict({"variants": "tactics"})
    assert "unknown variant 'a'" not in str(refused.value)
