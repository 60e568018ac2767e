// @ts-check
// The results of a game (the winner, the places, the score sheet and its chart), and the
// history of finished games with the replay viewer (each step told by the server's
// narration).
import { t, tn, isolate, joined, language } from "./i18n.js";
import { $, S, button } from "./state.js";
import { cardEl } from "./cards.js";
import { isOver, names, standings, total } from "./table.js";
import { answer, urgent } from "./voice.js";
import { analyseReplayed } from "./tutor.js";
import { chart, fillSheet } from "./sheet.js";

// ---------------------------------------------------------------- results

export function renderResults() {
  const v = S.view;
  const tb = S.table;
  if (!v || !tb) {
    $("results-summary").textContent = t("results.none");
    $("results-body").replaceChildren();
    return;
  }
  const ns = names();
  const order = standings(v);
  const winners = (v.winners || []).map((i) => isolate(ns[i]));
  const youWon = S.you !== null && (v.winners || []).includes(S.you);
  $("results-summary").replaceChildren(...(winners.length
    ? tn("results.winners", { names: joined(winners), count: winners.length }) : []),
  ...(youWon ? [" ", t("results.youwon")] : []));
  $("results-sheet-panel").hidden = !S.rounds.length;
  fillSheet($("results-sheet"), ns, S.rounds, { you: S.you, winners: v.winners || [] });
  const figure = $("results-chart");
  figure.replaceChildren(/** @type {Node} */ (figure.querySelector("figcaption")),
    chart(ns, S.rounds, v.winners || []));
  $("results-body").replaceChildren(...order.map((i) => {
    const tr = document.createElement("tr");
    for (const cell of [[String(v.places[i])],
      i === S.you ? tn("player.you", { name: isolate(ns[i]) }) : [isolate(ns[i])],
      [String(total(v, i))]]) {
      const td = document.createElement("td");
      td.append(...cell);
      tr.append(td);
    }
    return tr;
  }));
  $("rematch").hidden = !(isOver() && tb.host === S.name);
  const game = `${tb.code}/${tb.game_no}`;
  if ($("analysis-box").dataset.game !== game) {  // another game: its own analysis
    $("analysis-box").hidden = true;
    $("analysis-box").dataset.game = game;
  }
}

// ---------------------------------------------------------------- history and replay

/** @type {{data: any, step: number, id: number}} */
const R = { data: null, step: 0, id: 0 };

export async function showHistory(/** @type {number | null} */ id) {
  $("replay").hidden = true;
  const list = $("history-list");
  list.replaceChildren();
  if (S.name) {
    const res = await fetch(`/api/players/${encodeURIComponent(S.name)}`);
    if (res.ok) {
      const data = await res.json();
      list.replaceChildren(...data.games.map((/** @type {any} */ g) => {
        const li = document.createElement("li");
        const a = document.createElement("a");
        a.href = `#/history/${g.id}`;
        a.textContent = t("history.game", { id: g.id, count: g.total,
          result: t(g.winner ? "history.won" : "history.lost") });
        li.append(a);
        return li;
      }));
    }
  }
  if (!list.childElementCount) {
    const li = document.createElement("li");
    li.textContent = t("history.none");
    list.append(li);
  }
  if (id) await openReplay(id);
}

async function openReplay(/** @type {number} */ id) {
  const res = await fetch(`/api/games/${id}/replay?lang=${language()}`);
  if (!res.ok) {
    urgent(t("history.missing", { id }));
    return;
  }
  R.data = await res.json();
  R.step = 0;
  R.id = id;
  $("replay-analysis-box").hidden = true;
  $("replay").hidden = false;
  $("replay-h").replaceChildren(...tn("replay.title",
    { id, players: joined(R.data.players.map((/** @type {string} */ n) => isolate(n))) }));
  renderStep(false);
  $("replay-h").focus();
}

function renderStep(speak = true) {
  const d = R.data;
  const st = d.steps[R.step];
  $("replay-pos").textContent = t("replay.pos", { step: R.step + 1, count: d.steps.length });
  $("replay-text").replaceChildren(...st.sentences.map((/** @type {string} */ s) => {
    const p = document.createElement("p");
    p.textContent = s;
    return p;
  }));
  $("replay-rows").replaceChildren(...st.rows.map((/** @type {number[]} */ row, /** @type {number} */ i) => {
    // Drawn as on the table: the row's number beside its cards (its name for the ear).
    const li = document.createElement("li");
    const said = document.createElement("span");
    said.className = "sr-only";
    said.textContent = t("row.label", { row: i + 1 });
    const label = document.createElement("span");
    label.className = "row-no";
    label.setAttribute("aria-hidden", "true");
    label.textContent = String(i + 1);
    const cards = document.createElement("span");
    cards.className = "row-cards";
    cards.append(...row.map((c) => cardEl(c)));
    li.append(said, label, cards);
    return li;
  }));
  $("replay-scores").replaceChildren(...d.players.map((/** @type {string} */ n, /** @type {number} */ i) => {
    const li = document.createElement("li");
    li.replaceChildren(...tn("player.score", { name: isolate(n), count: st.scores[i] }));
    return li;
  }));
  button("replay-prev").disabled = R.step === 0;
  button("replay-first").disabled = R.step === 0;
  button("replay-next").disabled = R.step === d.steps.length - 1;
  button("replay-last").disabled = R.step === d.steps.length - 1;
  if (speak) answer(`${$("replay-pos").textContent} ${st.sentences.join(" ")}`);
}

function stepTo(/** @type {number} */ i) {
  if (!R.data) return;
  const n = R.data.steps.length;
  const next = Math.max(0, Math.min(n - 1, i));
  const moved = next !== R.step;
  R.step = next;
  renderStep(moved);
}


export function wireResults() {
  $("replay-first").addEventListener("click", () => stepTo(0));
  $("replay-prev").addEventListener("click", () => stepTo(R.step - 1));
  $("replay-next").addEventListener("click", () => stepTo(R.step + 1));
  $("replay-last").addEventListener("click", () => stepTo(Infinity));
  $("replay-analyse").addEventListener("click", () => { analyseReplayed(R.id); });
}
