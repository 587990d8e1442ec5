// The links of the matches this browser created (create.js makes them): each seat's link, the umpire's
// view, kept in this browser with the match's umpire token (never in a link) until the umpire dismisses
// them; a seat's new link; the co-umpire links made (coumpire.js); and the link of a seat, or a
// co-umpire link, opened in this browser.

import { api, bearer, errorText } from './api.js';
import { $, copyText, el, sayBy } from './dom.js';
import { matchPath } from './match.js';
import * as store from './store.js';
import { say } from './verdicts.js';

// The seat links of the matches this browser created, kept (localStorage: this origin only, never in a
// URL a server logs) until the umpire dismisses them, so that leaving for a match, or closing the tab,
// loses none (issue 22).  The newest first.
const KEPT = 'umpire-desk.matches';
function keptMatches() {
  try {
    const kept = JSON.parse(localStorage.getItem(KEPT) || '[]');
    return Array.isArray(kept) ? kept.filter((k) => k && typeof k.id === 'string' && Array.isArray(k.seats)) : [];
  } catch (err) {
    return [];
  }
}
function keepMatches(kept) {
  try { localStorage.setItem(KEPT, JSON.stringify(kept)); } catch (err) { /* storage off: the links show until the page is left */ }
  showKept(kept);
}

// A seat's page keeps its own link in this browser (issue 35: Back, or a tap on "Start a new game", lost it
// while the clock ran); a browser that created the match keeps every link already.  The seats' links
// kept so are bounded (the oldest go); the matches this browser created are kept until dismissed.
const SEATS_KEPT = 30;
export function keepSeat() {
  const m = store.following();
  if (!m || m.seat === null || m.lost) return;
  const kept = keptMatches();
  let k = kept.find((other) => other.id === m.id);
  if (k && (k.umpire || k.seats[m.seat] === m.token)) return;
  if (!k) {
    k = { id: m.id, title: store.gameInfo(store.game()).title, names: store.names(), seats: [null, null], umpire: null, created: new Date().toLocaleString() };
    kept.unshift(k);
  }
  k.seats[m.seat] = m.token;
  const seatsOnly = kept.filter((other) => !other.umpire);
  keepMatches(kept.filter((other) => other.umpire || seatsOnly.indexOf(other) < SEATS_KEPT));
}

// A seat's link that no longer works (replaced, or never the match's) is not kept: it would only mislead.
export function forgetSeat() {
  const m = store.following();
  const kept = keptMatches();
  const k = kept.find((other) => other.id === m.id);
  if (!k || k.umpire || k.seats[m.seat] !== m.token) return;
  k.seats[m.seat] = null;
  keepMatches(kept.filter((other) => other.umpire || other.seats.some((token) => typeof token === 'string')));
}

// The links kept, each match's with Copy, New link (a seat's) and Dismiss.
export function showKept(kept = keptMatches()) {
  const box = $('u-kept');
  box.replaceChildren();
  $('u-links').hidden = !kept.length;
  $('u-links-umpire').hidden = !kept.some((k) => k.umpire);
  $('u-links-seat').hidden = kept.every((k) => k.umpire);
  const base = `${location.origin}${location.pathname}#match=`;
  for (const k of kept) {
    const at = `${base}${encodeURIComponent(k.id)}`;
    const links = [
      ...k.seats.map((token, seat) => (typeof token !== 'string' ? null // a seat opened here keeps only its own link
        : { href: `${at}&seat=${seat}&token=${encodeURIComponent(token)}`, text: `Seat ${seat} (${k.names[seat]})`, seat: String(seat) })).filter(Boolean),
      // The umpire's token stays in this browser (never in a link): the view opened here has the controls.
      { href: at, text: k.umpire ? "Umpire's view (controls here, read only elsewhere)" : "Umpire's view (read only)", seat: 'umpire' },
    ];
    const items = links.map((l) => {
      // The umpire's view opens in a tab of its own: this one keeps the desk (and the links).
      const a = l.seat === 'umpire'
        ? el('a', { href: l.href, 'data-seat': l.seat, target: '_blank', rel: 'noopener' }, l.text)
        : el('a', { href: l.href, 'data-seat': l.seat }, l.text);
      const copy = el('button', { type: 'button', class: 'u-copy', 'data-copy': l.seat, 'aria-label': `Copy the link: ${l.text}`,
        onclick: async (ev) => {
          const button = ev.currentTarget;
          if (await copyText(l.href)) return sayBy(button, 'Copied');
          sayBy(button, 'Not copied: copy the link itself (right-click it, or press and hold)');
          say('info', `Copy the link of ${l.text} by hand: ${l.href}`);
        } }, 'Copy');
      // A seat whose link was lost or leaked gets a new one (the match's umpire token): the old one stops at once.
      const renew = l.seat !== 'umpire' && k.umpire
        ? el('button', { type: 'button', class: 'u-copy', 'data-reissue': l.seat, 'aria-label': `A new link for ${l.text}`,
          onclick: () => reissue(k.id, Number(l.seat)) }, 'New link')
        : null;
      return el('li', {}, a, ' ', copy, renew ? ' ' : null, renew);
    });
    const dismiss = el('button', { type: 'button', class: 'u-dismiss', onclick: () => {
      if (!window.confirm('Forget these links? A seat whose link is lost can no longer move.')) return;
      keepMatches(keptMatches().filter((other) => other.id !== k.id));
    } }, 'Dismiss');
    box.append(el('div', { class: 'u-kept', 'data-match': k.id },
      el('p', {}, el('strong', {}, `${k.title}: ${k.names[0]} – ${k.names[1]}`), ` · ${k.created}`, el('span', { class: 'u-kept-state' })),
      el('ul', {}, ...items), dismiss));
  }
  kept.slice(0, STATES_READ).forEach(readState);
}

// Whether a kept match is over, read from the server (GET, anyone may): said beside its names.
const STATES_READ = 20; // the newest; the older ones are not asked about each time the desk is shown
async function readState(k) {
  const r = await api('GET', matchPath(k.id));
  if (r.ok || r.status === 404) noteKeptState(k.id, r.ok ? r.data : null); // not read (the network): nothing said
}

// The kept match `id` as the server has it (`data`: GET's answer; null: gone from the server), said beside
// its names; also as the match followed changes.
export function noteKeptState(id, data) {
  const box = [...$('u-kept').children].find((node) => node.dataset.match === id);
  const k = keptMatches().find((other) => other.id === id);
  if (!box || !k) return;
  const s = data ? data.state : null;
  let said = 'no longer on the server';
  if (s && s.status === 'finished') {
    said = s.winner === null ? (s.end === 'aborted' ? 'over: aborted, no result' : 'over: a draw') : `over: ${k.names[s.winner]} wins`;
  } else if (s) said = `in play, ply ${data.ply}`;
  box.classList.toggle('u-over', !s || s.status === 'finished');
  box.querySelector('.u-kept-state').textContent = ` · ${said}`;
}

// A match this browser created: its links kept, the newest first.
export function keepCreated(entry) {
  keepMatches([entry, ...keptMatches().filter((k) => k.id !== entry.id)]);
}

async function reissue(id, seat) {
  const kept = keptMatches();
  const k = kept.find((other) => other.id === id);
  if (!k || !window.confirm(`A new link for seat ${seat} (${k.names[seat]})? The old link stops working at once.`)) return;
  const r = await api('POST', `${matchPath(id)}/seats/${seat}/token`, undefined, bearer(k.umpire));
  if (!r.ok) return say('bad', `No new link: ${errorText(r)}`);
  k.seats[seat] = r.data.token;
  keepMatches(kept);
  say('info', `Seat ${seat} (${k.names[seat]}) has a new link; the old one no longer works. Copy it and send it on.`);
}

// The kept entry of the match shown, on the umpire's view (no seat's token in the address), with an umpire's
// token: a seat's page never shows the controls.
function umpireKept() {
  const m = store.following();
  if (!m || m.seat !== null) return null;
  const k = keptMatches().find((other) => other.id === m.id);
  return k && typeof k.umpire === 'string' ? k : null;
}

// The umpire's token of the match shown: kept in this browser beside its seat links (never in a URL but a
// co-umpire link, which the page takes out of the address at once), used only on the umpire's view.
export function umpireToken() {
  const k = umpireKept();
  return k ? k.umpire : null;
}

// Is the token the match's own umpire's (this browser created the match), which alone makes co-umpire links?
export const ownUmpire = () => { const k = umpireKept(); return !!k && !k.co; };

// A co-umpire link opened here (`#match=ID&umpire=TOKEN`): its token kept as the umpire's token of the
// match (`co`: a co-umpire's, which makes no links), unless this browser holds the match's own.
export function keepCoUmpire(id, token, title, names) {
  const kept = keptMatches();
  const k = kept.find((other) => other.id === id);
  if (k && k.umpire && !k.co) return;
  const entry = { id, title, names, seats: k ? k.seats : [null, null], umpire: token, co: true, created: new Date().toLocaleString() };
  keepMatches([entry, ...kept.filter((other) => other.id !== id)]);
}

// The umpire's token `token` of the match shown, which the server no longer knows (401: a co-umpire link
// withdrawn or replaced), forgotten here: kept, it showed every control, even after a reload, and each
// press was refused.  What the entry still holds (a seat's link opened here) stays.  Whether it was a
// co-umpire's link.
export function forgetUmpire(token) {
  const kept = keptMatches();
  const k = kept.find((other) => other.id === store.following().id);
  if (!k || k.umpire !== token) return false;
  const co = !!k.co;
  k.umpire = null;
  delete k.co;
  delete k.coLinks;
  keepMatches(kept.filter((other) => other.umpire || other.seats.some((seat) => typeof seat === 'string')));
  return co;
}

// The co-umpire links this browser made for the match shown: [{link, token}], each kept until withdrawn.
export const coLinks = () => { const k = umpireKept(); return (k && Array.isArray(k.coLinks)) ? k.coLinks : []; };
export function setCoLinks(list) {
  const kept = keptMatches();
  const k = kept.find((other) => other.id === store.following().id);
  if (!k) return;
  k.coLinks = list;
  keepMatches(kept);
}
