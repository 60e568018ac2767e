// @ts-check
// The WebSocket of docs/protocol.md: hello (with the page's language, so the server
// narrates in it), reconnecting with the table and the last seq, and requests answered
// by their `ref`.
import { language, t } from "./i18n.js";
import { $, S, local } from "./state.js";
import { answer, muted, urgent } from "./voice.js";
import { cue } from "./sound.js";

/** @type {(msg: any) => void} */
let handler = () => {};

/** Where the server's messages go (app.js). */
export function onServer(/** @type {(msg: any) => void} */ f) { handler = f; }

/** Show the connection's state (nothing before the first connection), and say when it is
 * lost and when it is back. */
export function setConn(/** @type {string} */ state) {
  const el = $("conn");
  const was = el.dataset.state;
  el.dataset.state = state;
  el.textContent = state === "idle" ? "" : t(`conn.${state}`);
  if (was === "online" && state === "offline") {
    lost = true;
    urgent(t("conn.offline"));
    cue("lost");
  } else if (lost && state === "online") {
    lost = false;
    if (!muted("system")) answer(t("conn.online"));
    cue("back");
  }
}

/** The connection was lost, and its coming back is still to be said. */
let lost = false;

/** The server's WebSocket, on this page's host. */
function socket() {
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  return new WebSocket(`${proto}//${location.host}/ws`);
}

export function connect() {
  if (S.ws && (S.ws.readyState === WebSocket.OPEN || S.ws.readyState === WebSocket.CONNECTING)) return;
  if (!S.token && !S.name) return;
  setConn("connecting");
  const ws = socket();
  S.ws = ws;
  S.welcomed = false;
  ws.onopen = () => {
    S.open = true;
    S.retry = 0;
    /** @type {Record<string, unknown>} */
    const hello = { type: "hello", lang: language() };
    if (S.token) hello.token = S.token; else hello.name = S.name;
    if (S.invite) hello.invite = S.invite;  // an invitation link's code (social.js)
    if (S.token && S.code) {
      hello.table = S.code;
      hello.last_seq = S.seq;
    }
    ws.send(JSON.stringify(hello));
  };
  ws.onmessage = (e) => receive(JSON.parse(e.data));
  ws.onclose = () => {
    S.open = false;
    S.welcomed = false;
    if (S.ws !== ws || S.closing) return;
    setConn("offline");
    const delay = Math.min(5000, 300 * 2 ** S.retry++);
    setTimeout(connect, delay);
  };
}

function receive(/** @type {any} */ msg) {
  // An error the asking code shows by its fields itself (send's `own`) is not said twice.
  const own = S.own.delete(msg.ref);
  if (!own || msg.type !== "error") handler(msg);
  if (msg.ref !== undefined && msg.ref !== null && S.waiters.has(msg.ref)) {
    S.waiters.get(msg.ref)?.(msg);
    S.waiters.delete(msg.ref);
  }
}

// A new hello (the server narrates in the language a connection said in its hello):
// after a change of language, reconnect at once; the seat and the table come back.
export function reconnect() {
  const old = S.ws;
  S.ws = null;
  S.open = false;
  S.welcomed = false;
  if (old) old.close();
  connect();
}

export function welcomed() {
  S.welcomed = true;
  S.onWelcome.splice(0).forEach((f) => f(null));
}

/** The server refused this connection's hello (`error`: its answer, a taken name): what
 * waited for the welcome gets that answer, and the page stops connecting until the player
 * tries again. */
export function refused(/** @type {any} */ error) {
  S.closing = true;
  const ws = S.ws;
  S.ws = null;
  if (ws) ws.close();
  S.closing = false;
  setConn("refused");
  S.onWelcome.splice(0).forEach((f) => f(error));
}

/** A hello on a connection of its own, for a sign-in or a recovery (`fields`: name and
 * password, or name, recovery code and new password): resolves with the server's
 * `welcome` (its `token` is the new session's) or its refusal, and closes. The page's own
 * connection is left as it is until the sign-in succeeds.
 * @param {Record<string, unknown>} fields
 * @returns {Promise<any>} */
export function helloOnce(fields) {
  return new Promise((resolve) => {
    const ws = socket();
    let done = false;
    const end = (/** @type {any} */ msg) => { if (!done) { done = true; resolve(msg); } ws.close(); };
    ws.onopen = () => ws.send(JSON.stringify({ type: "hello", lang: language(), ...fields }));
    ws.onmessage = (e) => {
      const msg = JSON.parse(e.data);
      if (msg.type === "welcome" || msg.type === "error") end(msg);
    };
    ws.onclose = () => end({ type: "error", code: "unreachable", text: t("account.unreachable") });
  });
}

/** The session is over (signed out, banned, a token the server does not know): its token
 * and table are forgotten, the connection closed, and nothing reconnects until the player
 * gives a name or signs in. */
export function endSession(/** @type {any} */ error) {
  S.token = null;
  S.account = false;
  local.set("token", null);
  local.set("account", null);
  forgetTable();
  refused(error);
  setConn("signedout");
}

/** @returns {Promise<any>} null once welcomed, else the server's refusal. */
export function whenWelcomed() {
  if (S.welcomed) return Promise.resolve(null);
  connect();
  return new Promise((resolve) => S.onWelcome.push(resolve));
}

/**
 * Send a message; resolves with the answer that carries its ref (ack, table_state, error).
 * `own`: the caller shows a refusal itself (by the fields it concerns), so the page does
 * not also say it.
 * @param {Record<string, unknown>} msg
 * @returns {Promise<any>}
 */
export async function send(msg, own = false) {
  const refusal = await whenWelcomed();
  if (refusal) return refusal;
  const ref = ++S.refs;
  msg.ref = ref;
  if (own) S.own.add(ref);
  return new Promise((resolve) => {
    S.waiters.set(ref, resolve);
    S.ws?.send(JSON.stringify(msg));
  });
}

export function saveSeq(/** @type {unknown} */ seq) {
  if (typeof seq === "number" && seq >= S.seq) {
    S.seq = seq;
    local.set("seq", seq);
  }
}

export function forgetTable() {
  S.code = null; S.seq = 0; S.table = null; S.view = null; S.prompt = null; S.older = null;
  local.set("table", null); local.set("seq", null);
}
