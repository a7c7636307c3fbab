// The Spanish deck, drawn as inline SVG: no image files. A card string is face then suit
// ("Ao", "3c", "Rb"): faces A 2 3 4 5 6 7 S (sota) C (caballo) R (rey), suits o c e b.
"use strict";

const SUIT_NAMES = { o: "oros", c: "copas", e: "espadas", b: "bastos" };
const SUIT_COLOURS = { o: "#b8860b", c: "#c0272d", e: "#1f4e9c", b: "#2e7d32" };
const COURT = { S: "sota", C: "caballo", R: "rey" };

// One suit sign centred on (x, y), about 2r tall.
function suitSign(suit, x, y, r) {
  const col = SUIT_COLOURS[suit];
  const t = (px, py) => `${(x + px * r).toFixed(2)},${(y + py * r).toFixed(2)}`;
  switch (suit) {
    case "o": // a gold coin
      return `<circle cx="${x}" cy="${y}" r="${r}" fill="#f2c230" stroke="${col}" stroke-width="${r * 0.16}"/>` +
        `<circle cx="${x}" cy="${y}" r="${r * 0.58}" fill="none" stroke="${col}" stroke-width="${r * 0.1}"/>` +
        `<circle cx="${x}" cy="${y}" r="${r * 0.18}" fill="${col}"/>`;
    case "c": // a cup: bowl, stem, foot
      return `<path d="M${t(-0.85, -0.9)} L${t(0.85, -0.9)} Q${t(0.85, 0.05)} ${t(0.12, 0.22)} L${t(0.12, 0.6)} ` +
        `L${t(0.55, 0.95)} L${t(-0.55, 0.95)} L${t(-0.12, 0.6)} L${t(-0.12, 0.22)} Q${t(-0.85, 0.05)} ${t(-0.85, -0.9)} Z" ` +
        `fill="${col}" stroke="#7a1016" stroke-width="${r * 0.08}"/>` +
        `<rect x="${x - 0.85 * r}" y="${y - 0.98 * r}" width="${1.7 * r}" height="${0.2 * r}" fill="#f2c230"/>`;
    case "e": // a sword: blade, guard, grip, pommel
      return `<path d="M${t(0, 1.0)} L${t(-0.16, 0.62)} L${t(-0.13, -0.45)} L${t(0.13, -0.45)} L${t(0.16, 0.62)} Z" ` +
        `fill="#9fb6d8" stroke="${col}" stroke-width="${r * 0.08}"/>` +
        `<rect x="${x - 0.55 * r}" y="${y - 0.58 * r}" width="${1.1 * r}" height="${0.16 * r}" rx="${0.06 * r}" fill="${col}"/>` +
        `<rect x="${x - 0.1 * r}" y="${y - 0.92 * r}" width="${0.2 * r}" height="${0.36 * r}" fill="${col}"/>` +
        `<circle cx="${x}" cy="${y - 0.95 * r}" r="${0.14 * r}" fill="${col}"/>`;
    default: // "b": a club, a knotted stick
      return `<path d="M${t(-0.2, 0.95)} L${t(-0.34, -0.55)} Q${t(0, -1.15)} ${t(0.34, -0.55)} L${t(0.2, 0.95)} Z" ` +
        `fill="#7cb342" stroke="${col}" stroke-width="${r * 0.1}"/>` +
        `<circle cx="${x - 0.3 * r}" cy="${y - 0.1 * r}" r="${0.1 * r}" fill="${col}"/>` +
        `<circle cx="${x + 0.28 * r}" cy="${y + 0.3 * r}" r="${0.1 * r}" fill="${col}"/>` +
        `<circle cx="${x - 0.05 * r}" cy="${y - 0.55 * r}" r="${0.09 * r}" fill="${col}"/>`;
  }
}

// A face-up card (60 x 90 units), or its back with back=true.
function cardSVG(card, opts = {}) {
  const cls = opts.cls ? ` ${opts.cls}` : "";
  const title = card ? `<title>${cardName(card)}</title>` : "";
  if (opts.back || !card) {
    return `<svg class="card back${cls}" viewBox="0 0 60 90" role="img" aria-label="a card face down">` +
      `<rect x="1" y="1" width="58" height="88" rx="6" fill="#8e1f2c" stroke="#3b0a10" stroke-width="1.2"/>` +
      `<rect x="5" y="5" width="50" height="80" rx="4" fill="none" stroke="#e0b04c" stroke-width="1.5"/>` +
      `<path d="M30 14 L46 45 L30 76 L14 45 Z" fill="none" stroke="#e0b04c" stroke-width="1.5"/>` +
      `<circle cx="30" cy="45" r="6" fill="#e0b04c"/></svg>`;
  }
  const face = card[0], suit = card[1], col = SUIT_COLOURS[suit];
  let middle;
  if (COURT[face]) {
    middle = `<rect x="12" y="16" width="36" height="58" rx="3" fill="${suit === "o" ? "#fff6d6" : "#f6f1e4"}" ` +
      `stroke="${col}" stroke-width="1.4"/>` + suitSign(suit, 30, 34, 9) +
      `<text x="30" y="63" text-anchor="middle" font-size="16" font-weight="700" fill="${col}">${face}</text>` +
      `<text x="30" y="71" text-anchor="middle" font-size="6.5" fill="#444">${COURT[face]}</text>`;
  } else {
    middle = suitSign(suit, 30, 47, 15);
  }
  return `<svg class="card${cls}" viewBox="0 0 60 90" role="img" aria-label="${cardName(card)}" data-card="${card}">` +
    title +
    `<rect x="1" y="1" width="58" height="88" rx="6" fill="#fffdf6" stroke="#555" stroke-width="1.2"/>` +
    `<text x="6" y="17" font-size="15" font-weight="700" fill="${col}">${face}</text>` +
    suitSign(suit, 11, 25, 4) +
    `<text x="54" y="85" font-size="15" font-weight="700" fill="${col}" text-anchor="end">${face}</text>` +
    middle + `</svg>`;
}

function cardName(card) {
  const face = card[0], suit = card[1];
  const word = COURT[face] || (face === "A" ? "as" : face);
  return `${word} de ${SUIT_NAMES[suit]} (${card})`;
}
