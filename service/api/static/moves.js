// Building and playing a move: steps added one at a time (a cell clicked, a word step's button) and
// checked by the server as they come (legal-moves with a `prefix`: the legal next steps, and the
// board as the steps leave it), the legal next steps offered, a typed move, and the move played -
// locally by POST play (on an earlier position: a branch), in a match by the match's module.

import { api, errorText } from './api.js';
import { boardCells, byClick, cellOf, markCells, showsPreview } from './board.js';
import { computerMove } from './computer.js';
import { $, el } from './dom.js';
import { playInMatch } from './match.js';
import { confirming, hold } from './pending.js';
import { sayLost } from './seat.js';
import * as store from './store.js';
import { clearVerdict, say, sayIllegal, sayLegal } from './verdicts.js';
import { show } from './view.js';

// A typed move's steps as the engine counts them (error.step indexes them): each match of the game's step pattern.
function stepsOf(text) {
  const re = new RegExp(store.hints().step_pattern, 'gi');
  return [...String(text).matchAll(re)].map((m) => m[0].trim()).filter(Boolean);
}
const joinSteps = (steps) => steps.join(store.hints().joiner);

// The game's move syntax and examples, under the move box (once a game).
export function showSyntax() {
  const h = store.hints();
  $('u-syntax').textContent = `${h.syntax} For example: ${h.examples.join(' · ')}`;
}

// An illegal move: the move being built is dropped, and the cell of the step its error names is marked.
// A move that stopped early (one whose piece "must still eat") names the step it lacks, after the last
// one typed: the last step typed is marked, where it stopped.
export function markWrong(move, error) {
  const steps = stepsOf(move);
  const at = error && error.step !== undefined && error.step !== null ? Math.min(error.step, steps.length - 1) : -1;
  store.clearMove();
  store.markWrongCell(at >= 0 ? cellOf(steps[at]) : null);
  markCells();
}

// A step added to the move being built; a cell clicked again right after it (`fromBoard`) takes it back.
export async function addStep(step, fromBoard) {
  if (store.seatLost()) return sayLost();
  if (!store.mayMove()) {
    say('info', store.following() && store.atLatest() ? 'It is not your move.' : 'Go to the latest position to play.');
    return;
  }
  const steps = store.prefix();
  const last = steps[steps.length - 1];
  const again = fromBoard && last && last.toUpperCase() === step.toUpperCase();
  const prefix = again ? steps.slice(0, -1) : [...steps, step];
  const r = await api('POST', `/v1/games/${store.game()}/legal-moves`, { state: store.position().state, prefix });
  if (!r.ok) return say('bad', errorText(r));
  if (r.data.error) {
    store.markWrongCell(cellOf(step));
    markCells();
    return sayIllegal(r.data.error, `${step} cannot come next`);
  }
  store.setPrefix(r.data.prefix);
  $('u-move').value = joinSteps(store.prefix());
  if (r.data.complete && r.data.count === 0) { // the move cannot go on: it is played, or held for Send by a seat that confirms
    return fromBoard && confirming() ? hold(r.data.move) : play(r.data.move);
  }
  store.setPreview(r.data.preview || null);
  if (store.previewState() || showsPreview()) await show(); // the board as the steps so far leave it
  applySteps(r.data);
  if (store.prefix().length) {
    say('info', r.data.complete
      ? `${r.data.move} may be played now (Play, or Enter), or go on.`
      : `${joinSteps(store.prefix())}: the move goes on.`);
  }
}

// The legal next steps of the position shown, asked again (the line or the move being built changed).
export async function refreshSteps() {
  store.setOpenSteps([]);
  // Always asked: a step no click makes (a word such as "swap") is offered under the move box.
  if (!store.mayMove()) {
    $('u-legal').hidden = true;
    markCells();
    return;
  }
  const r = await api('POST', `/v1/games/${store.game()}/legal-moves`, { state: store.position().state, prefix: store.prefix() });
  if (r.ok && !r.data.error) applySteps(r.data);
}

// The legal next steps as buttons: all of them when asked ("Show the legal moves"), else only the steps
// no click on a cell makes (a game's words: "swap", a draft's colours, a shift), which are picked here.
function applySteps(steps) {
  const cells = boardCells();
  const all = $('u-show-legal').checked;
  const words = steps.steps.filter((s) => !byClick(s, cells));
  const listed = all ? steps.steps : words;
  const visible = all || words.length > 0;
  store.setOpenSteps(all ? steps.steps : []);
  markCells();
  $('u-legal').hidden = !visible;
  if (!visible) return;
  const box = $('u-steps');
  box.replaceChildren();
  if (steps.complete) {
    box.append(el('button', { type: 'button', class: 'u-done', onclick: () => play(steps.move) }, `Play ${steps.move}`));
  }
  for (const s of listed) box.append(el('button', { type: 'button', onclick: () => addStep(s) }, s));
  const count = steps.count;
  const prefix = store.prefix();
  const after = prefix.length ? `After ${joinSteps(prefix)}: ` : '';
  if (listed.length < count) {
    const what = `a cell on the board, or ${listed.length === 1 ? 'this step' : 'one of these steps'}:`;
    $('u-legal-head').textContent = after ? after + what : what.charAt(0).toUpperCase() + what.slice(1);
  } else {
    $('u-legal-head').textContent = prefix.length
      ? `${after}${count} legal next ${count === 1 ? 'step' : 'steps'}.`
      : `${count} legal first ${count === 1 ? 'step' : 'steps'}.`;
  }
}

// A move played.  `byComputer`: the computer's move (POST suggest), played as a person's is; after a
// person's move the computer answers when it is its turn.
export async function play(text, byComputer) {
  text = (text || '').trim();
  if (!text) return say('info', 'Type a move, or click the cells of one.');
  if (store.thinking() && !byComputer) return say('info', 'The computer is thinking…');
  if (store.seatLost()) return sayLost();
  if (!byComputer && !store.mayMove()) return say('info', store.following() ? 'It is not your move.' : 'Go to the latest position to play.');
  if (store.following()) return playInMatch(text);
  const line = store.lineId();
  const before = store.position().state;
  const r = await api('POST', `/v1/games/${store.game()}/play`, { state: before, move: text });
  if (line !== store.lineId()) return; // another line is on the board now
  if (!r.ok) return say('bad', errorText(r));
  const v = r.data;
  if (!v.legal) {
    markWrong(text, v.error);
    return sayIllegal(v.error, `${text} is illegal`);
  }
  store.addMove({ state: v.state, before, move: v.move, events: v.events, announcements: v.announcements });
  $('u-move').value = '';
  await show();
  sayLegal(store.latest(), byComputer ? `The computer (${byComputer}) plays ${v.move}` : `Legal: ${v.move}`);
  if (!byComputer) await computerMove(false);
}

async function clearMove() {
  store.clearMove();
  $('u-move').value = '';
  clearVerdict();
  if (showsPreview()) await show(); // the board as it is, without the steps taken back
  else await refreshSteps();
}

export function wireMoveForm() {
  $('u-move-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    play($('u-move').value);
  });
  $('u-move').addEventListener('input', () => {
    store.clearMove();
    if (showsPreview()) show(); // typing starts the move afresh: no preview of the steps clicked
    else markCells();
  });
  $('u-clear').addEventListener('click', clearMove);
  $('u-show-legal').addEventListener('change', refreshSteps);
}
