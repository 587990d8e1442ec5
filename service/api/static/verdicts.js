// Verdicts: what the page says about the last thing done, in the one box under "Play or check"
// (role=status): information, a legal move with its announcements, an illegal one with the rule it
// breaks (R-..), or a refusal of the server in its own words.

import { $, el } from './dom.js';

// `kind`: 'info', or 'bad' for a refusal.
export function say(kind, text) {
  $('u-verdict').replaceChildren(el('div', { class: `u-${kind}` }, el('p', {}, text)));
}

// A position reached by a legal move (or an end), with the announcements of the move.
export function sayLegal(h, head) {
  const items = (h.announcements || []).map((s) => el('li', {}, s));
  $('u-verdict').replaceChildren(el('div', { class: 'u-ok' }, el('p', {}, el('strong', {}, head)), items.length ? el('ul', {}, ...items) : null));
}

// An illegal move or step: the engine's sentence, and the ruling it cites.
export function sayIllegal(error, head) {
  const rule = error.rule ? el('span', { class: 'u-rule' }, ` (${error.rule})`) : null;
  $('u-verdict').replaceChildren(el('div', { class: 'u-bad' },
    el('p', {}, el('strong', {}, `${head || 'Illegal'}: `), error.message, rule)));
}

// A notice of something refused, its head in bold: `lines`, each [head, the rest].
export function sayRefused(lines) {
  $('u-verdict').replaceChildren(el('div', { class: 'u-bad' }, ...lines.map(([head, rest]) => el('p', {}, el('strong', {}, head), ` ${rest}`))));
}

export function clearVerdict() {
  $('u-verdict').replaceChildren();
}
