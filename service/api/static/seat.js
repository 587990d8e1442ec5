// Who looks at a match, and where they stand: the seat line above the clocks (with the reason the
// umpire gave for a pause), and a seat whose link stopped working - the umpire gave the seat a new link
// (the record's `token` entry, or the server's 401 `token_replaced` on this page's token, asked as the
// page opens the link) - which is told so in a player's words and offered no moves (issue 35: the old
// page said "Your move" and a move answered a raw 401 sentence).

import { api, bearer } from './api.js';
import { $ } from './dom.js';
import { forgetSeat } from './links.js';
import { matchPath } from './match.js';
import * as store from './store.js';
import { controlsOn } from './umpire.js';
import { say } from './verdicts.js';

// The record's length when this page entered the match of `gen`: a `token` entry after it replaced
// the link this page was opened with (one before it may have made this very link).
let entered = { gen: null, length: 0 };

// What the page says to a seat that lost its link, on the seat line and as the verdict.
function lostWords() {
  const m = store.following();
  const me = `seat ${m.seat} (${store.names()[m.seat]})`;
  if (store.seatLost() === 'replaced') {
    return [`You were ${me}: this seat's link was replaced by the umpire and no longer works.`, 'Ask the umpire for the new link.'];
  }
  return [`This link does not open ${me}: its token is not one of this match's.`, "Ask the umpire for the seat's link."];
}

// The record read (`entries`, GET .../moves): a new `token` entry for this page's seat replaced its link.
export function checkSeat(entries, first) {
  const m = store.following();
  if (!m || m.seat === null || m.lost) return;
  if (first || entered.gen !== m.gen) {
    entered = { gen: m.gen, length: entries.length };
    return;
  }
  if (entries.slice(entered.length).some((e) => e.kind === 'token' && e.seat === m.seat)) lose('replaced');
}

// The server refused this page's seat token (401, `r`: its answer): `token_replaced` when the umpire gave
// the seat a new link; else the link was never one of this match's (mistyped, cut short).
export function seatRefused(r) {
  lose(r.data && r.data.error && r.data.error.code === 'token_replaced' ? 'replaced' : 'unknown');
}

// The seat's link checked as the page opens it (GET .../seat): one the umpire replaced is told at once,
// not at the first move (issue 35).  False when it does not open the seat.
export async function seatOpens(m) {
  const r = await api('GET', `${matchPath(m.id)}/seat`, undefined, bearer(m.token));
  if (r.status !== 401 || !store.stillFollowing(m.gen)) return true;
  seatRefused(r);
  return false;
}

function lose(why) {
  store.loseSeat(why);
  forgetSeat();
  $('u-resign').hidden = true;
  say('bad', lostWords().join(' '));
}

// Said when a seat that lost its link tries a move anyway (a cell clicked).
export const sayLost = () => say('bad', lostWords().join(' '));

// Who looks at the match, and what they wait for: the seat line above the clocks.
export function showSeat() {
  const m = store.following();
  if (!m || !m.data) return;
  if (m.seat !== null && m.lost) {
    $('u-seat').textContent = lostWords().join(' ');
    return;
  }
  const who = store.names();
  const s = m.data.state;
  const seatName = m.seat === null ? null : who[m.seat];
  let line = m.seat === null ? (controlsOn() ? "Umpire's view, with the umpire's controls." : "Umpire's view: read only.") : `You are seat ${m.seat} (${seatName}).`;
  const clk = m.data.clock;
  const firstMove = clk.started === false && clk.start === 'first_move'; // the clocks start with the first move
  if (s.status === 'finished') line += ' The match is over.';
  else if (clk.started === false && !firstMove) line += ' The clocks wait for the start.';
  else if (clk.paused) line += ` The umpire has paused the clocks${clk.pause_reason ? `: ${clk.pause_reason}` : ''}.`;
  else if (m.seat !== null && clk.may_move !== m.seat) line += ` Waiting for ${who[1 - m.seat]}…`;
  else if (m.seat !== null) line += firstMove ? ' Your move: the clocks start with it.' : ' Your move.';
  else if (firstMove) line += ' The clocks start with the first move.';
  $('u-seat').textContent = line;
}
