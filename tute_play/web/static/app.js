// The web table's page: talks to the JSON API, draws the table, reveals the bots' moves one at
// a time. The page never decides what is legal: the server sends the legal moves (the core's).
"use strict";

const STEP_MS = 650;          // pause between revealed moves
const $ = (id) => document.getElementById(id);
const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));

let options = null;
let game = null;              // the last view of the game in play
let busy = false;             // revealing moves: the hand is not clickable
let replay = null;            // {hands, hand, step} while replaying

// ------------------------------------------------------------------------------------------
// The API
// ------------------------------------------------------------------------------------------
async function api(method, path, body, raw) {
  const init = { method, headers: {} };
  if (body !== undefined) {
    init.body = raw ? body : JSON.stringify(body);
    init.headers["Content-Type"] = raw ? "text/plain; charset=utf-8" : "application/json";
  }
  const res = await fetch(path, init);
  let data = null;
  try { data = await res.json(); } catch (e) { data = null; }
  if (!res.ok) throw new Error((data && data.error) || `${res.status} ${res.statusText}`);
  return data;
}

function showError(msg) {
  const box = $("error");
  box.textContent = msg;
  box.hidden = !msg;
}

// ------------------------------------------------------------------------------------------
// Drawing the table
// ------------------------------------------------------------------------------------------
const POSITIONS = { 2: ["bottom", "top"], 3: ["bottom", "right", "left"], 4: ["bottom", "right", "top", "left"] };

function seatName(view, seat, ctx) {
  if (ctx.mode === "replay") return `player_${seat}`;
  if (seat === ctx.you) return "You";
  if (view.partnerships && seat === (ctx.you + 2) % 4) return `Partner (player_${seat})`;
  return `player_${seat}`;
}

function shortName(view, seat, ctx) {
  return ctx.mode !== "replay" && seat === ctx.you ? "you" : `player_${seat}`;
}

function position(view, seat, ctx) {
  const n = view.num_players;
  return POSITIONS[n][(seat - ctx.bottom + n) % n];
}

function render(view, ctx) {
  $("welcome").hidden = true;
  const legalCards = new Set((ctx.legal || []).filter((a) => a.kind === "card").map((a) => a.action));
  // Seats and hands
  let html = "";
  for (const p of view.players) {
    const pos = position(view, p.seat, ctx);
    const mine = ctx.mode === "play" && p.seat === ctx.you;
    const tags = [];
    if (view.partnerships) tags.push(`side ${p.side}`);
    if (p.dealer) tags.push("dealer");
    if (ctx.mode === "play" && p.seat !== ctx.you) tags.push(ctx.labels[p.seat]);
    if (ctx.mode === "replay" && ctx.players) tags.push(esc(ctx.players[p.seat]));
    const acting = !view.done && view.current === p.seat;
    let cards = "";
    if (p.hand) {
      for (const c of p.hand) {
        let cls = mine ? (legalCards.has(c) && !busy ? "legal" : "dimmed") : "";
        if (!mine && p.known.includes(c)) cls = "known";
        cards += cardSVG(c, { cls });
      }
    } else {
      for (const c of p.known) cards += cardSVG(c, { cls: "known" });
      for (let k = p.known.length; k < p.count; k++) cards += cardSVG(null, { back: true });
    }
    html += `<div class="seat pos-${pos}${mine ? " mine" : ""}${acting ? " acting" : ""}" data-seat="${p.seat}">` +
      `<div class="label">${esc(seatName(view, p.seat, ctx))}` +
      (tags.length ? ` <span class="tags">${tags.map(esc).join(" &middot; ")}</span>` : "") +
      (acting ? ` <span class="turn">${view.decision === "declare" ? "to declare" : "to play"}</span>` : "") +
      `</div><div class="hand${mine ? " own" : ""}" ${mine ? 'id="hand"' : ""}>${cards}</div></div>`;
  }
  $("seats").innerHTML = html;
  // The trick in progress, or the last trick taken
  let trick = "", note = "";
  if (view.trick.length) {
    for (const t of view.trick) trick += `<div class="slot slot-${position(view, t.seat, ctx)}">${cardSVG(t.card)}</div>`;
  } else if (view.tricks.length && !view.done) {
    const last = view.tricks[view.tricks.length - 1];
    for (const t of last.cards) {
      const won = t.seat === last.winner ? " won" : "";
      trick += `<div class="slot slot-${position(view, t.seat, ctx)} faded${won}">${cardSVG(t.card)}</div>`;
    }
    note = `${esc(shortName(view, last.winner, ctx))} took trick ${last.number} (+${last.points})`;
  }
  $("trick").innerHTML = trick;
  $("trick-note").innerHTML = note;
  // Trump, turned card, stock
  let info = `<div class="trump">Trumps: ${suitIcon(view.trump)} <b>${esc(view.trump_name)}</b></div>`;
  if (view.turned_card) info += `<div class="turned">${esc(view.turned_label)}${cardSVG(view.turned_card)}</div>`;
  if (view.has_stock) {
    info += `<div class="stock">stock ${view.stock ? cardSVG(null, { back: true }) : ""}<span>${view.stock} left</span></div>`;
  }
  info += `<div class="count">trick ${Math.min(view.tricks_played + 1, view.num_tricks)} of ${view.num_tricks}</div>`;
  $("info").innerHTML = info;
  renderSide(view, ctx);
  // The end of the hand
  const banner = $("banner");
  if (view.done && view.result) {
    banner.hidden = false;
    let extra = "";
    if (ctx.mode === "play" && game) {
      const m = game.match;
      if (m.over) extra = `<p class="match-over">${m.winner === sideOf(view, ctx.you) ? "You win the match!" : `Side ${m.winner} wins the match.`}</p>`;
      extra += `<div class="buttons">` +
        (m.over ? "" : `<button type="button" id="next-hand">Next hand</button>`) +
        `<button type="button" id="again">New game</button>` +
        `<a class="button" href="/api/games/${encodeURIComponent(game.id)}/record" download>Download record</a></div>`;
    }
    const won = ctx.mode === "play" && view.result.winner === sideOf(view, ctx.you);
    banner.innerHTML = `<h2 id="result">${ctx.mode === "replay" ? "Hand over" : (won ? "You win the hand" : "You lose the hand")}</h2>` +
      `<p>${esc(view.result.text)}</p>${extra}`;
    banner.className = ctx.mode === "play" ? (won ? "win" : "lose") : "";
    if ($("next-hand")) $("next-hand").onclick = nextHand;
    if ($("again")) $("again").onclick = () => $("new-form").requestSubmit();
  } else {
    banner.hidden = true;
  }
}

function sideOf(view, seat) { return view.partnerships ? seat % 2 : seat; }

function suitIcon(suit) {
  return `<svg class="icon" viewBox="0 0 20 20">${suitSign(suit, 10, 10, 8)}</svg>`;
}

function renderSide(view, ctx) {
  let s = `<table><tr><th></th><th>cards</th><th>cantes</th><th>last</th><th>total</th></tr>`;
  for (const sc of view.scores) {
    const who = view.partnerships ? `side ${sc.side} (${sc.seats.map((x) => shortName(view, x, ctx)).join("+")})` : shortName(view, sc.side, ctx);
    s += `<tr><td>${esc(who)}</td><td>${sc.cards}</td><td>${sc.cantes}</td><td>${sc.last}</td><td><b>${sc.total}</b></td></tr>`;
  }
  $("scores").innerHTML = s + "</table>";
  if (ctx.mode === "play" && game) {
    const m = game.match;
    const names = m.score.map((v, side) => `${view.partnerships ? "side " + side : shortName(view, side, ctx)} ${v}`);
    $("match-score").textContent = `Hand ${game.hand_number} · ${m.kind}: ${names.join(", ")}` + (m.on ? ` (match to ${m.target})` : "");
  } else {
    $("match-score").textContent = ctx.caption || "";
  }
  $("cantes").innerHTML = view.cantes.length ? view.cantes.map((c) => c.tute
    ? `<div>${esc(shortName(view, c.seat, ctx))}: <b>Tute!</b></div>`
    : `<div>${esc(shortName(view, c.seat, ctx))}: ${c.points} in ${suitIcon(c.suit)} ${SUIT_NAMES[c.suit]}</div>`).join("") : "none yet";
  $("cantes").className = view.cantes.length ? "" : "muted";
  const tricks = view.tricks.slice().reverse();
  $("tricks").innerHTML = tricks.length ? tricks.map((t) => `<div class="trick-row"><span class="num">${t.number}</span>` +
    t.cards.map((c) => cardSVG(c.card, { cls: c.seat === t.winner ? "mini won" : "mini" })).join("") +
    `<span>&rarr; ${esc(shortName(view, t.winner, ctx))} +${t.points}</span></div>`).join("") : "none yet";
  $("tricks").className = tricks.length ? "" : "muted";
}

function log(text, cls) {
  const li = document.createElement("li");
  li.textContent = text;
  if (cls) li.className = cls;
  $("log").prepend(li);
}

// ------------------------------------------------------------------------------------------
// Playing
// ------------------------------------------------------------------------------------------
function playCtx(view) {
  return { mode: "play", you: view.seat, bottom: view.seat, labels: view.labels, legal: view.legal };
}

async function show(view) {
  // Reveal the moves since the last view one at a time, then the view itself.
  busy = true;
  document.body.dataset.state = "busy";
  game = view;
  renderActions([]);
  for (const ev of view.events) {
    const mine = ev.seat === view.seat;
    render(ev.view, { ...playCtx(view), legal: [] });
    highlight(ev);
    log(ev.text, mine ? "you" : "");
    setStatus(ev.text);
    await sleep(mine ? 250 : STEP_MS);
  }
  busy = false;
  render(view, playCtx(view));
  renderActions(view.legal);
  setStatus(statusText(view));
  const dl = $("download");
  dl.href = view.records ? `/api/games/${encodeURIComponent(view.id)}/record` : "#";
  dl.classList.toggle("disabled", !view.records);
  dl.setAttribute("aria-disabled", String(!view.records));
  document.body.dataset.state = view.done ? "done" : (view.legal.length ? "your-turn" : "waiting");
}

function highlight(ev) {
  const seat = document.querySelector(`.seat[data-seat="${ev.seat}"] .label`);
  if (seat && ev.kind !== "card") {
    const bubble = document.createElement("span");
    bubble.className = "bubble";
    bubble.textContent = ev.action === "pass" ? "pass" : ev.action;
    seat.appendChild(bubble);
  }
}

function statusText(view) {
  if (view.done) return view.result.text;
  if (!view.legal.length) return `player_${view.current} to play`;
  const cards = view.legal.filter((a) => a.kind === "card").length;
  const held = view.players[view.seat].hand.length;
  const what = { lead: "lead a card", follow: "play a card", declare: "declare or pass" }[view.decision] +
    (cards && cards < held ? " (the dimmed ones are not allowed now)" : "");
  return `Your turn: ${what}.`;
}

function setStatus(text) { $("status").textContent = text; }
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function renderActions(legal) {
  const box = $("actions");
  box.innerHTML = "";
  for (const a of legal.filter((x) => x.kind !== "card")) {
    const b = document.createElement("button");
    b.type = "button";
    b.dataset.action = a.action;
    b.className = `act act-${a.kind}`;
    const words = a.label.includes(": ") ? a.label.split(": ")[1] : a.label;
    b.textContent = words.charAt(0).toUpperCase() + words.slice(1);
    b.onclick = () => act(a.action);
    box.appendChild(b);
  }
}

async function act(action) {
  if (busy || !game) return;
  busy = true;
  document.body.dataset.state = "busy";
  showError("");
  try {
    await show(await api("POST", `/api/games/${encodeURIComponent(game.id)}/act`, { action }));
  } catch (e) {
    busy = false;
    showError(e.message);
    render(game, playCtx(game));
    renderActions(game.legal);
  }
}

async function newGame(ev) {
  ev.preventDefault();
  if (busy) return;
  closeReplay();
  showError("");
  $("log").innerHTML = "";
  const body = { preset: $("preset").value, level: $("level").value, seat: Number($("seat").value), match: $("match").checked };
  setStatus("Dealing...");
  try {
    busy = true;
    const view = await api("POST", "/api/new", body);
    log(`New ${view.preset} game against ${view.bot} bots; you are player_${view.seat}.`, "sys");
    await show(view);
  } catch (e) {
    busy = false;
    showError(e.message);
    setStatus("");
  }
}

async function nextHand() {
  if (busy || !game) return;
  busy = true;
  try {
    const view = await api("POST", `/api/games/${encodeURIComponent(game.id)}/next`, {});
    log(`Hand ${view.hand_number}.`, "sys");
    await show(view);
  } catch (e) {
    busy = false;
    showError(e.message);
  }
}

// ------------------------------------------------------------------------------------------
// Replays
// ------------------------------------------------------------------------------------------
function openReplay(data) {
  replay = { hands: data.hands, hand: 0, step: 0 };
  $("replay-hand").innerHTML = data.hands.map((h, k) =>
    `<option value="${k}">${k + 1}: ${esc(h.variant || "")} ${h.result ? "(side " + esc(h.result.winner) + " won)" : ""}</option>`).join("");
  $("replay-bar").hidden = false;
  $("actions").hidden = true;
  document.body.classList.add("replaying");
  $("log").innerHTML = "";
  log(`Replay: ${data.hands.length} hand(s). Every hand is shown.`, "sys");
  drawReplay();
}

function closeReplay() {
  if (!replay) return;
  replay = null;
  $("replay-bar").hidden = true;
  $("actions").hidden = false;
  document.body.classList.remove("replaying");
  if (game) { render(game, playCtx(game)); renderActions(game.legal); setStatus(statusText(game)); }
}

function drawReplay() {
  const h = replay.hands[replay.hand];
  const step = h.steps[replay.step];
  const ctx = { mode: "replay", bottom: 0, players: h.players, caption: `Replay of hand ${replay.hand + 1}: ${h.players.join(" vs ")}` };
  render(step.view, ctx);
  $("replay-step").textContent = `step ${replay.step} / ${h.steps.length - 1}`;
  $("replay-event").textContent = step.event ? step.event.text : "the deal";
  setStatus(step.event ? step.event.text : "The deal: every hand is shown. Step forward with the arrows.");
  $("replay-prev").disabled = $("replay-first").disabled = replay.step === 0;
  $("replay-next").disabled = $("replay-last").disabled = replay.step === h.steps.length - 1;
  $("replay-hand").value = String(replay.hand);
  $("log").innerHTML = "";
  for (const st of h.steps.slice(1, replay.step + 1)) log(st.event.text);
}

function replayGo(step) {
  if (!replay) return;
  const n = replay.hands[replay.hand].steps.length;
  replay.step = Math.max(0, Math.min(n - 1, step));
  drawReplay();
}

async function uploadReplay(file) {
  showError("");
  if (!file) return;
  try {
    const text = await file.text();
    openReplay(await api("POST", "/api/replay", text, true));
  } catch (e) {
    showError(`Cannot replay ${file.name}: ${e.message}`);
  }
}

// ------------------------------------------------------------------------------------------
// Start
// ------------------------------------------------------------------------------------------
function fillSeats() {
  const preset = options.presets.find((p) => p.name === $("preset").value);
  const old = $("seat").value;
  $("seat").innerHTML = Array.from({ length: preset.num_players }, (_, k) => `<option value="${k}">player_${k}</option>`).join("");
  if (Number(old) < preset.num_players) $("seat").value = old;
  // Levels played by a shipped network (trained, expert) only for the presets that have one.
  for (const opt of $("level").options) {
    const level = options.levels.find((l) => l.name === opt.value);
    opt.disabled = level.presets !== null && !level.presets.includes(preset.name);
  }
  if ($("level").selectedOptions[0]?.disabled) $("level").value = "medium";
}

async function start() {
  options = await api("GET", "/api/options");
  $("preset").innerHTML = options.presets.map((p) =>
    `<option value="${esc(p.name)}">${esc(p.name)} (${p.num_players} players)</option>`).join("");
  $("level").innerHTML = options.levels.map((l) =>
    `<option value="${esc(l.name)}">${esc(l.name)} (${esc(l.bot)})</option>`).join("");
  $("preset").value = options.defaults.preset;
  $("level").value = options.defaults.level;
  fillSeats();
  $("seat").value = String(options.defaults.seat);
  $("preset").onchange = fillSeats;
  $("new-form").onsubmit = newGame;
  $("replay-file").onchange = (e) => { uploadReplay(e.target.files[0]); e.target.value = ""; };
  $("replay-prev").onclick = () => replayGo(replay.step - 1);
  $("replay-next").onclick = () => replayGo(replay.step + 1);
  $("replay-first").onclick = () => replayGo(0);
  $("replay-last").onclick = () => replayGo(Infinity);
  $("replay-hand").onchange = (e) => { replay.hand = Number(e.target.value); replay.step = 0; drawReplay(); };
  $("replay-close").onclick = closeReplay;
  $("download").onclick = (e) => { if ($("download").classList.contains("disabled")) e.preventDefault(); };
  $("seats").addEventListener("click", (e) => {
    const card = e.target.closest("#hand .card.legal");
    if (card && !replay) act(card.dataset.card);
  });
  document.addEventListener("keydown", (e) => {
    if (!replay || e.target.tagName === "SELECT") return;
    if (e.key === "ArrowRight") replayGo(replay.step + 1);
    if (e.key === "ArrowLeft") replayGo(replay.step - 1);
    if (e.key === "Home") replayGo(0);
    if (e.key === "End") replayGo(Infinity);
  });
  if (options.preloaded) {
    const b = $("open-preloaded");
    b.hidden = false;
    b.onclick = async () => {
      try { openReplay(await api("GET", "/api/preloaded")); } catch (e) { showError(e.message); }
    };
  }
  document.body.dataset.state = "ready";
}

start().catch((e) => showError(`Cannot reach the server: ${e.message}`));
