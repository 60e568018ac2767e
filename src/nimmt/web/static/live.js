// Announcements: the two live regions of index.html, the log, and sound cues.
const regions = {
  polite: () => document.getElementById("live-polite"),
  assertive: () => document.getElementById("live-assertive"),
};
let last = "";
const KEEP = 4;

// Say `text` in a live region. Each announcement is a new paragraph, so the same
// text said twice is still announced twice; old paragraphs are pruned.
export function announce(text, level = "polite") {
  if (!text) return;
  const region = regions[level]();
  const p = document.createElement("p");
  p.textContent = text;
  region.append(p);
  while (region.childElementCount > KEEP) region.firstElementChild.remove();
  last = text;
}

export function lastAnnouncement() { return last; }

let audio = null;
export let soundOn = localStorage.getItem("nimmt.sound") === "1";
export function setSound(on) {
  soundOn = on;
  localStorage.setItem("nimmt.sound", on ? "1" : "0");
}

// A short tone (Web Audio, no files): "turn" rises, "take" falls, "warn" beeps twice.
export function cue(kind) {
  if (!soundOn) return;
  try {
    audio = audio || new AudioContext();
    const now = audio.currentTime;
    const tones = { turn: [523, 784], take: [392, 262], warn: [880, 880], over: [523, 659] }[kind];
    if (!tones) return;
    tones.forEach((freq, i) => {
      const osc = audio.createOscillator();
      const gain = audio.createGain();
      osc.frequency.value = freq;
      gain.gain.setValueAtTime(0.08, now + i * 0.12);
      gain.gain.exponentialRampToValueAtTime(0.001, now + i * 0.12 + 0.11);
      osc.connect(gain).connect(audio.destination);
      osc.start(now + i * 0.12);
      osc.stop(now + i * 0.12 + 0.12);
    });
  } catch (_) {
    // No audio device: cues are optional.
  }
}
