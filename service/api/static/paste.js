// Pasting: a position ("Paste a state": a state as the API gives it, or the text diagram of a post,
// read back by POST import) and a record ("Paste a record": one move a line, the page's own text
// record, or another site's format the game reads), replayed move by move onto a new line.

import { api, errorText } from './api.js';
import { $, el } from './dom.js';
import { leaveAsked } from './match.js';
import { markWrong } from './moves.js';
import { firstPosition, readOptions, startFrom } from './setup.js';
import * as store from './store.js';
import { say, sayIllegal, sayLegal } from './verdicts.js';

const OWN_RECORD = "the umpire's text record";

// The placeholders of the paste forms, in the game's words (once a game).
export function showPasteHints() {
  const h = store.hints();
  $('u-state-text').placeholder = `{"game": "${store.game()}", "version": 1, ...}`;
  $('u-record-text').placeholder = h.examples.map((m, i) => `${i + 1}. ${m}`).join('\n');
  h.players.forEach((name, seat) => { $('u-state-to-move').options[seat + 1].textContent = name; });
  fillRecordFormats($('u-record-format'), $('u-game').value, OWN_RECORD);
}

// The record formats of other sites a game reads and writes (GET /v1/games `records`), in a select;
// the first choice is the page's own text record.  A position's diagram is no record: "Paste a state" reads it.
export function fillRecordFormats(sel, game, own) {
  const was = sel.value;
  sel.replaceChildren(el('option', { value: '' }, own));
  for (const f of (store.gameInfo(game) || {}).records || []) {
    if (f.name !== 'diagram') sel.append(el('option', { value: f.name }, f.title));
  }
  sel.value = [...sel.options].some((o) => o.value === was) ? was : '';
}

// A position pasted: a state as the API gives it (JSON), or the text diagram a post prints, which the
// server reads back, as a state, for the game chosen under "New game" (POST import, format "diagram").
async function loadState(text) {
  let data;
  try {
    data = JSON.parse(text);
  } catch (err) {
    return loadDiagram(text, err);
  }
  const state = data && data.state && typeof data.state === 'object' ? data.state : data; // a state, or an answer holding one
  if (!state || !store.gameInfo(state.game)) return say('bad', 'A state is a JSON object with a "game" the server knows.');
  const r = await api('POST', `/v1/games/${state.game}/legal-moves`, { state, limit: 1 }); // the server checks the state
  if (!r.ok) return say('bad', `The state is not valid: ${errorText(r)}`);
  startFrom(state.game, state.options || {}, [firstPosition(state)]);
  say('info', 'The state is loaded.');
}

async function loadDiagram(text, notJson) {
  const game = $('u-game').value;
  if (!((store.gameInfo(game) || {}).records || []).some((f) => f.name === 'diagram')) {
    return say('bad', `That is not JSON (${notJson.message}), and a ${store.gameInfo(game).title} diagram cannot be read back: paste a state.`);
  }
  const seat = $('u-state-to-move').value;
  const body = { format: 'diagram', text, options: readOptions() };
  if (seat !== '') body.to_move = Number(seat);
  const r = await api('POST', `/v1/games/${game}/import`, body);
  if (!r.ok) return say('bad', `The diagram cannot be read: ${errorText(r)}`);
  // The position the server read, whole: with its [State ...] line, the bonus, the draft, the totals and
  // the ply a post carries (issue 35: a new game set up from the options read lost them).  The options
  // stay the line's: a match is made from them, where they set up this very position (create.js).
  const state = r.data.state;
  startFrom(game, r.data.options, [firstPosition(state)]);
  say('info', `The diagram is read: a ${store.gameInfo(game).title} position, ply ${state.ply}.`);
}

// A record: one move a line, or a match's text record with [Game "..."] and [Options {...}] lines.
function parseRecord(text) {
  let game = null;
  let options = null;
  const moves = [];
  for (const raw of text.split(/\r?\n/)) {
    let line = raw.trim();
    if (!line) continue;
    const tag = /^\[(\w+)\s+(.*?)\]\s*(\{.*\})?$/.exec(line);
    if (tag) {
      try {
        if (tag[1] === 'Game') game = JSON.parse(tag[2]);
        if (tag[1] === 'Options') options = JSON.parse(tag[2]);
      } catch (err) {
        throw new Error(`The line ${line} cannot be read: ${err.message}`);
      }
      continue;
    }
    line = line.replace(/\{[^}]*\}/g, '').replace(/^\d+\.\s*/, '').trim();
    if (line) moves.push(line);
  }
  return { game, options, moves };
}

// The record's game, options and moves: another site's read by the server, the page's own read here.
async function readRecord(text) {
  const format = $('u-record-format').value;
  if (!format) return parseRecord(text); // throws, saying which line cannot be read
  const game = $('u-game').value;
  const r = await api('POST', `/v1/games/${game}/import`, { text, format });
  if (!r.ok) throw new Error(`The record cannot be read: ${errorText(r)}`);
  return { game, options: r.data.options, moves: r.data.moves };
}

async function replayRecord(text) {
  let rec;
  try {
    rec = await readRecord(text);
  } catch (err) {
    return say('bad', err.message);
  }
  const game = rec.game || $('u-game').value;
  if (!store.gameInfo(game)) return say('bad', `There is no game called ${rec.game}.`);
  const options = rec.options || (rec.game ? {} : readOptions());
  const r = await api('POST', `/v1/games/${game}/new`, { options });
  if (!r.ok) return say('bad', `The record's options: ${errorText(r)}`);
  const history = [firstPosition(r.data.state)];
  for (let i = 0; i < rec.moves.length; i++) {
    const move = rec.moves[i];
    if (store.isTakeBack(move)) { // the umpire's take-back in a match's record: the move before it undone
      if (history.length > 1) history.pop();
      continue;
    }
    const before = history[history.length - 1].state;
    let v;
    if (store.isReserved(move)) { // an end without a move (resign 1...): the server replays the record to it
      const rr = await api('POST', `/v1/games/${game}/replay`, { options, moves: rec.moves.slice(0, i + 1) });
      if (!rr.ok) return say('bad', errorText(rr));
      v = rr.data.valid
        ? { legal: true, move: rr.data.move, state: rr.data.state, events: [], announcements: rr.data.announcements }
        : { legal: false, error: rr.data.first_illegal.error };
    } else {
      const rp = await api('POST', `/v1/games/${game}/play`, { state: before, move });
      if (!rp.ok) return say('bad', errorText(rp));
      v = rp.data;
    }
    if (!v.legal) {
      startFrom(game, options, history);
      $('u-move').value = move;
      markWrong(move, v.error);
      return sayIllegal(v.error, `Move ${i + 1} of the record, ${move}, is illegal`);
    }
    history.push({ state: v.state, before, move: v.move, events: v.events, announcements: v.announcements });
  }
  startFrom(game, options, history);
  const played = history.length - 1; // a move taken back is not on the line
  sayLegal(store.latest(), `The record replays: ${played} ${played === 1 ? 'move' : 'moves'}.`);
}

export function wirePaste() {
  $('u-game').addEventListener('change', () => fillRecordFormats($('u-record-format'), $('u-game').value, OWN_RECORD));
  $('u-state').addEventListener('submit', (ev) => {
    ev.preventDefault();
    if (!leaveAsked()) return;
    loadState($('u-state-text').value);
  });
  $('u-record').addEventListener('submit', (ev) => {
    ev.preventDefault();
    if (!leaveAsked()) return;
    replayRecord($('u-record-text').value);
  });
}
