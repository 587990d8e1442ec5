// Setting up a game: the "Set up" card's tabs, the game chosen and its options' fields (from GET
// /v1/games: each option's type, choices, default, and `only_with`), a new game (POST new), and
// `startFrom`, which puts a new line on the board (a new game, a state, a record).

import { api, errorText } from './api.js';
import { computerMove } from './computer.js';
import { $, el } from './dom.js';
import { leaveAsked } from './match.js';
import * as store from './store.js';
import { say } from './verdicts.js';
import { show } from './view.js';

// The game chosen in the form (not always the one on the board, which the form shows once it is set up).
const chosen = () => store.gameInfo($('u-game').value);

// The games in the form's select, the first chosen.
export function listGames(games) {
  const sel = $('u-game');
  for (const g of games) sel.append(el('option', { value: g.name }, g.title));
  sel.value = games[0].name;
  buildOptionFields();
}

function buildOptionFields() {
  const box = $('u-options');
  box.replaceChildren();
  const game = chosen();
  if (!game) return;
  for (const [name, opt] of Object.entries(game.options)) {
    if (opt.setup) continue;
    const id = `u-opt-${name}`;
    const title = opt.description || name;
    if (opt.type === 'string' && opt.choices) {
      const sel = el('select', { id, name, 'data-option': name, title });
      for (const c of opt.choices) sel.append(el('option', { value: c, selected: c === opt.default }, c));
      box.append(el('label', {}, name, sel));
    } else if (opt.type === 'integer') {
      box.append(el('label', {}, name, el('input', {
        id, name, type: 'number', 'data-option': name, value: opt.default, min: opt.min, max: opt.max, title,
      })));
    } else if (opt.type === 'boolean') {
      box.append(el('label', {}, el('input', { id, name, type: 'checkbox', 'data-option': name, checked: !!opt.default, title }), name));
    } else if (opt.type === 'array' && opt.choices) {
      const set = el('fieldset', { 'data-option': name }, el('legend', {}, name));
      for (const c of opt.choices) {
        set.append(el('label', {}, el('input', { type: 'checkbox', value: c, checked: (opt.default || []).includes(c) }), c));
      }
      box.append(set);
    } else if (opt.type === 'any') {
      box.append(el('label', {}, name, el('input', { id, name, 'data-option': name, placeholder: 'random', title, size: 10 })));
    }
    if (opt.only_with && box.lastElementChild) box.lastElementChild.dataset.onlyWith = name;
  }
  showOptionFields();
}

// The value an option's field shows now.
function fieldValue(node) {
  if (node.tagName === 'FIELDSET') return [...node.querySelectorAll('input:checked')].map((i) => i.value);
  if (node.type === 'checkbox') return node.checked;
  if (node.type === 'number') return node.value === '' ? null : Number(node.value);
  return node.value;
}

// An option that matters only with some values of others (its `only_with`: a board's size that only
// one variant's board has) is hidden, and not sent, while they have other values (issue 22: a
// fixed board showed a size field it does not use).
function optionApplies(game, name) {
  const only = game.options[name].only_with || {};
  return Object.entries(only).every(([other, values]) => {
    const node = $('u-options').querySelector(`[data-option="${other}"]`);
    const value = node ? fieldValue(node) : game.options[other].default;
    return values.includes(String(value));
  });
}

function showOptionFields() {
  const game = chosen();
  if (!game) return;
  for (const box of $('u-options').querySelectorAll('[data-only-with]')) box.hidden = !optionApplies(game, box.dataset.onlyWith);
}

// The form shows the game on the board, with the options it was set up with.
export function syncForm() {
  const sel = $('u-game');
  if (sel.value !== store.game()) {
    sel.value = store.game();
    buildOptionFields();
  }
  const options = store.options();
  for (const node of $('u-options').querySelectorAll('[data-option]')) {
    const value = options[node.dataset.option];
    if (value === undefined) continue;
    if (node.tagName === 'FIELDSET') {
      for (const box of node.querySelectorAll('input')) box.checked = value.includes(box.value);
    } else if (node.type === 'checkbox') node.checked = !!value;
    else node.value = value;
  }
  showOptionFields();
}

// The options of the form that differ from the game's defaults.
export function readOptions() {
  const game = chosen();
  const out = {};
  for (const node of $('u-options').querySelectorAll('[data-option]')) {
    const name = node.dataset.option;
    const opt = game.options[name];
    if (!optionApplies(game, name)) continue;
    let value = fieldValue(node);
    if (value === null) value = opt.default;
    if (opt.type === 'any' && value === '') continue;
    if (JSON.stringify(value) !== JSON.stringify(opt.default)) out[name] = value;
  }
  return out;
}

// The first position of a line: a game's start, or a state given.
export const firstPosition = (state) => ({ state, before: null, move: null, events: [], announcements: [] });

export async function newGame(game, options) {
  const r = await api('POST', `/v1/games/${game}/new`, { options });
  if (!r.ok) return say('bad', errorText(r));
  startFrom(game, options, [firstPosition(r.data.state)]);
  say('info', `A new game of ${store.gameInfo(game).title}.`);
}

// A new line on the board (a new game, a state, a record): nothing of the old one stays - the move
// being built, its marks, the post, the PNG link, a branch (issue 22: "E5" carried into a new game).
export function startFrom(game, options, history) {
  store.startLine(game, options, history);
  $('u-move').value = '';
  syncForm();
  show().then(() => computerMove(false)); // the computer opens when its seat is first to move
}

function selectTab(tab) {
  for (const t of document.querySelectorAll('[role="tab"]')) {
    const on = t === tab;
    t.setAttribute('aria-selected', String(on));
    t.tabIndex = on ? 0 : -1;
    $(t.getAttribute('aria-controls')).hidden = !on;
  }
}

export function wireSetup() {
  const tabs = [...document.querySelectorAll('[role="tab"]')];
  tabs.forEach((tab, i) => {
    tab.addEventListener('click', () => selectTab(tab));
    tab.addEventListener('keydown', (ev) => {
      const step = { ArrowRight: 1, ArrowLeft: -1 }[ev.key];
      if (!step) return;
      const next = tabs[(i + step + tabs.length) % tabs.length];
      selectTab(next);
      next.focus();
    });
  });
  $('u-options').addEventListener('change', showOptionFields);
  $('u-game').addEventListener('change', buildOptionFields);
  $('u-new').addEventListener('submit', (ev) => {
    ev.preventDefault();
    if (!leaveAsked()) return;
    newGame($('u-game').value, readOptions());
  });
}
