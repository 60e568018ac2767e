"""The sound layer: every cue a distinct sound, and every game event heard in a game.

Each cue is rendered offline by the page's own ``render`` (what plays in a game) and the
cues' spectrograms are compared pair by pair: no two may sound alike. Then a game is
played by keyboard with everything the page sends to the speakers recorded (a
MediaRecorder on the audio graph's output, decoded at the end): each event of the
frames the page received (a join, a chat line, a leave, your turn, your card chosen, the
reveal, each card placed, a row taken by you or by others, a row to choose, the timer's
last seconds, a round's end, the game's end, the connection lost and back) has its cue,
and the recording is loud where the cue played and silent between cues.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest

from .conftest import NewPage
from .helpers import RECORDER, create_table, fresh_name, set_name, wait_turn

#: The page's cues as played (``nimmt-cue``), its sockets, and a recording of its output.
TAP = """
window.__cues = [];
// Each cue with when it sounds on the recording's own clock (ms): the audio context's time
// since the recording began, which a starved audio thread holds back with the recording,
// where the page's clock runs on.
document.addEventListener("nimmt-cue", (e) => {
  const r = window.__rec;
  const ahead = e.detail.at - performance.now();
  window.__cues.push({...e.detail, rec: r ? (r.ctx.currentTime - r.t0) * 1000 + ahead : null});
});
window.__sockets = [];
const Socket = window.WebSocket;
window.WebSocket = class extends Socket {
  constructor(...args) { super(...args); window.__sockets.push(this); }
};
const connect = AudioNode.prototype.connect;
AudioNode.prototype.connect = function (target, ...rest) {
  const out = connect.call(this, target, ...rest);
  if (target instanceof AudioDestinationNode) {
    const ctx = this.context;
    if (!ctx.__tap) {
      ctx.__tap = ctx.createMediaStreamDestination();
      const rec = new MediaRecorder(ctx.__tap.stream);
      window.__rec = {rec, chunks: [], ctx, t0: ctx.currentTime};
      rec.ondataavailable = (e) => window.__rec.chunks.push(e.data);
      rec.start(1000);
    }
    connect.call(this, ctx.__tap);
  }
  return out;
};
"""

#: The loudness of the recording, every 10 ms, and when (performance.now()) it began.
ENVELOPE = """async () => {
  const r = window.__rec;
  r.rec.stop();
  await new Promise((done) => { r.rec.onstop = done; });
  const blob = new Blob(r.chunks, {type: r.rec.mimeType});
  const buf = await new OfflineAudioContext(1, 1, 44100).decodeAudioData(await blob.arrayBuffer());
  const d = buf.getChannelData(0);
  const hop = Math.round(buf.sampleRate / 100);
  const env = [];
  for (let i = 0; i + hop <= d.length; i += hop) {
    let s = 0;
    for (let k = i; k < i + hop; k++) s += d[k] * d[k];
    env.push(Math.sqrt(s / hop));
  }
  return env;
}"""

#: Each cue rendered alone, as the page plays it, at 22050 samples a second.
RENDERED = """async () => {
  const { CUES, render } = await import("/play/sound.js");
  const out = {};
  for (const name of Object.keys(CUES)) {
    const c = new OfflineAudioContext(1, 22050, 22050);
    render(c, c.destination, CUES[name], 0);
    out[name] = Array.from((await c.startRendering()).getChannelData(0));
  }
  return out;
}"""

#: What the page must have sounded, from the frames it received: [name, performance.now()].
EXPECTED = """() => {
  const want = [], prompts = [];
  let you = null, asked = null;
  for (const [t, m] of window.__frames) {
    if (m.type === "table_state") you = m.you;
    if (m.type !== "events" && m.type !== "table_state") continue;
    const items = m.items || [];
    const events = items.filter((i) => i.kind === "event").map((i) => i.event);
    const over = events.some((e) => e.type === "game_over");
    for (const i of items) {
      const n = i.kind === "notice" ? i.notice : "";
      if (["sat", "bot_added"].includes(n)) want.push(["join", t]);
      if (["left", "removed", "kicked"].includes(n)) want.push(["leave", t]);
      if (i.kind === "chat" && i.seat !== you) want.push(["chat", t]);
    }
    let take = null;
    for (const e of events) {
      if (e.type === "card_chosen" && e.player === you) want.push(["chosen", t]);
      if (e.type === "cards_revealed") want.push(["reveal", t]);
      if (e.type === "row_taken") take = e.player;
      if (e.type === "card_placed") {
        const took = e.started && take === e.player;
        want.push([!took ? "place" : take === you ? "take_you" : "take_other", t]);
        if (took) take = null;
      }
      if (e.type === "round_scored" && !over) want.push(["round", t]);
      if (e.type === "game_over") want.push(["over", t]);
    }
    if (m.prompt && m.prompt.key !== asked) {
      asked = m.prompt.key;
      prompts.push([m.prompt.kind === "row" ? "row" : "turn", t]);
    }
  }
  // Frames that come together are one step (app.js waits until no frame came for 60 ms,
  // and a busy machine fires that timer late): a decision answered and replaced by the
  // next within one step is the next one's step. A decision is surely a step of its own
  // when the frames after it pause for 300 ms before the next decision comes.
  const times = window.__frames.map(([t]) => t);
  prompts.forEach(([name, t], i) => {
    if (i + 1 >= prompts.length) { want.push([name, t]); return; }
    const next = prompts[i + 1][1];
    const between = [t, ...times.filter((x) => x > t && x < next), next];
    if (between.some((x, k) => k > 0 && x - between[k - 1] >= 300)) want.push([name, t]);
  });
  return want;
}"""


def _spectrogram(samples: list[float]) -> np.ndarray[Any, Any]:
    """Log-magnitude spectrogram (23 ms frames), normalised to unit length."""
    x = np.asarray(samples, dtype=np.float64)
    frame, hop = 512, 256
    frames = np.stack([x[i:i + frame] * np.hanning(frame)
                       for i in range(0, len(x) - frame, hop)])
    spec = np.log1p(100 * np.abs(np.fft.rfft(frames, axis=1)))
    return spec.ravel() / (np.linalg.norm(spec) or 1.0)


def test_every_cue_is_a_distinct_sound(new_page: NewPage) -> None:
    page = new_page()
    rendered = page.evaluate(RENDERED)
    names = sorted(rendered)
    assert {"turn", "chosen", "reveal", "place", "take_you", "take_other", "row", "tick",
            "round", "over", "chat", "join", "leave", "lost", "back"} <= set(names)
    for name in names:
        x = np.asarray(rendered[name])
        assert np.abs(x).max() > 0.05, f"{name} is silent"
        assert np.abs(x[-2205:]).max() < 1e-3, f"{name} lasts longer than 0.9 s"
    spectra = {name: _spectrogram(rendered[name]) for name in names}
    alike = [(a, b, round(float(spectra[a] @ spectra[b]), 3))
             for a, b in itertools.combinations(names, 2)
             if float(spectra[a] @ spectra[b]) > 0.8]
    assert not alike, f"cues that sound alike (cosine of their spectrograms): {alike}"


def _heard(env: list[float], at: float) -> float:
    """The loudest 10 ms of the recording from 50 ms before ``at`` (ms on the recording's
    clock) to 400 ms after."""
    lo = max(0, int((at - 50) / 10))
    hi = int((at + 400) / 10)
    return max(env[lo:hi], default=0.0)


@pytest.mark.timeout(600)
def test_every_event_is_heard_in_a_recorded_game(new_page: NewPage) -> None:
    host = new_page(script=RECORDER + TAP)
    set_name(host, fresh_name("Sound"))
    code = create_table(host, players=4, rounds=2, bots=0, timer="15", start=False)
    # Someone sits down, says hello and leaves; three bots sit down.
    guest = new_page()
    set_name(guest, fresh_name("Guest"))
    guest.locator("#join-code").fill(code)
    guest.locator("#join-form button[type=submit]").click()
    host.wait_for_function("() => window.__cues.some((c) => c.name === 'join')")
    guest.locator("#chat-text").fill("hello")
    guest.locator("#chat-text").press("Enter")
    host.wait_for_function("() => window.__cues.some((c) => c.name === 'chat')")
    guest.locator("#leave").click()
    host.wait_for_function("() => window.__cues.some((c) => c.name === 'leave')")
    for k in range(3):
        host.locator("#add-bot").focus()
        host.keyboard.press("Enter")
        host.wait_for_function(
            f"() => window.__cues.filter((c) => c.name === 'join').length >= {k + 2}")
    host.locator("#start-game").focus()
    host.keyboard.press("Enter")
    wait_turn(host, 0)
    # The first decision waits for the timer's last seconds to tick.
    host.wait_for_function("() => window.__cues.some((c) => c.name === 'tick')",
                           timeout=60_000)
    seen = 0
    turns = 0
    while True:
        kind = wait_turn(host, seen)
        if kind == "over":
            break
        seen = int(host.evaluate("window.__ann.filter(a => a[0] === 'assertive').length"))
        host.keyboard.press("Enter")
        turns += 1
        if turns == 3:
            # The connection drops mid-game and comes back by itself.
            host.evaluate("window.__sockets[window.__sockets.length - 1].close()")
            host.wait_for_function("() => window.__cues.some((c) => c.name === 'back')",
                                   timeout=60_000)
    host.wait_for_timeout(1000)  # the last cues' sound reaches the recording
    want = host.evaluate(EXPECTED)
    cues = host.evaluate("window.__cues")
    rec = host.evaluate(ENVELOPE)
    # Every event has its cue, played after the frame that told it.
    played = {name: sorted(c["at"] for c in cues if c["name"] == name) for name in CUE_NAMES}
    missing = []
    for name in CUE_NAMES:
        times = sorted(t for n, t in want if n == name)
        if len(played[name]) < len(times):
            missing.append(f"{name}: {len(times)} events, {len(played[name])} cues")
    assert not missing, missing
    for name in ("join", "leave", "chat", "turn", "chosen", "reveal", "place", "tick",
                 "round", "over", "lost", "back"):
        assert played[name], f"no {name} cue in the game"
    # Each cue is in the recording: loud where it played, and quiet somewhere between.
    env = rec
    floor = 0.003
    assert all(c["rec"] is not None for c in cues), cues
    unheard = [(c["name"], round(c["rec"])) for c in cues if _heard(env, c["rec"]) < floor]
    assert not unheard, f"cues played but not in the recording: {unheard}"
    assert sum(1 for e in env if e < floor) > len(env) / 4, "the recording is never quiet"


CUE_NAMES = ("turn", "chosen", "reveal", "place", "take_you", "take_other", "row", "tick",
             "round", "over", "chat", "join", "leave", "lost", "back")


#: The page out of sight on demand (``window.__setHidden(true)``), and every system
#: notification it makes, recorded.
HIDDEN = """
window.__hidden = false;
Object.defineProperty(document, "hidden", {get: () => window.__hidden, configurable: true});
Object.defineProperty(document, "visibilityState",
                      {get: () => (window.__hidden ? "hidden" : "visible"), configurable: true});
window.__setHidden = (h) => {
  window.__hidden = h;
  document.dispatchEvent(new Event("visibilitychange"));
};
window.__notes = [];
window.Notification = class {
  static permission = "granted";
  static requestPermission() { return Promise.resolve("granted"); }
  constructor(title, options) { window.__notes.push([title, options.body]); }
  close() {}
};
"""


@pytest.mark.timeout(300)
def test_your_turn_in_a_hidden_tab(new_page: NewPage) -> None:
    """Out of sight, your turn sounds, the title says so and a notification tells the
    decision (the setting on); in sight again, the title is the page's own."""
    page = new_page(script=TAP + HIDDEN)
    set_name(page, fresh_name("Away"))
    page.goto(page.url.split("#")[0] + "#/settings")
    page.locator("#set-notify").check()
    page.locator("#settings-form button[type=submit]").click()
    page.wait_for_function("() => localStorage.getItem('nimmt.notify') === '1'")
    page.goto(page.url.split("#")[0] + "#/")
    create_table(page, players=2, rounds=1, bots=1, start=False)
    plain = page.title()
    page.evaluate("window.__setHidden(true)")
    page.locator("#start-game").dispatch_event("click")
    page.wait_for_function("() => window.__notes.length > 0")
    assert page.title().startswith("Your turn — "), page.title()
    title, body = page.evaluate("window.__notes[0]")
    assert title == "Your turn" and body == "Your turn: choose a card.", (title, body)
    assert page.evaluate("window.__cues.some((c) => c.name === 'turn')")
    page.evaluate("window.__setHidden(false)")
    assert page.title() == plain
