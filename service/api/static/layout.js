// Where the parts of the page sit on a narrow screen (a phone): what a player needs while the board is
// in sight - a move waiting for Send, the seat line and the clocks, the move box with Play, the steps
// offered as words, and the verdict - sits right under the board, not a screen or two further down (issue 22: the verdict;
// issue 35: the clocks and Play, 1.5 screens below the board's top).  The same elements are moved
// (nothing is drawn twice), and put back where the page has them on a wide screen.

import { $ } from './dom.js';
import * as store from './store.js';

// The page's own narrow breakpoint (app.css): one column of cards.
const NARROW = '(max-width: 40rem)';
// In this order under the board; the clocks, the move box and the steps no click makes (a game's words:
// "first", a colour, a shift) only in a match (a local game's have the history and the computer beside them).
const BY_BOARD = [['u-pending', false], ['u-match-bar', true], ['u-move-form', true], ['u-legal', true], ['u-verdict', false]];
// (On a wide screen a held move's Send is at the top of the column beside the board, where a board card
// taller than the window would not hide it.)
const homes = new Map(); // each element's place on a wide screen: a marker left where index.html has it

export function placeParts() {
  const narrow = window.matchMedia(NARROW).matches;
  const inMatch = !!store.following();
  let last = $('u-board');
  for (const [id, matchOnly] of BY_BOARD) {
    const node = $(id);
    if (narrow && (inMatch || !matchOnly)) {
      last.after(node);
      last = node;
    } else homes.get(id).after(node);
  }
}

export function wireLayout() {
  for (const [id] of BY_BOARD) {
    const mark = document.createComment(` ${id} on a wide screen `);
    $(id).before(mark);
    homes.set(id, mark);
  }
  window.matchMedia(NARROW).addEventListener('change', placeParts);
  placeParts();
}
