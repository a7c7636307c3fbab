// The web table's page: talks to the JSON API, draws the table, reveals the bots' moves one at
// a time. The page never decides what is legal: the server sends the legal moves (the core's).
"use strict";

const STEP_MS = 650;          // pause between revealed moves
const $ = (id) => document.getElementById(id);
const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));

let options = null;
let lang = "en";              // the page's language (remembered in localStorage)
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
  if (!res.ok) throw new Error(refusal(data) || `${res.status} ${res.statusText}`);
  return data;
}

// A refusal's text in the page's language: the server's page word for it (err_<key>), else its message.
function refusal(data) {
  if (!data) return null;
  const words = (options && options.words) || { en: {} };
  return data.key && words.en && words.en[`err_${data.key}`] ? T(`err_${data.key}`, data.params) : data.error;
}

// The page's words, from the server's table (tute_play/words.py), English as the fallback.
function T(key, fields) {
  const words = (options && options.words) || { en: {} };
  let text = (words[lang] && words[lang][key]) ?? (words.en && words.en[key]) ?? key;
  for (const [k, v] of Object.entries(fields || {})) text = text.split(`{${k}}`).join(String(v));
  return text;
}

// A preset's or a level's name in the page's language (the name itself when the table has none).
function named(prefix, name) {
  const key = prefix + name;
  const text = T(key);
  return text === key ? name : text;
}

function applyWords() {
  document.documentElement.lang = lang;
  for (const el of document.querySelectorAll("[data-t]")) el.textContent = T(el.dataset.t);
}

function setLang(value) {
  lang = value === "es" ? "es" : "en";
  try { localStorage.setItem("tute-lang", lang); } catch (e) { /* private mode: not remembered */ }
  $("lang").value = lang;
  applyWords();
  if (options) fillOptions();
  if (replay) drawReplay();
  else if (game && !busy) { render(game, playCtx(game)); renderActions(game.legal); setStatus(game.prompt); }
}

// An error: in a line under the header, always on screen; a click on it dismisses it.
function showError(msg) {
  const box = $("error");
  box.textContent = msg;
  box.hidden = !msg;
}

// The menu (the new-game form, the record, the replay, the language): on small or short screens a
// panel under the header, open until a game or a replay starts, then behind the Menu button.
function setMenu(open) {
  document.body.classList.toggle("menu-open", open);
  $("menu-toggle").setAttribute("aria-expanded", String(open));
}

// ------------------------------------------------------------------------------------------
// Drawing the table
// ------------------------------------------------------------------------------------------
const POSITIONS = { 2: ["bottom", "top"], 3: ["bottom", "right", "left"], 4: ["bottom", "right", "top", "left"] };

function playerName(seat) { return T("player", { seat }); }

function seatName(view, seat, ctx) {
  if (ctx.mode === "replay") return playerName(seat);
  if (seat === ctx.you) return T("you");
  if (view.partnerships && seat === (ctx.you + 2) % 4) return T("partner", { name: playerName(seat) });
  return playerName(seat);
}

function shortName(view, seat, ctx) {
  return ctx.mode !== "replay" && seat === ctx.you ? T("you_short") : playerName(seat);
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
    if (view.partnerships) tags.push(T("side", { side: p.side }));
    if (p.dealer) tags.push(T("dealer"));
    // the bot's or the record's player's name, left out on narrow screens (the menu says it)
    const player = ctx.mode === "play" ? (p.seat !== ctx.you ? ctx.labels[p.seat] : null) : ctx.players && ctx.players[p.seat];
    const acting = !view.done && view.current === p.seat;
    // an opponent's hidden hand: its cards known to everyone (exchanged, sung) face up in a row
    // of their own, beside the backs and never under them
    let cards = "", known = "";
    if (p.hand) {
      for (const c of p.hand) {
        let cls = mine ? (legalCards.has(c) && !busy ? "legal" : "dimmed") : "";
        if (!mine && p.known.includes(c)) cls = "known";
        cards += cardSVG(c, { cls });
      }
    } else {
      for (const c of p.known) known += cardSVG(c, { cls: "known" });
      for (let k = p.known.length; k < p.count; k++) cards += cardSVG(null, { back: true });
    }
    const sep = `<span class="sep"> &middot; </span>`;
    html += `<div class="seat pos-${pos}${mine ? " mine" : ""}${acting ? " acting" : ""}" data-seat="${p.seat}">` +
      `<div class="label"><span class="name">${esc(seatName(view, p.seat, ctx))}</span>` +
      (tags.length || player ? `${sep}<span class="tags">${tags.map(esc).join(" &middot; ")}` +
        (player ? `<span class="player">${tags.length ? " &middot; " : ""}${esc(player)}</span>` : "") + `</span>` : "") +
      (acting ? `${sep}<span class="turn">${esc(T(view.decision === "declare" ? "to_declare" : "to_play"))}</span>` : "") +
      `</div><div class="cards">` +
      (cards ? `<div class="hand ${mine ? "own" : p.hand ? "open" : "backs"}"${mine ? ' id="hand"' : ""}>${cards}</div>` : "") +
      (known ? `<div class="known-cards">${known}</div>` : "") + `</div></div>`;
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
    note = esc(T("took_trick", { who: shortName(view, last.winner, ctx), n: last.number, points: last.points }));
  }
  $("trick").innerHTML = trick;
  $("trick-note").innerHTML = note;
  // Trump, turned card, stock
  let info = "";
  if (view.turned_card) info += `<div class="turned">${cardSVG(view.turned_card)}<span>${esc(T(view.partnerships ? "shown_card" : "turned_card"))}</span></div>`;
  info += `<div class="lines"><div class="trump">${esc(T("trumps"))} ${suitIcon(view.trump)} <b>${esc(view.trump_name)}</b></div>`;
  if (view.has_stock) {
    info += view.stock || view.turned_card
      ? `<div class="stock">${esc(T("stock"))}: ${esc(T("left", { n: view.stock }))}</div>`
      : `<div class="stock">${esc(T("arrastre"))}</div>`;
  }
  info += `<div class="count">${esc(T("trick_of", { n: Math.min(view.tricks_played + 1, view.num_tricks), m: view.num_tricks }))}</div>`;
  const totals = view.scores.map((sc) => `${esc(view.partnerships ? T("side", { side: sc.side }) : shortName(view, sc.side, ctx))} <b>${sc.total}</b>`);
  info += `<div class="score-line" id="score-line">${esc(T("score"))}: ${totals.join(" &middot; ")}</div></div>`;
  $("info").innerHTML = info;
  renderSide(view, ctx);
  // The end of the hand
  const banner = $("banner");
  if (view.done && view.result) {
    banner.hidden = false;
    let extra = "";
    if (ctx.mode === "play" && game) {
      const m = game.match;
      if (m.over) extra = `<p class="match-over" id="match-over">${esc(m.text)}</p>` + recap(m);
      extra += `<div class="buttons">` +
        (m.over ? "" : `<button type="button" id="next-hand">${esc(T("next_hand"))}</button>`) +
        `<button type="button" id="review">${esc(T("review"))}</button>` +
        `<button type="button" id="again">${esc(T("new_game"))}</button>` +
        `<a class="button" href="/api/games/${encodeURIComponent(game.id)}/record" download>${esc(T("download"))}</a></div>`;
    }
    const won = ctx.mode === "play" && view.result.winner === sideOf(view, ctx.you);
    banner.innerHTML = `<h2 id="result">${esc(T(ctx.mode === "replay" ? "hand_over" : (won ? "win_hand" : "lose_hand")))}</h2>` +
      `<p>${esc(view.result.text)}</p>${extra}`;
    banner.className = ctx.mode === "play" ? (won ? "win" : "lose") : "";
    if ($("next-hand")) $("next-hand").onclick = nextHand;
    if ($("review")) $("review").onclick = reviewHand;
    if ($("again")) $("again").onclick = () => $("new-form").requestSubmit();
  } else {
    banner.hidden = true;
  }
}

function sideOf(view, seat) { return view.partnerships ? seat % 2 : seat; }

// The scoreboard: one row per finished hand of the game (points, winner, games and why, the match score after it).
function scoreboard(m) {
  if (!m.hands.length) return "";
  let s = `<table class="scoreboard"><tr><th>${esc(T("col_hand"))}</th><th>${esc(T("col_points"))}</th>` +
    `<th>${esc(T("col_winner"))}</th><th>${esc(T(m.kind === "points" ? "col_points" : "col_games"))}</th><th>${esc(T("col_score"))}</th></tr>`;
  for (const h of m.hands) {
    s += `<tr><td>${h.hand}</td><td>${h.points.join("–")}</td><td>${esc(h.winner_name)}</td>` +
      `<td>${esc(m.kind === "points" ? h.points[h.winner] : h.why)}</td><td><b>${h.score.join("–")}</b></td></tr>`;
  }
  return s + "</table>";
}

function recap(m) {
  return `<div class="recap"><h3>${esc(T("recap", { n: m.hands.length }))}</h3>${scoreboard(m)}</div>`;
}

function suitIcon(suit) {
  return `<svg class="icon" viewBox="0 0 20 20">${suitSign(suit, 10, 10, 8)}</svg>`;
}

function renderSide(view, ctx) {
  let s = `<table><tr><th></th><th>${esc(T("cards"))}</th><th>${esc(T("cantes"))}</th><th>${esc(T("last_trick"))}</th><th>${esc(T("total"))}</th></tr>`;
  for (const sc of view.scores) {
    const who = view.partnerships ? `${T("side", { side: sc.side })} (${sc.seats.map((x) => shortName(view, x, ctx)).join("+")})` : shortName(view, sc.side, ctx);
    s += `<tr><td>${esc(who)}</td><td>${sc.cards}</td><td>${sc.cantes}</td><td>${sc.last}</td><td><b>${sc.total}</b></td></tr>`;
  }
  $("scores").innerHTML = s + "</table>";
  if (ctx.mode === "play" && game) {
    const m = game.match;
    const names = m.score.map((v, side) => `${m.sides[side]} ${v}`);
    $("match-score").textContent = T("hand_line", { n: game.hand_number, kind: T(m.kind), score: names.join(", ") }) +
      (m.on ? T("match_to", { target: m.target }) : "");
    $("scoreboard").innerHTML = scoreboard(m);
    $("scoreboard-box").hidden = !m.hands.length;
  } else {
    $("match-score").textContent = ctx.caption || "";
    $("scoreboard-box").hidden = true;
  }
  $("cantes").innerHTML = view.cantes.length ? view.cantes.map((c) => c.tute
    ? `<div>${esc(shortName(view, c.seat, ctx))}: <b>${esc(T("tute"))}</b></div>`
    : `<div>${esc(shortName(view, c.seat, ctx))}: ${esc(T("sings", { points: lang === "es" ? (c.points === 40 ? "cuarenta" : "veinte") : c.points }))} ${suitIcon(c.suit)} ${SUIT_NAMES[c.suit]}</div>`).join("") : esc(T("none_yet"));
  $("cantes").className = view.cantes.length ? "" : "muted";
  const tricks = view.tricks.slice().reverse();
  $("tricks").innerHTML = tricks.length ? tricks.map((t) => `<div class="trick-row"><span class="num">${t.number}</span>` +
    t.cards.map((c) => cardSVG(c.card, { cls: c.seat === t.winner ? "mini won" : "mini" })).join("") +
    `<span>&rarr; ${esc(shortName(view, t.winner, ctx))} +${t.points}</span></div>`).join("") : esc(T("none_yet"));
  $("tricks").className = tricks.length ? "" : "muted";
}

function log(text, cls, move) {
  const li = document.createElement("li");
  li.textContent = text;
  if (cls) li.className = cls;
  if (move) li.append(" ", lossBadge(move));
  $("log").prepend(li);
}

// A reviewed move's badge: its loss and the best move, "best move", or "not solved"; an estimate's error.
function lossBadge(move) {
  const b = document.createElement("span");
  const loss = move.loss ?? null;
  const grade = loss === null ? "unsolved" : loss <= 1e-9 ? "best" : loss < 0.25 ? "small" : "big";
  b.className = `loss-badge loss-${grade}`;
  b.dataset.loss = loss === null ? "" : String(loss);
  b.textContent = loss === null ? T("not_solved") : grade === "best" ? T("best_move")
    : `${T("loss", { loss: loss.toFixed(3) })} · ${T("best", { best: move.best })}`;
  if (loss !== null && move.kind === "estimate") b.textContent += ` (${T("estimate", { error: move.error.toFixed(3) })})`;
  return b;
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
  setStatus(view.prompt);
  const dl = $("download");
  dl.href = view.records ? `/api/games/${encodeURIComponent(view.id)}/record` : "#";
  dl.classList.toggle("disabled", !view.records);
  dl.setAttribute("aria-disabled", String(!view.records));
  document.body.dataset.state = stateOf(view);
}

// The page's state (body[data-state]) for a view: whose move, or the hand over.
function stateOf(view) { return view.done ? "done" : (view.legal.length ? "your-turn" : "waiting"); }

function highlight(ev) {
  const seat = document.querySelector(`.seat[data-seat="${ev.seat}"] .label`);
  if (seat && ev.kind !== "card") {
    const bubble = document.createElement("span");
    bubble.className = "bubble";
    bubble.textContent = ev.name || ev.action;
    seat.appendChild(bubble);
  }
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
    document.body.dataset.state = stateOf(game);
  }
}

async function newGame(ev) {
  ev.preventDefault();
  if (busy) return;
  closeReplay();
  showError("");
  setMenu(false);
  $("log").innerHTML = "";
  const body = { preset: $("preset").value, level: $("level").value, seat: Number($("seat").value), match: $("match").checked, lang };
  setStatus(T("dealing"));
  document.body.dataset.state = "busy";
  try {
    busy = true;
    const view = await api("POST", "/api/new", body);
    log(T("new_log", { preset: named("preset_", view.preset), bot: view.bot, name: playerName(view.seat) }), "sys");
    await show(view);
  } catch (e) {
    busy = false;
    showError(e.message);
    setStatus(game ? game.prompt : "");
    document.body.dataset.state = game ? stateOf(game) : "ready";
  }
}

async function nextHand() {
  if (busy || !game) return;
  busy = true;
  try {
    const view = await api("POST", `/api/games/${encodeURIComponent(game.id)}/next`, {});
    log(T("hand_log", { n: view.hand_number }), "sys");
    await show(view);
  } catch (e) {
    busy = false;
    showError(e.message);
  }
}

// The Review view of the hand just over: its replay, each move marked with its double-dummy loss.
// Offered only once the hand is over (the server refuses a hand being played).
async function reviewHand() {
  if (busy || !game || !game.done) return;
  busy = true;
  $("review").disabled = true;
  showError("");
  setStatus(T("reviewing"));
  try {
    const data = await api("POST", `/api/games/${encodeURIComponent(game.id)}/review?lang=${lang}`, { hand: game.hand_number });
    data.replay.review = data.review;
    data.replay.number = data.hand;
    openReplay({ hands: [data.replay] });
  } catch (e) {
    showError(e.message);
    setStatus(game.prompt);
    if ($("review")) $("review").disabled = false;
  } finally {
    busy = false;
  }
}

// The Replay panel's Review button: the review of the hand shown (its record, sent back).
async function reviewReplay() {
  if (!replay) return;
  const h = replay.hands[replay.hand];
  if (h.review || !h.record) return;
  $("replay-review").disabled = true;
  showError("");
  setStatus(T("reviewing"));
  try {
    const data = await api("POST", "/api/review", JSON.stringify(h.record), true);
    h.review = data.review;
  } catch (e) {
    showError(e.message);
  }
  if (replay && replay.hands[replay.hand] === h) drawReplay();
}

// ------------------------------------------------------------------------------------------
// Replays
// ------------------------------------------------------------------------------------------
function openReplay(data) {
  replay = { hands: data.hands, hand: 0, step: 0 };
  $("replay-hand").innerHTML = data.hands.map((h, k) =>
    `<option value="${k}">${k + 1}: ${esc(named("preset_", h.variant || ""))} ${h.result ? esc(T("won_by", { side: h.result.winner })) : ""}</option>`).join("");
  $("replay-bar").hidden = false;
  setMenu(false);
  $("actions").hidden = true;
  document.body.classList.add("replaying");
  $("log").innerHTML = "";
  log(T("replay_log", { n: data.hands.length }), "sys");
  drawReplay();
}

function closeReplay() {
  if (!replay) return;
  replay = null;
  $("replay-bar").hidden = true;
  $("actions").hidden = false;
  document.body.classList.remove("replaying");
  if (game) { render(game, playCtx(game)); renderActions(game.legal); setStatus(game.prompt); }
}

function drawReplay() {
  const h = replay.hands[replay.hand];
  const step = h.steps[replay.step];
  const number = h.number || replay.hand + 1;
  const names = h.player_names || h.players;
  const players = names.join(T("versus"));
  const ctx = { mode: "replay", bottom: 0, players: names,
                caption: T(h.review ? "review_of" : "replay_of", { n: number, players }) };
  render(step.view, ctx);
  const moves = h.review ? h.review.moves : null;
  const move = moves && replay.step > 0 ? moves[replay.step - 1] : null;
  $("replay-step").textContent = T("step", { k: replay.step, n: h.steps.length - 1 });
  $("replay-event").textContent = step.event ? step.event.text : T("the_deal");
  if (move) $("replay-event").append(" ", lossBadge(move));
  setStatus(step.event ? step.event.text : T("deal_status"));
  $("replay-prev").disabled = $("replay-first").disabled = replay.step === 0;
  $("replay-next").disabled = $("replay-last").disabled = replay.step === h.steps.length - 1;
  $("replay-hand").value = String(replay.hand);
  $("replay-review").hidden = !!h.review || !h.record;
  $("replay-review").disabled = false;
  $("log").innerHTML = "";
  h.steps.slice(1, replay.step + 1).forEach((st, k) => log(st.event.text, "", moves ? moves[k] : null));
  if (h.review && replay.step === h.steps.length - 1) {
    const totals = h.review.totals.map((t, x) => `${playerName(x)} ${t.toFixed(3)}`).join(", ");
    log(T("review_totals", { weight: h.review.point_weight, totals }), "sys review-totals");
  }
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
    openReplay(await api("POST", `/api/replay?lang=${lang}`, text, true));
  } catch (e) {
    showError(T("cannot_replay", { name: file.name, msg: e.message }));
  }
}

// ------------------------------------------------------------------------------------------
// Start
// ------------------------------------------------------------------------------------------
function fillSeats() {
  const preset = options.presets.find((p) => p.name === $("preset").value);
  const old = $("seat").value;
  $("seat").innerHTML = Array.from({ length: preset.num_players }, (_, k) => `<option value="${k}">${esc(playerName(k))}</option>`).join("");
  if (Number(old) < preset.num_players) $("seat").value = old;
  // Levels played by a shipped network (trained, expert) only for the presets that have one; each
  // level's bot as the preset has it (two_player's expert: search+dds).
  for (const opt of $("level").options) {
    const level = options.levels.find((l) => l.name === opt.value);
    opt.disabled = level.presets !== null && !level.presets.includes(preset.name);
    opt.textContent = levelLabel(level, preset.name);
  }
  if ($("level").selectedOptions[0]?.disabled) $("level").value = "medium";
}

// A level's name and its bot in a preset (two_player's expert: search+dds).
function levelLabel(level, preset) {
  return `${named("level_", level.name)} (${level.bots[preset] || level.bot})`;
}

// The presets' and levels' menus, in the page's language (the choice kept).
function fillOptions() {
  const [preset, level] = [$("preset").value, $("level").value];
  $("preset").innerHTML = options.presets.map((p) =>
    `<option value="${esc(p.name)}">${esc(T("players_n", { name: named("preset_", p.name), n: p.num_players }))}</option>`).join("");
  $("level").innerHTML = options.levels.map((l) =>
    `<option value="${esc(l.name)}">${esc(levelLabel(l, preset))}</option>`).join("");
  if (preset) $("preset").value = preset;
  if (level) $("level").value = level;
}

async function start() {
  options = await api("GET", "/api/options");
  try { lang = localStorage.getItem("tute-lang") || (navigator.language || "").startsWith("es") && "es" || "en"; } catch (e) { lang = "en"; }
  setLang(lang);
  setMenu(true);
  $("menu-toggle").onclick = () => setMenu(!document.body.classList.contains("menu-open"));
  $("error").onclick = () => showError("");
  $("lang").onchange = (e) => { setLang(e.target.value); fillSeats(); };
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
  $("replay-review").onclick = reviewReplay;
  $("download").onclick = (e) => { if ($("download").classList.contains("disabled")) e.preventDefault(); };
  $("seats").addEventListener("click", (e) => {
    const card = e.target.closest("#hand .card.legal");
    if (card && !replay) act(card.dataset.card);
  });
  document.addEventListener("keydown", (e) => {
    if (e.key === "Escape" && (game || replay)) setMenu(false);
    if (!replay || e.target.tagName === "SELECT") return;
    const go = { ArrowRight: replay.step + 1, ArrowLeft: replay.step - 1, Home: 0, End: Infinity }[e.key];
    if (go === undefined) return;
    e.preventDefault();  // the keys step the replay; they do not scroll the page
    replayGo(go);
  });
  if (options.preloaded) {
    const b = $("open-preloaded");
    b.hidden = false;
    b.onclick = async () => {
      try { openReplay(await api("GET", `/api/preloaded?lang=${lang}`)); } catch (e) { showError(e.message); }
    };
  }
  document.body.dataset.state = "ready";
}

start().catch((e) => showError(T("no_server", { msg: e.message })));
