// The history: the list of the line's moves, stepping through it (First, Back, Forward, Latest, a
// move clicked), a branch and the way back to its main line, the branches kept (a study board's side
// lines, each a click away), and taking back the last move (said where it does not work).

import { $, el } from './dom.js';
import { matchAnnouncements } from './match.js';
import { controlItem, endWords, numbered } from './record.js';
import { attemptItem } from './refusals.js';
import * as store from './store.js';
import { say, sayLegal } from './verdicts.js';
import { show } from './view.js';

// Position `i` in the list: a move numbered by the ply it reaches (in a match, the ply the server's
// record gives it), an end without a move (a resignation, an adjudication) in words.
export function labelOf(i, ply = store.plies()) {
  const h = store.position(i);
  if (i === 0) return ply[0] ? `start (ply ${ply[0]})` : 'start';
  if (h.entry) return numbered(h.entry) ? `${ply[i]}. ${h.move}` : endWords(h.entry);
  return ply[i] === ply[i - 1] ? h.move : `${ply[i]}. ${h.move}`;
}

// The moves, and in a match the record's entries between them that are no position - the attempts
// refused, the umpire's controls (pause, time given, a take-back...), each with its ply; on a branch,
// its own moves are marked.
export function showHistory() {
  const list = $('u-moves');
  const ply = store.plies();
  const history = store.positions();
  const at = store.at();
  const main = store.mainLine();
  const from = main ? main.from : Infinity;
  const between = store.asides();
  list.replaceChildren();
  history.forEach((h, i) => {
    const b = el('button', { type: 'button', 'aria-current': i === at ? 'true' : 'false', onclick: () => goTo(i) }, labelOf(i, ply));
    list.append(el('li', { class: i > from ? 'u-branch-move' : null }, b));
    for (const a of between) if (a.at === i) list.append(a.kind === 'illegal' ? attemptItem(a) : controlItem(a));
  });
  const current = list.querySelector('[aria-current="true"]');
  if (current) { // the list scrolls to the move shown; the page does not (on a phone it would leave the board)
    const li = current.parentElement;
    if (li.offsetTop < list.scrollTop) list.scrollTop = li.offsetTop;
    else if (li.offsetTop + li.offsetHeight > list.scrollTop + list.clientHeight) list.scrollTop = li.offsetTop + li.offsetHeight - list.clientHeight;
  }
  const moves = history.length - 1;
  $('u-ply').textContent = `ply ${ply[at]} · move ${at} of ${moves}`;
  $('u-first').disabled = $('u-back').disabled = at === 0;
  $('u-last').disabled = $('u-forward').disabled = store.atLatest();
  $('u-branch').hidden = !main;
  if (main) {
    const own = moves - main.from;
    const kept = main.history.length - 1;
    $('u-branch-text').textContent = `A branch from ply ${ply[main.from]} (move ${main.from}): `
      + `${own} ${own === 1 ? 'move' : 'moves'} of its own. The main line, ${kept} ${kept === 1 ? 'move' : 'moves'}, is kept.`;
  }
  const takeBack = $('u-take-back');
  const m = store.following();
  takeBack.hidden = !!m;
  takeBack.disabled = !!m || store.thinking() || !store.atLatest() || moves === 0;
  takeBack.title = moves ? `Take back ${history[moves].move}, the last move of the line shown` : 'No move to take back';
  $('u-take-back-why').hidden = !!m || store.atLatest() || moves === 0; // said where it does not work (issue 35)
  showBranches(ply);
}

// The branches kept, each a button back to it: its own first moves, where it leaves the main line.
function showBranches(ply) {
  const kept = store.branches();
  $('u-branches').hidden = !kept.length;
  $('u-branch-list').replaceChildren(...kept.map((b, i) => {
    const own = b.history.slice(b.from + 1).map((h) => h.move);
    const shown = own.slice(0, 4).join(', ') + (own.length > 4 ? ', …' : '');
    const label = `From move ${b.from} (ply ${ply[Math.min(b.from, ply.length - 1)]}): ${shown} (${own.length} ${own.length === 1 ? 'move' : 'moves'})`;
    return el('li', {}, el('button', { type: 'button', onclick: () => toBranch(i) }, label));
  }));
}

async function toBranch(i) {
  if (!store.toBranch(i)) return;
  $('u-move').value = '';
  await show();
  say('info', 'The branch is shown again, at its last move; the line left is kept.');
}

async function goTo(i) {
  if (i < 0 || i >= store.positions().length || i === store.at()) return;
  store.showPosition(i);
  $('u-move').value = '';
  await show();
  let h = store.position(i);
  if (store.following() && !h.announcements) h = store.noteAnnouncements(h, await matchAnnouncements(store.plyQuery(i)));
  if (i > 0) sayLegal(h, labelOf(i));
  else say('info', 'The starting position.');
}

// Back to the main line, where the branch left it (the branch is kept, under the moves).
async function toMainLine() {
  if (!store.backToMainLine()) return;
  $('u-move').value = '';
  await show();
  say('info', 'Back on the main line, where the branch left it. The branch is kept: "Branches kept", under the moves.');
}

// The last move of the line shown is taken back (before it is posted): a branch with no move left
// is the main line again.
async function takeBack() {
  if (store.following() || store.thinking() || !store.atLatest() || store.positions().length < 2) return;
  const gone = store.latest();
  store.dropLastMove();
  $('u-move').value = '';
  await show();
  say('info', `${gone.move} is taken back.`);
}

export function wireHistory() {
  $('u-first').addEventListener('click', () => goTo(0));
  $('u-back').addEventListener('click', () => goTo(store.at() - 1));
  $('u-forward').addEventListener('click', () => goTo(store.at() + 1));
  $('u-last').addEventListener('click', () => goTo(store.positions().length - 1));
  $('u-main-line').addEventListener('click', toMainLine);
  $('u-take-back').addEventListener('click', takeBack);
}
