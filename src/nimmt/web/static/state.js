// @ts-check
// The page's one state store: everything the client knows about its connection, its
// table and its game lives in `S`; the views read it and the handlers change it.

/**
 * The wire's shapes come from wire.d.ts, generated from the protocol's JSON Schema
 * (scripts/wire-types): the names below are the client's short names for them.
 * @typedef {import("./wire").SeatInfo} Seat
 * @typedef {import("./wire").TableInfo} TableInfo
 * @typedef {import("./wire").PendingInfo} Pending
 * @typedef {import("./wire").ViewPayload} View
 * @typedef {import("./wire").Prompt} Prompt
 * @typedef {import("./wire").Sheet} Sheet
 * @typedef {import("./wire").SheetChange} SheetChange
 * @typedef {import("./wire").EventItem["event"]} GameEvent
 * @typedef {import("./wire").EventItem} EventItem
 * @typedef {import("./wire").NoticeItem} NoticeItem
 * @typedef {import("./wire").ChatItem} ChatItem
 * @typedef {EventItem | NoticeItem | ChatItem} Item
 * @typedef {import("./wire").TableState} TableStateMsg
 * @typedef {import("./wire").Older} Older
 * @typedef {import("./wire").Events} EventsMsg
 *   (an events frame's `sheet` holds the fields changed since the last one: merged in)
 * @typedef {import("./wire").Error} ErrorMsg
 *
 * What the client works out of the events (no wire shape):
 * @typedef {{row: number, bullheads: number, count: number}} Take
 * @typedef {{row?: number, took?: Take | null, choosing?: boolean}} Outcome
 * @typedef {{plays: [number, number][], out: Record<number, Outcome>,
 *   take: (Take & {player: number}) | null, taken: number | null}} Reveal
 */

/** localStorage under the `nimmt.` prefix. */
export const local = {
  /** @param {string} k */
  get: (k) => localStorage.getItem(`nimmt.${k}`),
  /** @param {string} k @param {unknown} v */
  set: (k, v) => (v === null || v === undefined
    ? localStorage.removeItem(`nimmt.${k}`) : localStorage.setItem(`nimmt.${k}`, String(v))),
};

/** An element of index.html by id (they all exist from the start). */
export const $ = (/** @type {string} */ id) => /** @type {HTMLElement} */ (document.getElementById(id));
/** A form field of index.html by id (an input, or a select: both have `value`). */
export const field = (/** @type {string} */ id) => /** @type {HTMLInputElement} */ ($(id));
/** The select of index.html with this id. */
export const choice = (/** @type {string} */ id) => /** @type {HTMLSelectElement} */ ($(id));
/** The dialog of index.html with this id. */
export const dialog = (/** @type {string} */ id) => /** @type {HTMLDialogElement} */ ($(id));
/** The button of index.html with this id. */
export const button = (/** @type {string} */ id) => /** @type {HTMLButtonElement} */ ($(id));
/** Set an attribute only when it changes: a screen reader may speak a focused element's
 * changed name or state. `null` removes it. */
export function attr(/** @type {Element} */ el, /** @type {string} */ name, /** @type {string | null} */ value) {
  if (value === null) { if (el.hasAttribute(name)) el.removeAttribute(name); }
  else if (el.getAttribute(name) !== value) el.setAttribute(name, value);
}

/** A list's items, without one that is on its way out (see renderHand). */
export const items = (/** @type {Element} */ el) => /** @type {HTMLElement[]} */ (
  [...el.children].filter((c) => !c.classList.contains("leaving")));

export const S = {
  /** @type {WebSocket | null} */ ws: null,
  open: false, welcomed: false, retry: 0, closing: false,
  token: local.get("token"), name: local.get("name"),
  /** An invitation link's code, said in the next hello (social.js). */
  /** @type {string | null} */ invite: null,
  /** The player has a password (an account), as the last `welcome` said. */
  account: local.get("account") === "1",
  code: local.get("table"), seq: Number(local.get("seq") || 0),
  /** @type {TableInfo | null} */ table: null,
  /** @type {number | null} */ you: null,
  /** @type {View | null} */ view: null,
  /** @type {Prompt | null} */ prompt: null,
  /** The last sheet merged with the changes since (docs/protocol.md). */
  /** @type {Partial<Sheet>} */ sheet: {},
  /** What the last catch-up left out, still on the server for the history keys. */
  /** @type {Older | null} */ older: null,
  /** A page of older items is being asked for. */
  paging: false,
  /** @type {string | null} */ announcedKey: null,
  /** @type {string | null} */ warnedKey: null,
  /** The decision and second the timer's last tick sounded for. */
  /** @type {string | null} */ tickedAt: null,
  /** @type {string | null} */ timerKey: null,
  /** @type {Prompt | null} */ timerFor: null,
  /** @type {string | null} */ chosenSaid: null,
  /** @type {number | null} */ deadline: null,
  /** @type {number | undefined} */ timerId: undefined,
  /** @type {number | undefined} */ settleId: undefined,
  /** @type {number | undefined} */ lobbyTimer: undefined,
  refs: 0,
  /** @type {Map<number, (msg: any) => void>} */ waiters: new Map(),
  /** Refs of requests whose refusal the asking code shows itself (send's `own`). */
  /** @type {Set<unknown>} */ own: new Set(),
  /** @type {((refusal: any) => void)[]} */ onWelcome: [],
  /** What the current game step says, gathered until the frames that came together are in. */
  step: { texts: /** @type {string[]} */ ([]) },
  /** The narration of the last frame that revealed cards (key R). */
  lastReveal: "",
  cursor: 0, rowCursor: 0, typed: "", typedAt: 0,
  /** @type {HTMLElement | null} */ returnFocus: null,
  /** Where the chat key (/) came from: focus goes back there once the line is sent. */
  /** @type {HTMLElement | null} */ chatFrom: null,
  /** @type {string | null} */ shownOver: null,
  /** The turn's revealed cards as the table shows them: each play, where it went, what it
   * took (`take`: a row taken, waiting for the card that starts it anew; `taken`: the
   * row taken last, marked on the table). */
  /** @type {Reveal} */ reveal: { plays: [], out: {}, take: null, taken: null },
  /** The score sheet: the game's rounds scored, round 1 first (`table_state`'s
   * `rounds`, then each `round_scored` event). */
  /** @type {import("./wire").RoundScored[]} */ rounds: [],
  /** The rows as the table shows them: the view's, and between two rounds (when the view
   * holds none) the last round's, as its last events left them. */
  /** @type {number[][]} */ shownRows: [],
};

/** Make option `i` of list box `list` its current one: in the tab order and selected
 * (selection follows focus); focused too when `focus`. */
export function select(/** @type {HTMLElement} */ list, /** @type {number} */ i, focus = true) {
  items(list).forEach((li, k) => {
    li.tabIndex = k === i ? 0 : -1;
    attr(li, "aria-selected", k === i ? "true" : "false");
  });
  const li = items(list)[i];
  if (focus && li && document.activeElement !== li) li.focus();
}

/** Whether the player asked for terse speech (Settings; `nimmt.terse`): no landmark
 * names in the game area, no hints after a click. */
export function terse() {
  return local.get("terse") === "1";
}

/** Whether a click or a tap on a card plays it at once (Settings; `nimmt.oneclick`, on
 * unless "0"): for a mouse, a pen or a finger only, never a screen reader's click (hand.js). */
export function oneClick() {
  return local.get("oneclick") !== "0";
}

/** The sheet's sentence for C on `card`, if the sheet has it. */
export function cardSentence(/** @type {number} */ card) {
  const pair = (S.sheet.cards || []).find(([c]) => c === card);
  return pair ? pair[1] : null;
}
