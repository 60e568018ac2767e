// @ts-check
// The expert as a teacher (docs/advice.md): a hint on the decision asked (key H, or the
// Hint button), the host's switch that allows hints at the table, and the analysis of a
// finished game on the results page and in the replay viewer. The sentences are the
// server's narration in the page's language; these files only label the controls.
import { t, language } from "./i18n.js";
import { $, S, button, field } from "./state.js";
import { send } from "./net.js";
import { answer, urgent } from "./voice.js";

/** Whether a seated person may ask for a hint now (the server says it with the table). */
export function hintsAllowed() {
  return Boolean(S.table && S.table.hints !== false);
}

/** Ask for a hint on the decision asked now. The answer is said when it comes, unless the
 * decision was made meanwhile; a refusal (hints off, one at a time, busy) is said by the
 * error handler like every other refusal. */
export async function askHint() {
  const asked = S.prompt;
  if (!asked) {
    answer(S.sheet.idle);
    return;
  }
  const got = await send({ type: "hint" });
  if (got.type !== "hint") return;
  if (!S.prompt || S.prompt.key !== got.key) return;  // decided meanwhile: drop it
  const shown = $("hint-text");
  shown.textContent = got.text;
  $("hint-box").hidden = false;
  answer(got.text);
}

/** After every state: the hint shown belongs to the decision it was asked for only, and
 * the host's switch shows the table's setting. */
export function renderTutor() {
  const tb = S.table;
  const shown = $("hint-box");
  if (!S.prompt) shown.hidden = true;
  const host = Boolean(tb && tb.host === S.name);
  const tool = $("hints-tool");
  tool.hidden = !(tb && host && !tb.rated && tb.status !== "closed");
  field("hints-allowed").checked = hintsAllowed();
  $("ask-hint").hidden = !(S.prompt && hintsAllowed());
}

/** The stored id of this table's game now shown (its number at the table). */
async function currentGameId() {
  if (!S.table) return null;
  const res = await fetch(`/api/tables/${encodeURIComponent(S.table.code)}/games`);
  if (!res.ok) return null;
  const data = await res.json();
  const game = data.games.find((/** @type {any} */ g) => g.game_no === S.table?.game_no);
  return game ? Number(game.id) : null;
}

/**
 * Fetch game `id`'s analysis and show it in `box` (a section with a heading and a list),
 * saying it is working meanwhile; the heading takes focus once the analysis is there.
 * @param {number | null} id
 * @param {string} prefix the ids of the section's parts: `${prefix}-box`, `-h`, `-list`
 * @param {HTMLButtonElement} button
 */
async function showAnalysis(id, prefix, button) {
  if (id === null) {
    urgent(t("analysis.missing"));
    return;
  }
  button.disabled = true;
  answer(t("analysis.working"));
  try {
    const res = await fetch(`/api/games/${id}/analysis?lang=${language()}`);
    if (!res.ok) {
      const refused = await res.json().catch(() => ({}));
      urgent(refused.text || t("analysis.missing"));
      return;
    }
    const data = await res.json();
    $(`${prefix}-list`).replaceChildren(...data.text.map((/** @type {string} */ line) => {
      const li = document.createElement("li");
      li.textContent = line;
      return li;
    }));
    $(`${prefix}-box`).hidden = false;
    $(`${prefix}-h`).focus();
  } finally {
    button.disabled = false;
  }
}

/** The analysis of the game just finished (results page). */
export async function analyseCurrent() {
  await showAnalysis(await currentGameId(), "analysis", button("analyse"));
}

/** The analysis of the game open in the replay viewer. */
export async function analyseReplayed(/** @type {number} */ id) {
  await showAnalysis(id, "replay-analysis", button("replay-analyse"));
}

export function wireTutor() {
  $("ask-hint").addEventListener("click", () => { askHint(); });
  $("hints-allowed").addEventListener("change", () => {
    send({ type: "set_hints", hints: field("hints-allowed").checked });
  });
  $("analyse").addEventListener("click", () => { analyseCurrent(); });
}
