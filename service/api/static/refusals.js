// Refused attempts in a match: the record's illegal moves that changed nothing (the clock ran on),
// each listed in the history where it was made, with who tried what and why, and said as a notice on
// every view that follows the match when one comes (issue 35: the umpire's page showed none of them).

import { el } from './dom.js';
import * as store from './store.js';
import { sayRefused } from './verdicts.js';

// The refused attempts of a record's entries (GET .../moves), each with `at`: how many of the entries
// before it changed the position (`moved(entry)`), so that the history lists it after that position.
export function attemptsOf(entries, moved) {
  const out = [];
  let at = 0;
  for (const e of entries) {
    if (e.kind === 'illegal' && !e.forfeit) {
      const error = e.error || {};
      out.push({ at, ply: e.ply, seat: e.seat, by: e.by, move: e.move, code: error.code || null, message: error.message || '', rule: error.rule || null });
    } else if (moved(e)) at++;
  }
  return out;
}

// Who tried it: the seat's player, or the opponent moving for a seat out of time (R-X6's window).
function who(a) {
  const names = store.names();
  const by = a.by === null || a.by === undefined ? a.seat : a.by;
  return by === a.seat ? names[a.seat] : `${names[by]} (for ${names[a.seat]})`;
}

const why = (a) => `${a.message}${a.rule ? ` (${a.rule})` : ''}`;

// The history's line of an attempt: not a position (nothing to step to), so no button.
export function attemptItem(a) {
  return el('li', { class: 'u-refused', 'data-code': a.code }, `✗ ${who(a)} tried ${a.move}: ${why(a)}`);
}

// The attempts new since `before` (how many there were), said as one notice; none of them when the page
// itself sent it and has said it already (`own`: the move and ply this page sent last).
export function sayNewAttempts(before, own) {
  const fresh = store.attempts().slice(before).filter((a) => !(own && a.seat === store.following().seat && a.move === own.move && a.ply === own.ply));
  if (!fresh.length) return;
  const names = store.names();
  const lines = fresh.map((a) => [`Refused: ${who(a)} tried ${a.move}.`, why(a)]);
  const last = fresh[fresh.length - 1];
  const state = store.latest().state;
  if (state && state.status !== 'finished' && state.to_move === last.seat) lines[lines.length - 1][1] += ` ${names[last.seat]} is still to move.`;
  sayRefused(lines);
}
