// A match's record as the page shows it (GET /v1/matches/ID/moves, every page of it): which entries
// are positions on the board (a move, and the ends without one: a flag, a resignation, an
// adjudication...), each numbered by the ply the server's record gives it, and the entries between
// them that change no position (a refused attempt, the umpire's controls of the clocks and the links),
// listed where they happened, in words (issue 35: the history showed moves only, counted on the page).

import { api } from './api.js';
import { el } from './dom.js';
import * as store from './store.js';

// Each page of a record holds at most this many entries (API.md "Records"); a record longer than
// MOST_PAGES of them is more than any match keeps.
const PAGE = 1000;
const MOST_PAGES = 100;

// The whole record of the match at `path` (`/v1/matches/ID`): its first page's answer with every
// entry in `moves`, or null when a page cannot be read.
export async function readRecord(path) {
  const first = await api('GET', `${path}/moves`);
  if (!first.ok) return null;
  const moves = [...first.data.moves];
  let next = first.data.next;
  for (let pages = 1; next !== null && next !== undefined && pages < MOST_PAGES; pages++) {
    const r = await api('GET', `${path}/moves?start=${next}&limit=${PAGE}`);
    if (!r.ok) return null;
    moves.push(...r.data.moves);
    next = r.data.next;
  }
  return { ...first.data, moves };
}

// The entry as a position's word in `replay` (service/matches/referee.py record_moves), or null for
// an entry that changes no position: a flag that only opened R-X6's window, a refused attempt, the
// umpire's controls.  A take-back is no position: it removes the last one (`undoes`).
export function recordStep(e) {
  if (e.kind === 'move') return e.move;
  if (e.kind === 'flag') return e.proxy ? null : 'timeout';
  if (e.kind === 'pass') return e.move || 'timeout';
  if (e.kind === 'illegal') return e.forfeit ? `forfeit ${e.seat}` : null;
  if (e.kind === 'abort') return 'abort';
  if (e.kind === 'resign') return `resign ${e.seat}`;
  if (e.kind === 'adjudicate') return `adjudicate ${e.winner === null || e.winner === undefined ? 'draw' : e.winner}`;
  return null;
}
export const undoes = (e) => e.kind === 'takeback';

// The ply of the position an entry leaves, as the server's record says it (`ply_after`; a record
// written before it had one: `ply`, the ply before, and one more after a move or an R-X6 pass).
export const plyAfter = (e) => (e.ply_after !== undefined ? e.ply_after : e.ply + (e.kind === 'move' || e.kind === 'pass' ? 1 : 0));

// Does the entry's position carry a move's number ("7. C3"), or is it an end said in words?
export const numbered = (e) => e.kind === 'move' || e.kind === 'pass';

const nameOf = (seat) => store.names()[seat];

// An end without a move, in words: the history's label of its position.
export function endWords(e) {
  if (e.kind === 'flag') return `${nameOf(e.seat)}'s flag fell`;
  if (e.kind === 'resign') return `${nameOf(e.seat)} resigns`;
  if (e.kind === 'illegal') return `${nameOf(e.seat)} forfeits by an illegal move, ${e.move}`;
  if (e.kind === 'abort') return 'The umpire aborted the match';
  if (e.kind === 'adjudicate') {
    const result = e.winner === null || e.winner === undefined ? 'a draw' : `${nameOf(e.winner)} wins`;
    return `Adjudicated: ${result}${e.reason ? ` (${e.reason})` : ''}`;
  }
  return e.move || e.kind;
}

// The umpire's controls, in words (each entry's own fields: the seat, the seconds, the reason, the link).
const CONTROLS = {
  start: () => 'The umpire started the clocks.',
  pause: (e) => `The umpire paused the clocks${e.reason ? `: ${e.reason}` : ''}.`,
  resume: () => 'The umpire resumed the clocks.',
  add_time: (e) => `The umpire gave ${nameOf(e.seat)} ${+Number(e.seconds).toFixed(3)} s.`,
  token: (e) => `The umpire gave seat ${e.seat} (${nameOf(e.seat)}) a new link.`,
  add_umpire: (e) => `The umpire made co-umpire link ${e.link}.`,
  remove_umpire: (e) => `The umpire withdrew co-umpire link ${e.link}.`,
  takeback: (e) => `The umpire took back ${nameOf(e.seat)}'s move ${e.move}: ${nameOf(e.seat)} is to move again.`,
};

// The entries that are no position, each with `at`: the index of the position it follows (positions
// made by `recordStep`, taken back by `undoes`), and `ply`: the ply it happened at.
export function asidesOf(entries) {
  const out = [];
  let at = 0;
  for (const e of entries) {
    if (recordStep(e) !== null) at++;
    else {
      if (undoes(e)) at = Math.max(0, at - 1);
      if (CONTROLS[e.kind]) out.push(Object.freeze({ ...e, at }));
      else if (e.kind === 'illegal') { // a refused attempt (refusals.js): its error's code, sentence and rule
        const error = e.error || {};
        out.push(Object.freeze({ ...e, at, code: error.code || null, message: error.message || '', rule: error.rule || null }));
      }
    }
  }
  return out;
}

// The history's line of one of the umpire's controls (not a position: nothing to step to, so no
// button), with the ply it happened at (a take-back's: the one it returned to).
export function controlItem(a) {
  const ply = plyAfter(a);
  return el('li', { class: `u-aside u-aside-${a.kind}`, 'data-ply': ply }, el('span', { class: 'u-aside-ply' }, `ply ${ply}`), ` ${CONTROLS[a.kind](a)}`);
}
