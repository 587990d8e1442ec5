// The umpire's controls of a match, on the umpire's view opened in the browser that created the match
// or from a co-umpire link (the token is kept there, links.js): start, pause (with a reason the players
// are shown) and resume the clocks, take back the last move, add time, adjudicate, abort; co-umpire
// links (coumpire.js).  Each is POST /v1/matches/ID/<action> with the umpire's token; the server's
// refusal is said.

import { api, bearer, errorText } from './api.js';
import { $, el } from './dom.js';
import { showCoUmpires } from './coumpire.js';
import { forgetUmpire, umpireToken } from './links.js';
import { changed } from './live.js';
import { showSeat } from './seat.js';
import { matchPath } from './match.js';
import * as store from './store.js';
import { say } from './verdicts.js';

// A select's choices ([value, label]), keeping the one chosen if it is still there.
function fillSelect(sel, choices) {
  const was = sel.value;
  sel.replaceChildren(...choices.map(([value, label]) => el('option', { value }, label)));
  if (choices.some(([value]) => value === was)) sel.value = was;
}

// How long after a move that ended the game the umpire may still take it back (API.md, POST .../takeback).
const TAKEBACK_AFTER_END_S = 600;

// The move the umpire may take back now: the latest position's, when it is a move (a flag, a resignation,
// an adjudication stand) not reached by a take-back, and when it ended the game, for a while after; else null.
// (A page following a finished match by long polls asks again while this says it may reopen: live.js.)
export function moveToTakeBack(m) {
  const last = store.latest();
  const e = last && !last.reopened ? last.entry : null; // a take-back right after a take-back undoes nothing
  if (!e || e.kind !== 'move') return null;
  if (m.data.state.status !== 'finished') return e;
  const serverNow = Date.now() - m.offset;
  return serverNow - Date.parse(e.at) < TAKEBACK_AFTER_END_S * 1000 ? e : null;
}

// The controls as the match's clocks allow them now (a refusal still comes back as the server's sentence);
// once the match is over, only the take-back of a move that ended it, for a while.
// Does the page show the umpire's controls of the match followed (an umpire's token here, and something to do)?
export function controlsOn() {
  const m = store.following();
  return !!(m && m.data && umpireToken() && (m.data.state.status !== 'finished' || moveToTakeBack(m)));
}

// While a finished match's ending move may still be taken back, the controls are looked at again every few
// seconds, so that the Take back button goes when its time is up (the server refuses it after).
const RECHECK_MS = 5000;
let recheck = null;

export function showUmpire() {
  const m = store.following();
  const on = controlsOn();
  const over = on && m.data.state.status === 'finished';
  const undo = on ? moveToTakeBack(m) : null;
  clearTimeout(recheck);
  if (over && undo) recheck = setTimeout(() => { showSeat(); showUmpire(); }, RECHECK_MS); // the seat line says whether controls are on
  $('u-umpire').hidden = !on;
  if (!on) return;
  for (const part of $('u-umpire').querySelectorAll('.u-running-only')) part.hidden = over;
  const c = m.data.clock;
  // Only the control the clocks' state allows is offered: Start before the start, then Pause or Resume.
  $('u-start-clock').hidden = c.started !== false;
  $('u-pause').hidden = $('u-pause-why').hidden = c.started === false || !!c.paused;
  $('u-resume').hidden = !c.paused;
  const who = store.names();
  $('u-takeback-row').hidden = !undo;
  if (undo) $('u-takeback').textContent = `Take back ${who[undo.seat]}'s move ${undo.move}`;
  fillSelect($('u-add-seat'), [0, 1].map((seat) => [String(seat), who[seat]]));
  fillSelect($('u-adj-winner'), [['0', `${who[0]} wins`], ['1', `${who[1]} wins`], ['draw', 'a draw']]);
  showCoUmpires();
}

// The server refused the umpire's token kept here (`token`, a 401): a co-umpire link withdrawn or replaced
// (or a match created here that the server no longer holds so).  The token is forgotten, the view turns
// read only, and the reason is said.
export function umpireRefused(token) {
  const co = forgetUmpire(token);
  showSeat();
  showUmpire();
  $('u-deliveries').hidden = true;
  say('bad', co
    ? "The co-umpire link opened here was withdrawn or replaced: it no longer opens the umpire's controls. This view is read only."
    : "The server no longer takes the umpire's token kept here: this view is read only.");
}

// The last move taken back, after a question: the same player moves again, the clocks as before it.
function takeBack() {
  const m = store.following();
  const undo = m && m.data ? moveToTakeBack(m) : null;
  if (!undo) return;
  const who = store.names()[undo.seat];
  control('takeback', { ply: m.data.ply },
    `Take back ${who}'s move ${undo.move} (ply ${m.data.ply})? ${who} moves again, with the clocks as they were before it.`,
    `${who}'s move ${undo.move} is taken back.`);
}

// One control: the match as it answers, and the umpire's sentence (`done` when it has none); asked
// first when `question` (what cannot be undone).
async function control(action, body, question, done) {
  const m = store.following();
  const token = umpireToken();
  if (!m || !token) return;
  if (question && !window.confirm(question)) return;
  const r = await api('POST', `${matchPath(m.id)}/${action}`, body, bearer(token));
  if (r.status === 401) return umpireRefused(token);
  if (!r.ok) return say('bad', errorText(r));
  const { events, announcements, legal, move, error, ...data } = r.data;
  const now = store.stillFollowing(m.gen) ? store.following() : m; // another match now: changed() ignores it
  if (data.state && data.clock) await changed({ ...now.data, ...data });
  say('info', announcements && announcements.length ? announcements.join(' ') : done);
}

export function wireUmpire() {
  $('u-start-clock').addEventListener('click', () => control('start', undefined, null, 'The clocks are started.'));
  $('u-pause').addEventListener('click', () => {
    const reason = $('u-pause-reason').value.trim();
    $('u-pause-reason').value = '';
    control('pause', reason ? { reason } : undefined, null, 'The clocks are paused.');
  });
  $('u-takeback').addEventListener('click', takeBack);
  $('u-resume').addEventListener('click', () => control('resume', undefined, null, 'The clocks run again.'));
  $('u-add-time').addEventListener('submit', (ev) => {
    ev.preventDefault();
    const seat = Number($('u-add-seat').value);
    control('add-time', { seat, seconds: Number($('u-add-s').value) }, null, `${store.names()[seat]} has more time.`);
  });
  $('u-adjudicate').addEventListener('submit', (ev) => {
    ev.preventDefault();
    const choice = $('u-adj-winner').value;
    const winner = choice === 'draw' ? null : Number(choice);
    const result = winner === null ? 'a draw' : `${store.names()[winner]} wins`;
    const reason = $('u-adj-reason').value.trim();
    control('adjudicate', { winner, reason }, `End the match now: ${result} (${reason || 'no reason given'})? This cannot be undone.`,
      `The umpire adjudicated: ${result} (${reason}).`);
  });
  $('u-abort').addEventListener('click', () => control('abort', undefined,
    'Abort the match? It ends at once with no result, and cannot be resumed.', 'The umpire aborted the match.'));
}
