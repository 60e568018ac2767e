// @ts-check
// Your turn while the page is out of sight (another tab, a minimised window): the cue
// sounds (sound.js), the tab's title says so until the page is seen again, and a system
// notification comes if the player allowed it in Settings.
import { t } from "./i18n.js";
import { local } from "./state.js";

/** The title before the alert changed it, while it shows. */
let plain = /** @type {string | null} */ (null);

const supported = () => "Notification" in window;

/** Whether the player asked for notifications and the browser allows them. */
export function notifyOn() {
  return local.get("notify") === "1" && supported() && Notification.permission === "granted";
}

/** Turn notifications on (asking the browser's permission, from the click that asked)
 * or off; whether they are on now. */
export async function setNotify(/** @type {boolean} */ on) {
  if (on && supported() && Notification.permission === "default") {
    try { await Notification.requestPermission(); } catch (_) { /* refused or unsupported */ }
  }
  local.set("notify", on ? "1" : "0");
  return notifyOn();
}

/** It is your turn (`text`: the decision asked): tell a player who is not looking. */
export function yourTurn(/** @type {string} */ text) {
  if (!document.hidden) return;
  if (plain === null) plain = document.title;
  document.title = `${t("alert.title")} — ${plain}`;
  if (!notifyOn()) return;
  try {
    const n = new Notification(t("alert.title"), { body: text, tag: "nimmt-turn" });
    n.onclick = () => { window.focus(); n.close(); };
  } catch (_) {
    // Some mobile browsers allow notifications only from a service worker.
  }
}

document.addEventListener("visibilitychange", () => {
  if (document.hidden || plain === null) return;
  document.title = plain;
  plain = null;
});
