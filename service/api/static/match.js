// Following a managed match: the address ends in #match=ID (the umpire's view), with &seat=N&token=T
// for a player.  The server holds the positions; the page reads the match and its record, shows them
// on the board, and plays and resigns for its seat.  The changes that come later are live.js's.

import { api, bearer, errorText } from './api.js';
import { tick } from './clocks.js';
import { showDeliveries } from './deliveries.js';
import { $ } from './dom.js';
import { placeParts } from './layout.js';
import { mayLeave } from './leave.js';
import { keepCoUmpire, keepSeat, noteKeptState } from './links.js';
import { labelOf } from './history.js';
import { changed, listen } from './live.js';
import { markWrong } from './moves.js';
import { asidesOf, plyAfter, readRecord, recordStep, undoes } from './record.js';
import { sayNewAttempts } from './refusals.js';
import { checkSeat, sayLost, seatOpens, seatRefused } from './seat.js';
import { newGame, syncForm } from './setup.js';
import * as store from './store.js';
import { showUmpire } from './umpire.js';
import { say, sayIllegal, sayLegal } from './verdicts.js';
import { show } from './view.js';

export const matchPath = (id) => `/v1/matches/${encodeURIComponent(id)}`;

// The move this page sent last, and the ply it was sent at: its refusal is said once, by its own answer.
let sent = null;

function readHash() {
  const p = new URLSearchParams(location.hash.slice(1));
  const id = p.get('match');
  if (!id) return null;
  const seat = p.get('seat');
  return { id, seat: seat === '0' || seat === '1' ? Number(seat) : null, token: p.get('token'), umpire: p.get('umpire') };
}

// The address of the match followed, as it was entered (a seat's link, or the umpire's view).
let address = null;

// The match the address names, if any, followed (at the start, and when the address changes: a link
// followed, Back).  A seat's page whose match runs asks first; kept, its address is put back.
export async function onHash() {
  const want = readHash();
  const m = store.following();
  // An address of this page that names no match and is not the desk's own (an in-page anchor: #u-board) is
  // no way out of the match: its address is put back (only a match's link, or the desk's address, leaves).
  if (m && !want && location.hash.length > 1) {
    history.replaceState(null, '', address);
    return false;
  }
  if (want && m && want.id === m.id && want.seat === m.seat && want.token === m.token) return false;
  if (m && !mayLeave()) {
    history.pushState(null, '', address);
    return false;
  }
  leaveMatch(false);
  if (want) await enterMatch(want);
  return !!want;
}

async function enterMatch(want) {
  const gen = store.followMatch(want);
  address = location.href;
  $('u-match-bar').hidden = false;
  $('u-leave').hidden = false;
  $('u-match-form').hidden = true;
  $('u-setup-card').hidden = true; // a match's page shows the match: no set-up, no paste forms
  placeParts();
  const r = await api('GET', matchPath(want.id));
  if (!store.stillFollowing(gen)) return;
  if (!r.ok) {
    say('bad', `The match cannot be read: ${errorText(r)}`);
    leaveMatch(false);
    return;
  }
  if (want.umpire) takeCoUmpireLink(want.id, want.umpire, r.data);
  if (want.token) await seatOpens(store.following()); // a link the umpire replaced is told at once
  if (!store.stillFollowing(gen)) return;
  await takeMatch(r.data, true);
  listen(gen);
}

// A co-umpire link opened (coumpire.js): its token kept in this browser as the match's umpire token, and
// out of the address at once (Back, the history and a copied address show the umpire's view's plain link).
function takeCoUmpireLink(id, token, data) {
  const game = store.gameInfo(data.game);
  const names = [0, 1].map((seat) => (data.players && data.players[seat]) || game.hints.players[seat]);
  keepCoUmpire(id, token, game.title, names);
  history.replaceState(null, '', `${location.pathname}#match=${encodeURIComponent(id)}`);
  address = location.href;
}

// The match left (`resetHash`: for the desk's address, a new entry of the browser's history, so that Back
// brings the match's page again); the board gets a game of its own again if it has none.
export function leaveMatch(resetHash) {
  if (!store.leaveMatch()) return;
  $('u-match-bar').hidden = true;
  $('u-umpire').hidden = true;
  $('u-resign').hidden = true;
  $('u-leave').hidden = true;
  $('u-match-form').hidden = false;
  $('u-setup-card').hidden = false;
  $('u-deliveries').hidden = true;
  placeParts();
  if (resetHash) history.pushState(null, '', location.pathname);
  const last = store.latest();
  if (!last || !last.state) newGame(store.game(), store.options());
}

// The match left for a line of the page's own (a new game, a paste, Leave): false when the seat stays.
export function leaveAsked() {
  if (!mayLeave()) return false;
  leaveMatch(true);
  return true;
}

// The match as the server answered it (GET, a move's answer, an event), with its record (GET moves):
// the positions on the board, the latest shown if it was (or `first`: on entering).
export async function takeMatch(data, first) {
  const m = store.following();
  const gen = m.gen;
  const rec = await readRecord(matchPath(m.id));
  if (!store.stillFollowing(gen) || !rec) return;
  const entries = rec.moves;
  const wasLatest = first || store.atLatest();
  const refusedBefore = first ? Infinity : store.attempts().length; // on entering, the attempts so far are listed, not said
  const known = store.positions();
  // The positions, each with the ply the record gives it: the start, then one a move or an end, and
  // one fewer for each take-back.
  const history = [{ state: null, move: null, events: [], ply: entries.length ? entries[0].ply : data.state.ply }];
  for (const e of entries) {
    const move = recordStep(e);
    if (undoes(e) && history.length > 1) {
      history.pop();
      history[history.length - 1] = { ...history[history.length - 1], reopened: true }; // no second take-back from here
    }
    if (move === null) continue;
    const i = history.length;
    const old = known[i];
    const said = old && old.move === move && old.ply === plyAfter(e) ? old.announcements : null;
    history.push({ state: null, move, entry: e, ply: plyAfter(e), events: e.events, announcements: said });
  }
  history[history.length - 1] = { ...history[history.length - 1], state: data.state, ply: data.state.ply };
  const before = known[known.length - 1];
  const grew = history.length !== known.length || !before || before.move !== history[history.length - 1].move; // or a move taken back and another made
  store.takeMatch(data, rec, history, wasLatest, asidesOf(entries));
  checkSeat(entries, first);
  if (first) keepSeat(); // the seat's link, kept in this browser: left by mistake, it is offered again
  $('u-resign').hidden = m.seat === null || data.state.status === 'finished' || !!store.seatLost();
  syncForm();
  if (grew || first) {
    store.clearMove();
    $('u-move').value = '';
  }
  await show();
  tick();
  showUmpire();
  showDeliveries(); // the umpire's view: how the posts to the channel go (not awaited: it is no part of the change)
  noteKeptState(m.id, data); // the kept links say how it stands
  let last = store.latest();
  if (first && store.seatLost()) sayLost(); // a link that no longer opens the seat: that, before all
  else if (store.at() > 0 && store.atLatest() && (grew || first)) {
    if (!last.announcements) last = store.noteAnnouncements(last, await matchAnnouncements(store.plyQuery(store.at())));
    if (store.stillFollowing(gen)) sayLegal(last, labelOf(store.at()));
  } else if (!first && !store.seatLost()) {
    sayNewAttempts(refusedBefore, sent);
  } else if (first && data.clock.started === false) {
    say('info', data.clock.start === 'first_move' ? 'The clocks start with the first move: no time runs yet.' : 'The clocks wait for the start: no time runs yet.');
  } else if (first && data.clock.paused) say('info', 'The clocks are paused: no moves until they resume.');
  else if (first) say('info', `The clocks run: ${store.names()[data.state.to_move]} has the first move.`); // started: at once, or by the umpire
}

// The announcements of a match's position: the list at the top of its forum post.
export async function matchAnnouncements(query) {
  const m = store.following();
  if (!m) return [];
  const r = await api('GET', `${matchPath(m.id)}/post?${query}`);
  if (!r.ok) return [];
  const out = [];
  for (const line of r.data.split('\n').slice(2)) {
    if (!line.startsWith('- ')) break;
    out.push(line.slice(2).replace(/\\(.)/g, '$1'));
  }
  return out;
}

// The seat's move (POST moves with its token): an illegal one is marked and said, a refusal said and
// the match read again; the match as the move left it is shown.
export async function playInMatch(text) {
  const m = store.following();
  sent = { move: text, ply: m.data.ply };
  const r = await api('POST', `${matchPath(m.id)}/moves`, { move: text, ply: m.data.ply }, bearer(m.token));
  if (r.status === 422 && r.data.legal === false) {
    markWrong(text, r.data.error);
    return sayIllegal(r.data.error, `${text} is illegal`);
  }
  if (r.status === 401) return tokenRefused(r);
  if (!r.ok) {
    // The move being built goes with the refusal: kept, the next click on its cell (once the clocks run)
    // would take its step back instead of playing.
    store.clearMove();
    $('u-move').value = '';
    say('bad', `${errorText(r)} ${text} is not played: make it again when you may.`);
    const again = await api('GET', matchPath(m.id));
    if (again.ok) await changed(again.data);
    return;
  }
  store.clearMove();
  $('u-move').value = '';
  const { legal, move, events, error, ...data } = r.data; // the verdict's match fields
  await changed(data);
}

// The server does not know this page's seat token (401): replaced by the umpire, or never the match's.
async function tokenRefused(r) {
  seatRefused(r);
  await show();
}

async function resign() {
  const m = store.following();
  if (!m || !window.confirm('Resign this match?')) return;
  const r = await api('POST', `${matchPath(m.id)}/resign`, undefined, bearer(m.token));
  if (r.status === 401) return tokenRefused(r);
  if (!r.ok) return say('bad', errorText(r));
  const { events, ...data } = r.data;
  await changed(data);
}

export function wireMatch() {
  $('u-resign').addEventListener('click', resign);
  $('u-leave').addEventListener('click', leaveAsked);
  window.addEventListener('hashchange', onHash);
}
