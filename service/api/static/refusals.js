// Refused attempts in a match: the record's illegal moves that changed nothing (the clock ran on;
// record.js finds them), each listed in the history where it was made, with who tried what and why,
// and said as a notice on every view that follows the match when one comes (issue 35: the umpire's
// page showed none of them).

import { el } from './dom.js';
import * as store from './store.js';
import { sayRefused } from './verdicts.js';

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
