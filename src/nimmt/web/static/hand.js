// @ts-check
// The hand: the cards (or the draft's face-up pool) as a list box, updated in place (a
// card keeps its element while it stays, so focus never jumps on a redraw), and how a
// card is played.
//
// One rule for every way of acting, so that the card played is always the card the
// player last heard (docs/web.md, "One activation rule"):
// - The page's cursor follows focus however it moved (the arrows, a screen reader's
//   cursor, a click): `focusin` sets it.
// - Enter or Space, when the key reaches the page, plays the focused card.
// - A click, whatever its `detail` (a mouse's or a tap's 1; JAWS's virtual cursor and
//   TalkBack through Chromium 1; VoiceOver through WebKit 0), selects the card it lands
//   on and, to a screen reader, says how to play it; a click on the card so selected
//   plays it. The Play button under the hand names the card it plays.
// - One-click play (Settings, on by default): a click that a pointer made (a mouse's
//   button, a finger, a pen) plays a playable card at once. A pointer's press comes as a
//   `pointerdown` of type mouse, touch or pen with a pressure above 0 (0.5 for a mouse's
//   button, the finger's force); a reader's click never has one: Chromium's click for a
//   reader sends a `pointerdown` of type "mouse" with pressure 0 (simulated_event_util.cc),
//   WebKit's none. So a reader's click keeps the rule above.
import { t } from "./i18n.js";
import { $, S, button, items, attr, oneClick, select, terse } from "./state.js";
import { cardEl, cardLabel, cardName } from "./cards.js";
import { actionFor, digitOf, isTyping } from "./keys.js";
import { answer, urgent } from "./voice.js";
import { send } from "./net.js";

/** The cards a click or Enter may choose now: the decision's options, or, once a card is
 * chosen, any card of the hand until the reveal (the choice may be changed). */
export function playable() {
  const p = S.prompt;
  const v = S.view;
  if (p && (p.kind === "card" || p.kind === "draft")) return new Set(p.options);
  if (v && v.my_choice !== null && v.phase === "choose" && v.pending && v.pending.kind === "card") {
    return new Set(v.hand);
  }
  return new Set();
}

export function renderHand(/** @type {import("./state.js").View} */ v) {
  const p = S.prompt;
  const drafting = p && p.kind === "draft";
  const cards = drafting ? v.draft_pool : v.hand;
  const hand = $("hand");
  const focusedLi = hand.contains(document.activeElement) ? document.activeElement : null;
  /** @type {Map<string, HTMLElement>} */
  const have = new Map(items(hand).map((li) => [li.dataset.card || "", li]));
  const want = new Set(cards.map(String));
  const stays = (/** @type {HTMLElement} */ li) => want.has(li.dataset.card || "");
  if (focusedLi instanceof HTMLElement && !stays(focusedLi)) {
    // The focused card leaves the hand (it was played): its neighbour takes focus before
    // it goes, so focus never falls to the page (a screen reader would say it left the
    // list and came back).
    const list = items(hand);
    const at = list.indexOf(focusedLi);
    const next = list.slice(at + 1).find(stays) || list.slice(0, at).reverse().find(stays);
    if (next) { next.tabIndex = 0; next.focus(); }
  }
  let lostAt = -1;
  items(hand).forEach((li, i) => {
    if (stays(li)) return;
    if (li !== focusedLi) { li.remove(); return; }
    lostAt = i;
    // The card that had focus goes a moment later, unseen, in a later update of the
    // page's accessibility tree: removed in the same update as the focus move, a screen
    // reader may handle the removal first and say that focus left the list and came back.
    li.classList.add("leaving");
    li.removeAttribute("id");
    li.tabIndex = -1;
    attr(li, "aria-selected", "false");
    window.setTimeout(() => li.remove(), 250);
  });
  // Nothing in a card's name or state changes while it is in the hand: a screen reader
  // says a change of the focused option (a card chosen, the cards disabled at the reveal)
  // in the middle of what the table says. The chosen card is marked for the eye; A and
  // the narration say it; a card that cannot be played now says why when played.
  hand.classList.toggle("waiting", playable().size === 0);
  cards.forEach((c, i) => {
    let li = have.get(String(c));
    if (!li) {
      li = cardEl(c, "li");
      li.setAttribute("role", "option");
      li.id = `card-${c}`;
      li.tabIndex = -1;
    }
    const kids = items(hand);
    if (kids[i] !== li) hand.insertBefore(li, kids[i] || null);
    li.classList.toggle("chosen", v.my_choice === c);
    attr(li, "aria-label", cardName(c));
  });
  const now = document.activeElement;
  if (now instanceof HTMLElement && hand.contains(now)) S.cursor = items(hand).indexOf(now);
  else if (lostAt >= 0) S.cursor = lostAt;
  S.cursor = Math.max(0, Math.min(S.cursor, cards.length - 1));
  select(hand, S.cursor, false);
  // The list box alone is named (its heading is for the eye and for browse mode's
  // heading keys): one name said as focus comes back to the hand, not three.
  const title = drafting ? t("hand.pool") : t("hand.title");
  if ($("hand-h").textContent !== title) $("hand-h").textContent = title;
  attr(hand, "aria-label", title);
  $("hand-panel").hidden = cards.length === 0;
  renderPlayButton();
}

/** The Play button under the hand names the card it plays (the hand's current one). */
export function renderPlayButton() {
  const li = items($("hand"))[S.cursor];
  const btn = button("play-card");
  const card = li ? Number(li.dataset.card) : null;
  btn.hidden = card === null || !playable().has(card);
  if (card !== null) {
    const text = t("hand.play", { card: cardLabel(card) });
    if (btn.textContent !== text) btn.textContent = text;
  }
}

/** Move focus to the hand, unless the player is typing in chat. Returns true if it moved. */
export function focusHand() {
  const active = document.activeElement;
  if (isTyping(active) && active?.closest("#chat-form")) return false;
  const hand = $("hand");
  if (hand.contains(active)) return false;
  const opt = items(hand)[S.cursor] || items(hand)[0];
  if (!opt) return false;
  opt.focus();
  return true;
}

/** The hand's current card (the focused one, when focus is in the hand). */
export function currentCard() {
  return items($("hand"))[S.cursor] || null;
}

function moveCursor(/** @type {number} */ i) {
  const hand = $("hand");
  const n = items(hand).length;
  if (!n) return;
  S.cursor = Math.max(0, Math.min(n - 1, i));
  select(hand, S.cursor);
  renderPlayButton();
}

/** A card selected by a click, which a second click plays (see the module's rule). */
let armed = /** @type {HTMLElement | null} */ (null);

/** Play (or draft) the card of `li`, if one may be chosen now; else say what the table
 * waits for (the server's sentence). */
function play(/** @type {HTMLElement} */ li) {
  armed = null;
  const card = Number(li.dataset.card);
  if (!playable().has(card)) {
    urgent(S.sheet.idle || "");
    return;
  }
  const p = S.prompt;
  // The server's narration of the choice ("You choose 40.") confirms it.
  send(p && p.kind === "draft" ? { type: "draft_card", card } : { type: "play_card", card });
}

/** The option an event is about (not one on its way out). */
function optionOf(/** @type {Event} */ e) {
  const li = /** @type {HTMLElement | null} */ (/** @type {Element} */ (e.target).closest("[role=option]"));
  return li && !li.classList.contains("leaving") ? li : null;
}

// Shift and a card's digits jump to it (digits alone speak the rows, keys 1–4, unless
// the shortcuts are off or a digit is not one of them).
function onHandKey(/** @type {KeyboardEvent} */ e) {
  const n = items($("hand")).length;
  if (e.altKey || e.ctrlKey || e.metaKey) return;
  switch (e.key) {
    case "ArrowDown": case "ArrowRight": moveCursor(S.cursor + 1); break;
    case "ArrowUp": case "ArrowLeft": moveCursor(S.cursor - 1); break;
    case "Home": moveCursor(0); break;
    case "End": moveCursor(n - 1); break;
    case "Enter": case " ": {
      // The focused card, whatever moved focus there.
      const li = optionOf(e) || currentCard();
      if (li) play(li);
      break;
    }
    default: {
      const digit = digitOf(e);
      if (digit === null || actionFor(e)) return;
      const now = Date.now();
      S.typed = now - S.typedAt > 1000 ? digit : S.typed + digit;
      S.typedAt = now;
      const opts = items($("hand"));
      const num = (/** @type {HTMLElement} */ li) => {
        const c = Number(li.dataset.card);
        return c < 0 ? `0${c + 10}` : String(c);
      };
      const k = opts.findIndex((li) => num(li) === S.typed);
      const j = k >= 0 ? k : opts.findIndex((li) => num(li).startsWith(S.typed));
      if (j >= 0) moveCursor(j);
      break;
    }
  }
  e.preventDefault();
  e.stopPropagation();
}

/** The card a pointer pressed (see the module's rule), until the click that follows. */
let pressed = /** @type {HTMLElement | null} */ (null);

function onHandPress(/** @type {PointerEvent} */ e) {
  const real = e.isPrimary && ["mouse", "touch", "pen"].includes(e.pointerType) && e.pressure > 0;
  pressed = real ? optionOf(e) : null;
}

// Any click, from any device or reader: the first selects, the second plays; one a
// pointer made plays at once with one-click play on.
function onHandClick(/** @type {MouseEvent} */ e) {
  const li = optionOf(e);
  const byPointer = li !== null && li === pressed;
  pressed = null;
  if (!li) return;
  if (armed === li || (byPointer && oneClick() && playable().has(Number(li.dataset.card)))) {
    if (document.activeElement !== li) li.focus();
    play(li);
    return;
  }
  armed = li;
  // WebKit's click (VoiceOver) does not move focus; Chromium's reader click and a mouse
  // have moved it already. Focus moves the cursor (onHandFocus).
  if (document.activeElement !== li) li.focus();
  const card = Number(li.dataset.card);
  if (playable().has(card) && !terse()) answer(t("hand.armed", { card: cardLabel(card) }));
}

// The cursor follows focus, however it moved.
function onHandFocus(/** @type {FocusEvent} */ e) {
  const li = optionOf(e);
  if (!li) return;
  const i = items($("hand")).indexOf(li);
  if (i < 0) return;
  if (armed !== li) armed = null;
  S.cursor = i;
  select($("hand"), i, false);
  renderPlayButton();
}

export function wireHand() {
  $("hand").addEventListener("keydown", onHandKey);
  $("hand").addEventListener("pointerdown", onHandPress);
  $("hand").addEventListener("click", onHandClick);
  $("hand").addEventListener("focusin", onHandFocus);
  $("play-card").addEventListener("click", () => {
    const li = currentCard();
    if (li) play(li);
  });
}
