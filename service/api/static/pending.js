// A seat's "confirm before sending" setting (issue 35: a misclick could not be undone): a move that a
// click on the board completes is held instead of sent - the board shows it played, and Send (or
// Undo) sits right by the board (under it on a phone, beside it on a wide screen: layout.js).  Kept in this browser per seat of a match (localStorage); on by default
// on a phone, which the page takes to be a touch screen (pointer: coarse) or a narrow one (the page's
// one-column width, 40rem), where a fingertip misses most.  A move typed, or played with a Play button,
// is sent as it always was: that button is the confirmation.

import { api, errorText } from './api.js';
import { $ } from './dom.js';
import { play } from './moves.js';
import * as store from './store.js';
import { say } from './verdicts.js';
import { show } from './view.js';

const PHONE = '(pointer: coarse), (max-width: 40rem)';
const settingKey = (m) => `umpire-desk.confirm.${m.id}.${m.seat}`;

// Does this page's seat confirm its moves?  Its choice kept in this browser, else the phone's default.
export function confirming() {
  const m = store.following();
  if (!m || m.seat === null) return false;
  let kept = null;
  try { kept = localStorage.getItem(settingKey(m)); } catch (err) { /* storage off: the default */ }
  return kept === null ? window.matchMedia(PHONE).matches : kept === '1';
}

function choose(on) {
  const m = store.following();
  if (!m || m.seat === null) return;
  try { localStorage.setItem(settingKey(m), on ? '1' : '0'); } catch (err) { /* storage off: for this page only */ }
  say('info', on ? 'A move a click completes now waits for Send.' : 'A move a click completes is sent at once.');
}

// The move held, on the position shown (`key`: store.shownKey()), or null.
let held = null;
const heldMove = () => (held && held.key === store.shownKey() && store.mayMove() ? held.move : null);

// A move a click completed, held: the board shows the position it leaves (the stateless play's state).
export async function hold(move) {
  const line = store.lineId();
  const r = await api('POST', `/v1/games/${store.game()}/play`, { state: store.position().state, move });
  if (line !== store.lineId()) return;
  if (!r.ok) return say('bad', errorText(r));
  if (!r.data.legal) return play(move); // the server's refusal, as for any move sent
  held = { move: r.data.move, key: store.shownKey() };
  store.setPreview(r.data.state);
  await show();
  say('info', `${r.data.move} is not sent yet: Send it, or Undo.`);
}

async function send() {
  const move = heldMove();
  if (!move) return;
  held = null;
  await play(move);
}

async function undo() {
  held = null;
  store.clearMove();
  $('u-move').value = '';
  await show();
  say('info', 'Undone: nothing was sent.');
}

// The held move's Send and Undo by the board, and the seat's setting beside its clocks.
export function showPending() {
  const move = heldMove();
  $('u-pending').hidden = !move;
  if (move) {
    $('u-preview').hidden = true; // the held move says it itself
    $('u-pending-text').textContent = `Not sent yet: ${move}.`;
    $('u-send').textContent = `Send ${move}`;
  }
  const m = store.following();
  const over = !!m && !!m.data && m.data.state.status === 'finished';
  $('u-confirm-box').hidden = !m || m.seat === null || !!m.lost || over; // nothing more to send
  $('u-confirm').checked = confirming();
}

export function wirePending() {
  $('u-send').addEventListener('click', send);
  $('u-undo').addEventListener('click', undo);
  $('u-confirm').addEventListener('change', () => choose($('u-confirm').checked));
}
