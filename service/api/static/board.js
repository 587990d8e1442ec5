// The board and the keyboard: the picture drawn into the page, its cells named (on hover, under the
// board, to screen readers), clicked or taken with the keys (Tab, the arrows, Enter; a choice's
// key), the marks of the move being built, and how a step names a cell (the game's `hints.click`).
//
// The board does not build the move: a cell taken is handed to the `take` given to decorateCells.

import { $, el } from './dom.js';
import { fill } from './format.js';
import * as store from './store.js';

// -- steps and cells -----------------------------------------------------------------------------

// The cells on the board, by name.
export function boardCells() {
  return new Set([...document.querySelectorAll('#u-board [data-cell]')].map((g) => g.dataset.cell.toUpperCase()));
}

// The cell a step names: its last word that is a cell of the board (none for a word step: "swap", "C up 2").
export function cellOf(step, cells) {
  const known = cells || boardCells();
  const words = String(step || '').toUpperCase().split(/[\s,;]+/).reverse();
  return words.find((w) => known.has(w)) || null;
}

// The step a click on `cell` makes (hints.click.step), with the choice picked first when the step carries one.
function clickStep(cell) {
  const click = store.hints().click;
  return click ? fill(click.step, { cell, choice: store.choiceCode() || '' }) : null;
}

// Is `step` what a click on its cell makes, with some choice?  Such steps are taken on the board; others are offered as words.
export function byClick(step, cells) {
  const click = store.hints().click;
  const cell = cellOf(step, cells);
  if (!click || !cell) return false;
  const choices = click.choices.length ? click.choices.map((c) => c.code) : [''];
  return choices.some((choice) => fill(click.step, { cell, choice }).toUpperCase() === String(step).toUpperCase());
}

// -- the picture -----------------------------------------------------------------------------------

// The board's SVG, as the server drew it; `preview`: the board as the steps of the move so far leave it.
export function drawBoard(svgText, label, preview) {
  const board = $('u-board');
  board.innerHTML = svgText;
  const svg = board.querySelector('svg');
  if (svg) {
    svg.setAttribute('role', 'group');
    svg.setAttribute('aria-label', label);
  }
  board.dataset.preview = preview ? '1' : '0';
  $('u-preview').hidden = !preview;
  fitBoard();
}

// Does the board show a preview (the steps so far), rather than the position itself?
export const showsPreview = () => $('u-board').dataset.preview === '1';

// On a small screen a big board's cells would be below a fingertip's size (side 10: 17 px wide on a phone):
// the board is then drawn wider than the screen, and scrolls sideways in its card.
const MIN_CELL_PX = 30;
export function fitBoard() {
  const svg = $('u-board').querySelector('svg');
  if (!svg) return;
  svg.style.minWidth = '';
  const shape = $('u-board').querySelector('[data-cell] > :first-child');
  if (!shape) return;
  const cell = shape.getBoundingClientRect().width;
  const board = svg.getBoundingClientRect().width;
  if (cell > 0 && cell < MIN_CELL_PX) svg.style.minWidth = `${Math.ceil((board * MIN_CELL_PX) / cell)}px`;
}

// -- how the game is played on the board (once a game) ------------------------------------------

// Has the board's help been written for `game`?
export const helpIsFor = (game) => $('u-board').dataset.game === game;

// How cells are clicked, and the choice a click's step carries (a colour), from the game's hints.
export function showClickHelp() {
  const click = store.hints().click;
  $('u-board').dataset.game = store.game();
  const box = $('u-choice');
  box.replaceChildren();
  box.hidden = !click || !click.choices.length;
  if (!click) {
    $('u-board-help').textContent = `${store.gameInfo(store.game()).title}: a move here is made of words, not cells. `
      + 'Pick its steps under "Play or check", or type the move.';
    return;
  }
  let help = 'Click a cell, or focus it (Tab, then the arrow keys) and press Enter, to add it to the move; '
    + 'a move that cannot go on is played at once.';
  if (click.choices.length) {
    if (!click.choices.some((c) => c.code === store.choiceCode())) store.pickChoice(click.choices[0].code);
    box.append(el('legend', {}, click.label));
    for (const c of click.choices) {
      const input = el('input', { type: 'radio', name: 'u-choice', value: c.code, checked: c.code === store.choiceCode(),
        onchange: () => { store.pickChoice(c.code); markCells(); } });
      box.append(el('label', { class: 'u-choice-item' }, input, el('span', { class: 'u-swatch', style: `--u-swatch: ${c.colour}` }), c.name));
    }
    const keys = click.choices.map((c) => c.code).join(', ');
    help = `Pick the ${click.label.toLowerCase()} (or press ${keys} on the board), then click a cell, or focus it `
      + '(Tab, then the arrow keys) and press Enter; a move that cannot go on is played at once.';
  }
  $('u-board-help').textContent = help;
}

function pickChoice(code) {
  store.pickChoice(code);
  for (const input of document.querySelectorAll('#u-choice input')) input.checked = input.value === code;
  markCells();
}

// -- the cells ---------------------------------------------------------------------------------------

// A board value in words: with the players' names where the line has them (a match's) and the game's
// pieces are theirs (hints.named_words: "Ann's stone"), else in the game's own words ("Red's stone").
function boardWord(value) {
  const h = store.hints();
  const named = store.namesToSend() && h.named_words[value];
  if (!named) return h.board_words[value] || value;
  const who = store.names();
  return fill(named, { player0: who[0], player1: who[1] });
}

// What is on a cell, in the game's words: a board is an object of cells, or a list of rows of one symbol a column.
function cellContent(state, cell) {
  if (!state) return '';
  const board = state.board;
  const h = store.hints();
  let value;
  if (Array.isArray(board)) {
    value = (board[Number(cell.slice(1)) - 1] || '')[cell.toUpperCase().charCodeAt(0) - 65];
    if (value === undefined) return '';
  } else {
    value = board ? board[cell] : undefined;
    if (value === undefined) return h.empty;
  }
  return boardWord(String(value));
}

// Each cell says its name: on hover (its title), and under the board while it has the focus.  A cell
// clicked, or taken with Enter or Space, hands its step to `take`.
export function decorateCells(state, take) {
  const cells = [...document.querySelectorAll('#u-board [data-cell]')];
  const clickable = !!store.hints().click; // a game whose steps are words does not take cells
  $('u-cell-name').textContent = '';
  cells.forEach((g, i) => {
    const cell = g.dataset.cell;
    const what = cellContent(state, cell);
    const said = what ? `${cell}, ${what}` : cell;
    g.setAttribute('aria-label', said);
    const title = document.createElementNS('http://www.w3.org/2000/svg', 'title');
    title.textContent = said;
    g.append(title); // last: the cell's shape stays its first child (the marks of app.css)
    g.addEventListener('mouseenter', () => { $('u-cell-name').textContent = said; });
    g.addEventListener('focus', () => { $('u-cell-name').textContent = said; });
    if (!clickable) return;
    g.setAttribute('tabindex', i === 0 ? '0' : '-1');
    g.setAttribute('role', 'button');
    g.addEventListener('click', () => { focusCell(g); take(clickStep(cell)); });
    g.addEventListener('keydown', (ev) => cellKey(ev, g, take));
  });
  markCells();
}

function focusCell(g) {
  for (const other of document.querySelectorAll('#u-board [data-cell][tabindex="0"]')) other.setAttribute('tabindex', '-1');
  g.setAttribute('tabindex', '0');
  g.focus();
}

function centre(g) {
  const b = (g.firstElementChild || g).getBBox();
  return [b.x + b.width / 2, b.y + b.height / 2];
}

const ARROWS = { ArrowRight: [1, 0], ArrowLeft: [-1, 0], ArrowDown: [0, 1], ArrowUp: [0, -1] };

// Arrow keys move between cells (to the nearest cell that way); Enter or Space takes the cell; a
// choice's key (hints.click.choices) picks it.
function cellKey(ev, g, take) {
  if (ev.key === 'Enter' || ev.key === ' ') {
    ev.preventDefault();
    take(clickStep(g.dataset.cell));
    return;
  }
  const choice = (store.hints().click.choices || []).find((c) => c.code.toUpperCase() === ev.key.toUpperCase());
  if (choice) {
    ev.preventDefault();
    pickChoice(choice.code);
    return;
  }
  const d = ARROWS[ev.key];
  if (!d) return;
  ev.preventDefault();
  // The nearest cell within 45 degrees of the key's direction: on a hex board the next row down is
  // half a cell aside, and a score that punished the sideways step more than the distance went
  // straight to the row after it (issue 22: the Down arrow skipped a row).
  const [x, y] = centre(g);
  let best = null;
  let bestScore = Infinity;
  for (const other of document.querySelectorAll('#u-board [data-cell]')) {
    if (other === g) continue;
    const [ox, oy] = centre(other);
    const along = (ox - x) * d[0] + (oy - y) * d[1];
    const across = Math.abs((ox - x) * d[1]) + Math.abs((oy - y) * d[0]);
    if (along <= 1) continue;
    const score = (across <= along ? 0 : 1e6) + along + across / 2;
    if (score < bestScore) { bestScore = score; best = other; }
  }
  if (best) focusCell(best);
}

// The board shows the move being built (picked), the cells a click may take next (open: with the choice
// picked, for a game whose steps carry one) and the cell of a wrong step.
export function markCells() {
  const cells = boardCells();
  const picked = new Set(store.prefix().map((s) => cellOf(s, cells)).filter(Boolean));
  const open = new Set();
  for (const s of store.openSteps()) {
    const cell = cellOf(s, cells);
    if (cell && (!store.hints().click || clickStep(cell).toUpperCase() === s.toUpperCase())) open.add(cell);
  }
  for (const g of document.querySelectorAll('#u-board [data-cell]')) {
    const cell = g.dataset.cell;
    g.classList.toggle('u-picked', picked.has(cell));
    g.classList.toggle('u-open', open.has(cell) && !picked.has(cell));
    g.classList.toggle('u-wrong', store.wrongCell() === cell);
  }
}

// "Skip to the board" moves the focus to the board's cell that takes it (the board itself if it has none),
// in script: followed as an anchor it changed the address to #u-board, which a match's page took for
// leaving the match.
function skipToBoard(ev) {
  ev.preventDefault();
  const cell = document.querySelector('#u-board [data-cell][tabindex="0"]');
  if (cell) focusCell(cell);
  else $('u-board').focus();
}

export function wireBoard() {
  window.addEventListener('resize', fitBoard);
  document.querySelector('.u-skip').addEventListener('click', skipToBoard);
}
