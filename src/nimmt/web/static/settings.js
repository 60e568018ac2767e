// @ts-check
// Settings, in groups: the game (one-click play, the turn's notification), sound and voice
// (cues, what is spoken, the pace, the page's own voice), display (the colours) and the
// keyboard shortcuts (on or off; the keys themselves folded in their own section). Each is
// kept in localStorage on this device; Save keeps them, but the colours change at once.
import { t } from "./i18n.js";
import { $, choice, field, local, oneClick, terse } from "./state.js";
import { ACTIONS, KEYS, setKeys } from "./keys.js";
import {
  MUTABLE, answer, muted, pace, setMuted, setPace, setVoiceSettings, voiceSettings, voicesFor,
} from "./voice.js";
import { setSound, setVolume, soundOn, volume } from "./sound.js";
import { notifyOn, setNotify } from "./alert.js";
import { setTheme, theme } from "./display.js";
import { cardSize, setCardSize } from "./cards.js";

/** The hand's help under it says how a click plays a card, as the setting is. */
export function renderPlayHelp() {
  const help = $("hand-help");
  help.dataset.i18n = oneClick() ? "hand.help" : "hand.helptwo";
  const text = t(help.dataset.i18n);
  if (help.textContent !== text) help.textContent = text;
}

export function renderSettings() {
  field("set-oneclick").checked = oneClick();
  field("set-keys-on").checked = KEYS.on;
  for (const g of MUTABLE) field(`set-speak-${g}`).checked = !muted(g);
  field("set-terse").checked = terse();
  field("set-sound").checked = soundOn;
  field("set-volume").value = String(volume);
  field("set-notify").checked = notifyOn();
  choice("set-theme").value = theme();
  choice("set-cards").value = cardSize();
  const voice = voiceSettings();
  field("set-selfvoice").checked = voice.on;
  field("set-rate").value = String(voice.rate);
  renderVoices();
  // A pace not among the choices (set by hand) shows as the nearest one.
  const paces = [...choice("set-pace").options].map((o) => Number(o.value));
  choice("set-pace").value = String(paces.reduce((a, b) => (Math.abs(b - pace()) < Math.abs(a - pace()) ? b : a)));
  $("set-keys").replaceChildren(...ACTIONS.map((a) => {
    const div = document.createElement("div");
    div.className = "field";
    const label = document.createElement("label");
    label.htmlFor = `key-${a}`;
    label.textContent = t(`action.${a}`);
    const input = document.createElement("input");
    input.id = `key-${a}`;
    input.name = a;
    input.autocomplete = "off";
    input.value = KEYS.map[a] || "";
    div.append(label, input);
    return div;
  }));
}

async function saveSettings() {
  /** @type {Record<string, string>} */
  const map = {};
  for (const a of ACTIONS) map[a] = field(`key-${a}`).value.trim().toLowerCase();
  setKeys({ on: field("set-keys-on").checked, map });
  local.set("oneclick", field("set-oneclick").checked ? null : 0);
  renderPlayHelp();
  setSound(field("set-sound").checked);
  setVolume(Number(field("set-volume").value));
  setPace(Number(choice("set-pace").value));
  for (const g of MUTABLE) setMuted(g, !field(`set-speak-${g}`).checked);
  local.set("terse", field("set-terse").checked ? 1 : null);
  setCardSize(choice("set-cards").value);
  setVoiceSettings({ on: field("set-selfvoice").checked, voice: choice("set-voice").value,
    rate: Number(field("set-rate").value) });
  // The browser asks its permission now, from the click that saved.
  const asked = field("set-notify").checked;
  const notify = await setNotify(asked);
  field("set-notify").checked = notify;
  answer(asked && !notify ? `${t("settings.saved")} ${t("notify.denied")}` : t("settings.saved"));
}

/** The voice list of the page's language (the browser may load its voices late). */
function renderVoices() {
  const select = choice("set-voice");
  const want = voiceSettings().voice;
  const def = document.createElement("option");
  def.value = "";
  def.textContent = t("settings.voice.default");
  select.replaceChildren(def, ...voicesFor(document.documentElement.lang || "en").map((v) => {
    const o = document.createElement("option");
    o.value = v.name;
    o.textContent = v.name;
    return o;
  }));
  select.value = [...select.options].some((o) => o.value === want) ? want : "";
}

export function wireSettings() {
  $("settings-form").addEventListener("submit", (/** @type {Event} */ e) => { e.preventDefault(); saveSettings(); });
  $("set-reset").addEventListener("click", () => {
    setKeys(null);
    renderSettings();
    answer(t("settings.restored"));
  });
  $("set-theme").addEventListener("change", () => {
    const select = choice("set-theme");
    setTheme(select.value);
    answer(t("theme.changed", { theme: select.selectedOptions[0]?.textContent || "" }));
  });
  if ("speechSynthesis" in window) speechSynthesis.addEventListener("voiceschanged", renderVoices);
}
