"""The simple bots of the ladder, the registry and the driver that seats them."""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

import pytest

from nimmt import Deal, Decision, DecisionKind, Game, PlayCard, Rules, View, default_row
from nimmt.bots import BOTS, STRENGTHS, Bot, BotError, describe_bots, make_bot
from nimmt.bots.play import BotFault, Fault, decide_safely, play_game, play_round
from nimmt.bots.registry import check_extra, offered
from nimmt.bots.simple import (
    BeginnerBot,
    CheapestBot,
    DefaultPlayer,
    DodgerBot,
    LowRiskBot,
    RandomBot,
)
from nimmt.errors import RulesError

SIMPLE = ["random", "cheapest", "beginner", "lowrisk", "dodger"]

# (rules spec, players, end) covering every preset, variant and end mode.
TABLES = [
    ("classic", 4, "classic"),
    ("category5", 5, "classic"),
    ("classic", 2, "elimination"),
    ("classic", 10, "classic"),
    ("tactics", 3, "classic"),
    ("tactics", 6, "elimination"),
    ("logic", 4, "classic"),
    ("logic", 3, "elimination"),
    ("professional", 4, "classic"),
    ("tactics+professional", 5, "elimination"),
    ("open", 4, "classic"),
    ("open", 9, "elimination"),
    ("open-hands", 4, "classic"),
    ("professional+open-hands", 3, "classic"),
    ("jokers", 4, "classic"),
    ("jokers", 7, "elimination"),
    ("professional+jokers", 5, "classic"),
    ("open+jokers", 4, "classic"),
    ("category5+open-hands+jokers", 6, "rounds"),
    ("logic+professional", 5, "rounds"),
]


def _rules(spec: str, players: int, end: str) -> Rules:
    extra = {"rounds": 3} if end == "rounds" else {}
    return Rules.parse(spec, players=players, end=end, **extra)


@pytest.mark.parametrize(("spec", "players", "end"), TABLES)
def test_every_simple_bot_plays_legally_everywhere(spec: str, players: int, end: str) -> None:
    """Mixed tables of the simple bots finish; any illegal answer would raise BotFault."""
    rules = _rules(spec, players, end)
    kinds: set[DecisionKind] = set()
    for seed in range(8):
        bots = [
            make_bot(SIMPLE[(seed + s) % len(SIMPLE)], seed=seed * 31 + s) for s in range(players)
        ]
        game = play_game(rules, bots, seed, on_decision=lambda _s, d, _t: kinds.add(_kind(d)))
        assert game.is_over and game.winners
    assert DecisionKind.CARD in kinds
    if rules.logic:
        assert DecisionKind.DRAFT in kinds


def _kind(decision: object) -> DecisionKind:
    name = type(decision).__name__
    return {
        "PlayCard": DecisionKind.CARD,
        "TakeRow": DecisionKind.ROW,
        "DraftCard": DecisionKind.DRAFT,
    }[name]


@pytest.mark.parametrize("name", SIMPLE)
def test_many_single_rounds_per_bot(name: str) -> None:
    """Each bot alone at tables of its own kind over many seeds and player counts."""
    for seed in range(40):
        players = 2 + seed % 9
        spec = ["classic", "professional", "jokers", "tactics", "open"][seed % 5]
        if spec == "open":
            players = min(players, 9)
        rules = Rules.parse(spec, players=players)
        bots = [make_bot(name, seed=seed + s) for s in range(players)]
        game = play_round(rules, bots, seed)
        assert game.is_over and game.round == 1


@pytest.mark.parametrize("name", SIMPLE)
def test_deterministic_per_seed(name: str) -> None:
    rules = Rules.parse("professional+jokers", players=4)

    def decisions(bot_seed: int) -> tuple[tuple[Decision, ...], ...]:
        bots = [make_bot(name, seed=bot_seed + s) for s in range(4)]
        return play_game(rules, bots, 11).decisions

    assert decisions(5) == decisions(5)
    if name in ("random", "beginner"):
        assert decisions(5) != decisions(6)


def test_beginner_plays_like_a_new_player() -> None:
    """Plausible, not random: between random cards and the rules of thumb, lower cards
    early in the round than later, and a sure sixth card seen only some of the time."""
    from nimmt.sim.arena import run_arena

    result = run_arena(
        ["beginner", "cheapest", "lowrisk"], players=3, games=40, seed=5, single_round=True,
        workers=1,
    )  # fmt: skip
    assert result.pair("beginner", "cheapest").bullheads_diff < -1.0
    assert result.pair("beginner", "lowrisk").bullheads_diff > 1.0
    # Low cards first: the cards of the first two turns average well below the deck's 52.5.
    firsts = [d.card for seed in range(30) for d in _first_turns(seed)]
    assert sum(firsts) / len(firsts) < 45
    # A sixth card (row 1 holds five, 51 follows 50) against a far but safe card.
    rows = ((11, 22, 33, 44, 50), (60,), (70,), (80,))
    game = Game(Rules.preset("classic", 2), deals=[Deal(rows, ((51, 99), (61, 62)))])
    picks = [BeginnerBot(seed).choose_card(game.view(0)) for seed in range(200)]
    seen = picks.count(99) / len(picks)
    assert 0.5 < seen < 0.95


def _first_turns(seed: int) -> list[PlayCard]:
    """The cards beginners play on the first two turns of a round."""
    game = play_round(Rules.preset("classic", 4), ["beginner"] * 4, seed)
    cards = [d for d in game.decisions[0] if isinstance(d, PlayCard)]
    return cards[:8]


def test_bots_see_only_their_view() -> None:
    """The driver hands each bot its own seat's view, with no other hand in it."""
    seen: list[tuple[int | None, bool]] = []

    class Watcher(CheapestBot):
        def __init__(self, seat: int) -> None:
            super().__init__(seat)
            self.seat = seat

        def choose_card(self, view: View) -> int:
            seen.append((view.player, view.hands is None))
            assert view.player == self.seat
            return super().choose_card(view)

    play_round(Rules.preset("classic", 4), [Watcher(s) for s in range(4)], 3)
    assert len(seen) == 40
    assert all(hidden for _, hidden in seen)


def _pending_view(game: Game, kind: DecisionKind) -> View:
    pending = game.pending
    assert pending is not None and pending.kind is kind
    return game.view(pending.players[0])


def test_lowrisk_avoids_the_sixth_card() -> None:
    # Row 1 holds five cards ending at 20: 21 would be its sixth card; 50 lands safely.
    deal = Deal(
        rows=((10, 12, 14, 16, 20), (40,), (60,), (80,)),
        hands=((21, 50, 95, 96, 97, 98, 99, 100, 101, 102), (1, 2, 3, 4, 5, 6, 7, 8, 9, 11)),
    )
    view = Game(Rules.preset("classic", 2), deals=[deal]).view(0)
    assert view.target(21).sixth
    assert LowRiskBot().choose_card(view) != 21
    assert DodgerBot().choose_card(view) != 21


def test_lowrisk_dumps_a_low_card_on_a_cheap_row() -> None:
    # Every number card would be the fifth card or sixth except 3, which is too low;
    # row 4 costs one bullhead, so 3 is dumped there.
    deal = Deal(
        rows=((10, 12, 14, 16), (40, 41, 42, 43, 47), (60, 61, 62, 63, 64), (81,)),
        hands=((3, 17, 48, 65, 66, 67, 68, 69, 70, 71), (4, 5, 6, 7, 8, 9, 11, 13, 15, 18)),
    )
    view = Game(Rules.preset("classic", 2), deals=[deal]).view(0)
    assert LowRiskBot().choose_card(view) == 3


def test_row_choices_take_the_cheapest_row() -> None:
    # Player 0's 2 is too low for every row; row 3 is the cheapest.
    deal = Deal(
        rows=((10, 55), (20, 22), (30,), (40, 44)),
        hands=((2, 60, 61, 62, 63, 64, 65, 67, 68, 69), (70, 71, 72, 73, 74, 76, 78, 79, 81, 82)),
    )
    game = Game(Rules.preset("classic", 2), deals=[deal])
    game.play_card(0, 2)
    game.play_card(1, 70)
    view = _pending_view(game, DecisionKind.ROW)
    assert default_row(view.rows) == 3
    for bot in (CheapestBot(), LowRiskBot(), DodgerBot()):
        assert bot.choose_row(view) == 3


def test_joker_rows_are_legal_and_cheap() -> None:
    rules = Rules.parse("jokers", players=3)
    for seed in range(20):
        game = Game(rules, seed=seed)
        rng = random.Random(seed)
        # Everyone plays their joker on turn 1; the bots then place them.
        for p in range(3):
            game.play_card(p, game.view(p).hand[0])
        while game.pending is not None and game.pending.kind is DecisionKind.ROW:
            view = _pending_view(game, DecisionKind.ROW)
            bot = [LowRiskBot(seed), DodgerBot(seed), RandomBot(rng.randrange(99))][seed % 3]
            row = bot.choose_row(view)
            assert row in view.options
            if not isinstance(bot, RandomBot):
                # Rows start with one card: a joker never needs to take one.
                assert len(view.rows[row - 1]) < 5
            game.take_row(view.pending.players[0] if view.pending else 0, row)


def test_heuristics_beat_the_baseline() -> None:
    """A known result on a small duplicate run: both heuristics lose fewer bullheads."""
    from nimmt.sim.arena import run_arena

    result = run_arena(
        ["dodger", "lowrisk", "cheapest", "random"],
        games=40,
        seed=7,
        single_round=True,
        workers=1,
    )
    stats = result.bots
    assert stats["dodger"].mean_penalty + stats["dodger"].ci95 < stats["cheapest"].mean_penalty
    assert stats["lowrisk"].mean_penalty + stats["lowrisk"].ci95 < stats["cheapest"].mean_penalty
    assert stats["cheapest"].mean_penalty < stats["random"].mean_penalty


# -- registry ------------------------------------------------------------------


def test_registry_names_and_strengths() -> None:
    assert list(BOTS)[:2] == ["random", "cheapest"]
    assert BOTS["mcs"] == "nimmt.sim.search:MCSBot"
    assert BOTS["expert"] == "nimmt.sim.search:ExpertBot"
    assert STRENGTHS["hard"] == "mcs" and STRENGTHS["expert"] == "expert"
    for name in SIMPLE:
        bot = make_bot(name, seed=3)
        assert isinstance(bot, Bot)
        assert bot.name == name
        assert type(bot).description
    assert make_bot(STRENGTHS["easy"]).name == make_bot("easy").name
    assert make_bot("medium").name == STRENGTHS["medium"]
    described = dict(describe_bots())
    assert set(BOTS) == set(described)
    assert all(described[n] and "\n" not in described[n] for n in SIMPLE)


def test_registry_import_paths(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(Path(__file__).parent))
    assert make_bot("nimmt.bots.simple:DodgerBot", seed=1).name == "dodger"
    minimal = make_bot("arena_bots:Minimal", seed=4)
    assert minimal.name == "arena_bots:Minimal"
    with pytest.raises(BotError, match=r"'no_such_pkg\.mod:Bot'.*cannot import"):
        make_bot("no_such_pkg.mod:Bot")
    with pytest.raises(BotError, match=r"'arena_bots:Nope'.*has no 'Nope'"):
        make_bot("arena_bots:Nope")
    with pytest.raises(BotError, match=r"'arena_bots:NotABot'.*missing choose_card"):
        make_bot("arena_bots:NotABot")
    with pytest.raises(BotError, match=r"'arena_bots:BrokenInit'.*no such luck"):
        make_bot("arena_bots:BrokenInit")
    with pytest.raises(BotError, match=r"unknown bot 'grandmaster'"):
        make_bot("grandmaster")
    with pytest.raises(BotError, match="empty"):
        make_bot(" ")


def test_registry_without_import_paths(monkeypatch: pytest.MonkeyPatch) -> None:
    """``allow_paths=False`` (the game server): only the ladder, the levels and ``extra``
    resolve, and a path is refused before anything is imported."""
    monkeypatch.syspath_prepend(str(Path(__file__).parent))
    for spec in ("os:abort", "sys:exit", "nimmt.bots.simple:DodgerBot", "arena_bots:Minimal"):
        with pytest.raises(BotError, match=r"this one offers random, cheapest.*medium"):
            make_bot(spec, allow_paths=False)
    assert make_bot("medium", allow_paths=False).name == "dodger"
    extra = {"mini": "arena_bots:Minimal"}
    assert make_bot("mini", seed=2, allow_paths=False, extra=extra).name == "mini"
    with pytest.raises(BotError, match=r"offers .*, mini$"):
        make_bot("maxi", allow_paths=False, extra=extra)
    assert offered(extra)[-1] == "mini" and "expert" in offered()
    for bad in ({"os:abort": "os:abort"}, {"easy": "arena_bots:Minimal"},
                {"ok": "not a path"}, {"": "a:B"}):
        with pytest.raises(BotError):
            check_extra(bad)
    check_extra(extra)


def test_search_module_imported_lazily() -> None:
    """Naming a simple bot does not import the search bots (or the kernel)."""
    import subprocess

    code = (
        "import sys; from nimmt.bots.registry import make_bot; make_bot('dodger'); "
        "print('nimmt.sim.search' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "False"


# -- the driver ----------------------------------------------------------------


def test_driver_raises_a_fault_naming_the_bot() -> None:
    class Bad(CheapestBot):
        name = "bad-bot"

        def choose_row(self, view: View) -> int:
            return 7

    rules = Rules.preset("classic", 3)
    with pytest.raises(BotFault, match=r"bot 'bad-bot' \(seat 2.*illegal row decision row 7"):
        # Seat 1 plays the lowest cards, so it soon has to choose a row.
        deal = Deal(
            rows=((50,), (60,), (70,), (80,)),
            hands=(
                tuple(range(90, 100)),
                tuple(range(1, 11)),
                tuple(range(100, 105)) + tuple(range(81, 86)),
            ),
        )
        play_game(rules, [CheapestBot(0), Bad(1), CheapestBot(2)], 0, deals=[deal])


def test_driver_needs_one_bot_per_seat_and_a_deal() -> None:
    rules = Rules.preset("classic", 3)
    with pytest.raises(RulesError, match="3 players need 3 bots"):
        play_game(rules, [CheapestBot()], 0)
    with pytest.raises(RulesError, match="ran out of deals"):
        play_game(rules, [CheapestBot(s) for s in range(3)], None)


def test_play_round_reports_timing() -> None:
    times: list[float] = []
    game = play_round(
        Rules.preset("category5", 4),
        [DodgerBot(s) for s in range(4)],
        9,
        on_decision=lambda _s, _d, secs: times.append(secs),
    )
    assert game.is_over and game.round == 1
    assert len(times) >= 40 and all(t >= 0 for t in times)


# -- the one bot-fault policy -----------------------------------------------------


class Raises(CheapestBot):
    name = "raises"

    def choose_card(self, view: View) -> int:
        raise RuntimeError("no idea")


class Illegal(CheapestBot):
    name = "illegal"

    def choose_card(self, view: View) -> int:
        return 105


def test_decide_safely_names_the_bot_and_lets_the_default_player_answer() -> None:
    game = Game(Rules.preset("classic", 3), seed=4)
    view = game.view(1)
    fallback = DefaultPlayer(seed=1)
    expected = PlayCard(1, fallback.choose_card(view))
    for bot, kind, message in [
        (Raises(), "raised", "card decision raised RuntimeError: no idea"),
        (Illegal(), "illegal", f"illegal card decision 105; legal: {list(view.options)}"),
    ]:
        decision, fault, _ = decide_safely(bot, view, fallback)
        assert decision == expected
        assert fault is not None
        assert (fault.seat, fault.bot, fault.kind, fault.message) == (1, bot.name, kind, message)
        assert (fault.round, fault.turn) == (1, 1)
    good = CheapestBot(seed=2)
    decision, fault, seconds = decide_safely(good, view, fallback)
    assert fault is None and seconds >= 0
    assert type(decision) is PlayCard and decision.card in view.options


def test_decide_safely_times_a_bot_out() -> None:
    class Slow(CheapestBot):
        name = "slow"

        def choose_card(self, view: View) -> int:
            time.sleep(5)
            return view.options[0]

    view = Game(Rules.preset("classic", 2), seed=1).view(0)
    decision, fault, _ = decide_safely(Slow(), view, DefaultPlayer(), timeout=0.2)
    assert fault is not None and fault.kind == "timeout" and "within 0.2 s" in fault.message
    assert decision == PlayCard(0, DefaultPlayer().choose_card(view))


def test_decide_safely_needs_a_pending_decision_of_the_viewer() -> None:
    game = Game(Rules.preset("classic", 2), seed=1)
    game.play_card(0, game.legal(0)[0])
    with pytest.raises(BotError, match="decide_safely needs the view of a player"):
        decide_safely(CheapestBot(), game.view(0), DefaultPlayer())
    with pytest.raises(BotError):
        decide_safely(CheapestBot(), game.view(None), DefaultPlayer())


def test_a_faulty_seat_is_played_by_the_default_player_for_the_rest_of_the_game() -> None:
    faults: list[Fault] = []
    game = play_game(
        Rules.preset("classic", 3, end="rounds", rounds=1),
        [CheapestBot(0), Raises(1), CheapestBot(2)],
        7,
        on_fault=faults.append,
    )
    assert game.is_over
    assert [(f.seat, f.bot, f.kind) for f in faults] == [(1, "raises", "raised")]
