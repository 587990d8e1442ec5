// The position shown: `show` draws it (the server draws the board: POST render, or a match's
// board.svg for an earlier position of it) and brings everything that follows the position up to
// date - the cells, the turn, the history list, the move box and its legal steps, the forms that
// depend on the game.  Every change of the line on the board ends in `show`.

import { api, errorText } from './api.js';
import { decorateCells, drawBoard, helpIsFor, showClickHelp } from './board.js';
import { showMatchForm } from './create.js';
import { showComputer } from './computer.js';
import { $ } from './dom.js';
import { fill } from './format.js';
import { showHistory } from './history.js';
import { addStep, refreshSteps, showSyntax } from './moves.js';
import { showPasteHints } from './paste.js';
import { showPending } from './pending.js';
import { forgetShares, showExportFormats } from './posts.js';
import { showSeat } from './seat.js';
import * as store from './store.js';
import { say } from './verdicts.js';

export async function show() {
  forgetShares();
  const h = store.position();
  const m = store.following();
  const coords = $('u-coords').checked;
  const earlier = !!m && !store.atLatest(); // a match's earlier position: the server has it
  const preview = earlier ? null : store.previewState(); // a move under way: the board as its steps leave it
  let r;
  if (earlier) {
    const query = [store.plyQuery(store.at()), coords ? 'coords=true' : '', store.namesQuery()].filter(Boolean).join('&');
    r = await api('GET', `/v1/matches/${m.id}/board.svg?${query}`);
  } else {
    r = await api('POST', `/v1/games/${store.game()}/render`, {
      state: preview || h.state, events: preview ? [] : h.events || [], format: 'svg', coords, names: store.namesToSend(),
    });
  }
  if (!r.ok) return say('bad', `The board cannot be drawn: ${errorText(r)}`);
  const game = store.game();
  drawBoard(r.data, `Board, ${store.gameInfo(game).title}, ply ${store.plyOf(store.at())}${preview ? ', the move so far' : ''}`, preview);
  if (!helpIsFor(game)) { // what the game's hints say about the way it is played, once a game
    showClickHelp();
    showSyntax();
    showPasteHints();
  }
  decorateCells(preview || h.state, (step) => addStep(step, true));
  showPending(); // a move held for Send, by the board
  const examples = store.hints().examples;
  $('u-move').placeholder = examples[Math.min(store.at(), examples.length - 1)];
  showTurn();
  showHistory();
  showMatchForm(); // the clock presets of the game on the board
  showExportFormats();
  await refreshSteps();
}

// Whose turn it is (or how the game ended), in the game's words (hints.ends, hints.turn_notes), and
// what may be done on the position shown: the move box, the computer, a match's seat line.
export function showTurn() {
  const h = store.position();
  const who = store.names();
  const hints = store.hints();
  let text;
  let seat = null;
  if (!h.state) text = `Position after move ${store.at()}.`;
  else if (h.state.status === 'finished') {
    const w = h.state.winner;
    const said = hints.ends[h.state.end] || {};
    const sentence = w === null ? said.drawn : said.won && fill(said.won, { winner: who[w] });
    text = `The game is over. ${sentence || `It ended by ${h.state.end}${w === null ? '' : `: ${who[w]} wins`}.`}`;
    seat = w;
  } else {
    const s = h.state;
    seat = s.to_move;
    const notes = [];
    for (const [field, words] of Object.entries(hints.turn_notes)) {
      if (s[field] === undefined || s[field] === null) continue;
      const value = String(s[field]);
      const note = words[value] !== undefined ? words[value] : words['*'];
      if (note) notes.push(fill(note, { value }));
    }
    text = `${who[s.to_move]} to move${notes.length ? `: ${notes.join(', ')}` : ''} (ply ${s.ply}).`;
  }
  const colours = hints.colours;
  $('u-turn').style.setProperty('--u-swatch', colours && seat !== null ? colours[seat] : 'transparent');
  $('u-turn').classList.toggle('u-has-swatch', !!colours && seat !== null);
  const m = store.following();
  if (!store.atLatest()) {
    text += ' You are looking at an earlier position.';
    if (!m && h.state && h.state.status !== 'finished') text += ' A move played here starts a branch; the line shown is kept.';
  }
  $('u-turn').textContent = text;
  showComputer();
  const canMove = store.mayMove();
  $('u-move').disabled = !canMove;
  $('u-play-button').disabled = !canMove;
  // The umpire's view, a seat whose link was replaced, a match that is over: nothing to play there.
  const watching = !!m && (m.seat === null || !!m.lost || (!!m.data && m.data.state.status === 'finished'));
  $('u-move-form').hidden = watching;
  $('u-syntax').hidden = watching; // how to write a move: for who may write one
  $('u-show-legal').parentElement.hidden = watching;
  showSeat();
}

export function wireView() {
  $('u-coords').addEventListener('change', () => show()); // the board drawn again, with its cells' names or without
}
