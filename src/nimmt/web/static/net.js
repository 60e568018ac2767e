// @ts-check
// The WebSocket of docs/protocol.md: hello (with the page's language, so the server
// narrates in it), reconnecting with the table and the last seq, and requests answered
// by their `ref`.
import { language, t } from "./i18n.js";
import { $, S, local } from "./state.js";

/** @type {(msg: any) => void} */
let handler = () => {};

/** Where the server's messages go (app.js). */
export function onServer(/** @type {(msg: any) => void} */ f) { handler = f; }

export function setConn(/** @type {string} */ state) {
  const el = $("conn");
  el.dataset.state = state;
  el.textContent = t(`conn.${state}`);
}

export function connect() {
  if (S.ws && (S.ws.readyState === WebSocket.OPEN || S.ws.readyState === WebSocket.CONNECTING)) return;
  if (!S.token && !S.name) return;
  setConn("connecting");
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  const ws = new WebSocket(`${proto}//${location.host}/ws`);
  S.ws = ws;
  S.welcomed = false;
  ws.onopen = () => {
    S.open = true;
    S.retry = 0;
    /** @type {Record<string, unknown>} */
    const hello = { type: "hello", lang: language() };
    if (S.token) hello.token = S.token; else hello.name = S.name;
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
  handler(msg);
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
  S.onWelcome.splice(0).forEach((f) => f());
}

function whenWelcomed() {
  if (S.welcomed) return Promise.resolve();
  connect();
  return new Promise((resolve) => S.onWelcome.push(() => resolve(undefined)));
}

/**
 * Send a message; resolves with the answer that carries its ref (ack, table_state, error).
 * @param {Record<string, unknown>} msg
 * @returns {Promise<any>}
 */
export async function send(msg) {
  await whenWelcomed();
  const ref = ++S.refs;
  msg.ref = ref;
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
  S.code = null; S.seq = 0; S.table = null; S.view = null; S.prompt = null;
  local.set("table", null); local.set("seq", null);
}
