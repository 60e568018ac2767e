// @ts-check
// The game's sounds: a short cue for each thing that happens at the table, so that a
// player hears the game without waiting for a sentence (as in the audio-game rooms blind
// players know). Every cue is synthesized here with Web Audio from the notes below: no
// files, nothing fetched, the project's own sounds under its licence.
//
// Browsers start audio only after a user gesture (Safari keeps a context made without
// one silent for ever): the context is made and resumed on the first key, click or tap,
// and cues asked for before that are dropped. On by default; a volume and a mute in
// Settings, and a key (M) that mutes and unmutes.
import { local } from "./state.js";

/**
 * One note: [frequency in Hz, start in s, length in s, wave, loudness 0–1, glide to Hz].
 * @typedef {[number, number, number, OscillatorType?, number?, number?]} Note
 * @typedef {{notes: Note[], noise?: [number, number, number]}} Cue
 */

/** Every cue, by name. Each differs from every other in pitch, direction or rhythm
 * (tests/web/test_web_sound.py renders them and compares their spectrograms). */
export const CUES = /** @type {Record<string, Cue>} */ ({
  // Your turn: two rising notes, bright.
  turn: { notes: [[523, 0, 0.09, "triangle"], [784, 0.1, 0.16, "triangle"]] },
  // You chose a card: a low, short pop.
  chosen: { notes: [[300, 0, 0.06, "triangle", 0.8, 600]] },
  // Cards turned face up: a brushed sweep (noise through a rising band), then a snap.
  reveal: { notes: [[2600, 0.17, 0.03, "sine", 0.5]], noise: [0, 0.16, 3000] },
  // A card laid on a row: a dry tick.
  place: { notes: [[950, 0, 0.03, "square", 0.25]] },
  // You take a row: three falling, buzzy notes.
  take_you: { notes: [[392, 0, 0.11, "sawtooth", 0.5], [311, 0.12, 0.11, "sawtooth", 0.5],
    [196, 0.24, 0.28, "sawtooth", 0.5]] },
  // Someone else takes a row: one short, light falling glide.
  take_other: { notes: [[740, 0, 0.16, "triangle", 0.7, 440]] },
  // A row to choose: a question, low-low-high.
  row: { notes: [[440, 0, 0.08, "square", 0.35], [440, 0.12, 0.08, "square", 0.35],
    [660, 0.24, 0.16, "square", 0.35]] },
  // The timer's last seconds: a high blip, one a second.
  tick: { notes: [[1760, 0, 0.04, "sine", 0.7]] },
  // A round scored: three notes up.
  round: { notes: [[523, 0, 0.1, "triangle"], [659, 0.11, 0.1, "triangle"],
    [784, 0.22, 0.22, "triangle"]] },
  // The game over: four notes up to the octave, the last held.
  over: { notes: [[392, 0, 0.12, "triangle"], [523, 0.13, 0.12, "triangle"],
    [659, 0.26, 0.12, "triangle"], [1047, 0.39, 0.4, "triangle"]] },
  // A chat line: two quick rising glides, a bubble.
  chat: { notes: [[1000, 0, 0.06, "sine", 0.6, 1500], [1000, 0.09, 0.06, "sine", 0.6, 1500]] },
  // An invitation: a doorbell, two bright notes falling a third, rung twice.
  invite: { notes: [[1319, 0, 0.1, "sine", 0.8], [1047, 0.11, 0.16, "sine", 0.8],
    [1319, 0.34, 0.1, "sine", 0.8], [1047, 0.45, 0.2, "sine", 0.8]] },
  // Someone sits down or leaves: a soft rising or falling pair.
  join: { notes: [[600, 0, 0.07, "sine", 0.6], [900, 0.08, 0.1, "sine", 0.6]] },
  leave: { notes: [[700, 0, 0.07, "sine", 0.6], [440, 0.08, 0.12, "sine", 0.6]] },
  // The connection lost: a low buzz powering down; back: a clear rising sweep.
  lost: { notes: [[392, 0, 0.35, "triangle", 0.9, 98]] },
  back: { notes: [[440, 0, 0.2, "sine", 0.8, 880], [1320, 0.21, 0.12, "sine", 0.6]] },
});

/** Whether cues sound (localStorage `nimmt.sound`; on unless set to "0"). */
export let soundOn = local.get("sound") !== "0";
/** The cues' volume, 0–100 (localStorage `nimmt.volume`, default 70). */
export let volume = readVolume();

function readVolume() {
  const v = Number(local.get("volume"));
  return local.get("volume") !== null && Number.isFinite(v) ? Math.max(0, Math.min(100, v)) : 70;
}

export function setSound(/** @type {boolean} */ on) {
  soundOn = on;
  local.set("sound", on ? "1" : "0");
}

export function setVolume(/** @type {number} */ v) {
  volume = Math.max(0, Math.min(100, Math.round(v)));
  local.set("volume", volume);
  if (master && ctx) master.gain.setValueAtTime(gainOf(volume), ctx.currentTime);
}

/** Loudness heard as even steps: the square of the setting. */
const gainOf = (/** @type {number} */ v) => 0.5 * (v / 100) ** 2;

/** @type {AudioContext | null} */
let ctx = null;
/** @type {GainNode | null} */
let master = null;

/** The first gesture makes and resumes the context (and plays a silent buffer, which
 * some mobile browsers need before any sound); the listeners go once it runs. */
function unlock() {
  try {
    if (!ctx) {
      const Ctx = window.AudioContext
        || /** @type {any} */ (window).webkitAudioContext;
      if (!Ctx) return;
      ctx = /** @type {AudioContext} */ (new Ctx());
      master = ctx.createGain();
      master.gain.value = gainOf(volume);
      master.connect(ctx.destination);
    }
    const c = ctx;
    if (c.state !== "running") {
      c.resume().then(() => { if (c.state === "running") stopListening(); }, () => {});
      const silent = c.createBufferSource();
      silent.buffer = c.createBuffer(1, 1, 22050);
      silent.connect(c.destination);
      silent.start(0);
    } else stopListening();
  } catch (_) {
    // No audio device: the game goes on in silence.
  }
}

const GESTURES = ["pointerdown", "keydown", "touchend"];
function stopListening() {
  for (const g of GESTURES) document.removeEventListener(g, unlock, true);
}
for (const g of GESTURES) document.addEventListener(g, unlock, true);

/** Play the notes of `cue` on `out` (of context `c`) from time `at`. Shared by the page
 * and by the tests' offline rendering, so what is tested is what plays. */
export function render(/** @type {BaseAudioContext} */ c, /** @type {AudioNode} */ out,
  /** @type {Cue} */ cue, /** @type {number} */ at) {
  for (const [freq, start, len, wave = "sine", loud = 1, glide] of cue.notes) {
    const osc = c.createOscillator();
    const env = c.createGain();
    osc.type = wave;
    osc.frequency.setValueAtTime(freq, at + start);
    if (glide) osc.frequency.exponentialRampToValueAtTime(glide, at + start + len);
    env.gain.setValueAtTime(0.0001, at + start);
    env.gain.exponentialRampToValueAtTime(loud, at + start + 0.008);
    env.gain.exponentialRampToValueAtTime(0.0001, at + start + len);
    osc.connect(env).connect(out);
    osc.start(at + start);
    osc.stop(at + start + len + 0.02);
  }
  if (cue.noise) {
    const [start, len, band] = cue.noise;
    const n = Math.ceil(c.sampleRate * len);
    const buf = c.createBuffer(1, n, c.sampleRate);
    const data = buf.getChannelData(0);
    // A fixed pseudo-random sequence: the same sweep every time.
    let seed = 7;
    for (let i = 0; i < n; i++) {
      seed = (seed * 16807) % 2147483647;
      data[i] = (seed / 2147483647) * 2 - 1;
    }
    const src = c.createBufferSource();
    src.buffer = buf;
    const filter = c.createBiquadFilter();
    filter.type = "bandpass";
    filter.frequency.setValueAtTime(band / 2, at + start);
    filter.frequency.exponentialRampToValueAtTime(band * 2, at + start + len);
    const env = c.createGain();
    env.gain.setValueAtTime(0.0001, at + start);
    env.gain.exponentialRampToValueAtTime(0.8, at + start + 0.02);
    env.gain.exponentialRampToValueAtTime(0.0001, at + start + len);
    src.connect(filter).connect(env).connect(out);
    src.start(at + start);
  }
}

/** Play cue `name`, `delay` ms from now (a reveal's cards land one after another);
 * nothing while muted or before the first gesture. */
export function cue(/** @type {string} */ name, /** @type {number} */ delay = 0) {
  const def = CUES[name];
  if (!soundOn || !def || !ctx || !master || ctx.state !== "running") return;
  try {
    render(ctx, master, def, ctx.currentTime + 0.01 + delay / 1000);
    // Said to the page too, for a user script or extension that maps cues elsewhere
    // (a vibration, other sounds) and for the tests.
    document.dispatchEvent(new CustomEvent("nimmt-cue",
      { detail: { name, at: performance.now() + 10 + delay } }));
  } catch (_) {
    // A closed or broken context: the game goes on in silence.
  }
}
