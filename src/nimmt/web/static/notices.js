// @ts-check
// Everything said is shown: what the voice says that nothing else on the screen shows (a
// refusal, "Invitation sent", the connection lost and back, the timer's warning, a key's
// answer) appears in the notice area at the top of the page and fades after a while.
// The area lies over the page (lobby.css): a notice never moves what is under it, and
// the pointer passes through it. It is hidden from screen readers, which heard it.
//
// voice.js calls `notice` for every message it writes, unless the message names the
// element that already shows it (`shownIn`: the game log, a chat log, the invitation
// banner) and that element is on the screen.

/** Notices shown at once, at most: a new one pushes the oldest out. */
const MOST = 3;
/** How long a notice stays: a few seconds, and longer for a long one (ms). */
const STAY = 4000;
const PER_CHARACTER = 60;
const LONGEST = 15000;
/** The fade's length (lobby.css), after which it goes. */
const FADE = 600;

/** Whether the element `id` is on the page for the eye (not in a hidden view, drawn). */
export function onScreen(/** @type {string | null | undefined} */ id) {
  const el = id ? document.getElementById(id) : null;
  return Boolean(el && !el.closest("[hidden]") && el.getClientRects().length);
}

/** Show `text` in the notice area for a while. */
export function notice(/** @type {string} */ text) {
  const area = document.getElementById("notices");
  if (!area || !text) return;
  const p = document.createElement("p");
  p.className = "notice";
  p.textContent = text;
  area.append(p);
  while (area.childElementCount > MOST) area.firstElementChild?.remove();
  window.setTimeout(() => {
    p.classList.add("fading");
    window.setTimeout(() => p.remove(), FADE);
  }, Math.min(LONGEST, STAY + text.length * PER_CHARACTER));
}
