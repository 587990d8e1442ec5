// Creating a managed match ("Managed match": players' names, a clock, a webhook) of the game set up on
// the board (refused while Set up shows another game, not started), from exactly its first position (issue 35: a match dealt its grid again, not the one the
// umpire was shown), with the clock preset of the game's variant when it has one of its own, or a custom clock
// with every field the server's clock takes (turn, bank, the bank's step, an increment).

import { api, errorText } from './api.js';
import { $, el } from './dom.js';
import { duration } from './format.js';
import { keepCreated } from './links.js';
import * as store from './store.js';
import { say } from './verdicts.js';

// The custom clock's fields, by the name the API gives them (a preset in GET /v1/games, a match's `clock`).
const FIELDS = { turn_s: 'u-turn-s', bank_s: 'u-bank-s', step_s: 'u-step-s', increment_s: 'u-increment-s' };

// The options of the line on the board as its first position has them (normalised, every default named).
const lineOptions = () => {
  const first = store.position(0);
  return (first && first.state && first.state.options) || store.options();
};

// The preset the game declares for the options on the board.  GET /v1/games does not say which preset
// belongs to which variant (it names one default per game), so a preset is taken as an option value's
// own when its name ends with that value ("<game>-<value>") and no other preset's name does; otherwise
// the game's default.
export function ownPreset(game, options) {
  const names = Object.keys(game.presets);
  const found = new Set();
  for (const [name, opt] of Object.entries(game.options)) {
    const value = options[name] === undefined ? opt.default : options[name];
    if (opt.type !== 'string' || !opt.choices || typeof value !== 'string') continue;
    const own = names.filter((p) => p.endsWith(`-${value}`));
    if (own.length === 1) found.add(own[0]);
  }
  return found.size === 1 ? [...found][0] : game.default_preset;
}

// The form as the game on the board has it: its clock presets (the variant's own chosen), the custom
// clock's fields the presets have, its players' names.  Chosen again when the game or its options change.
export function showMatchForm() {
  const sel = $('u-clock-preset');
  const game = store.gameInfo(store.game());
  const options = lineOptions();
  const key = JSON.stringify([game.name, options]);
  if (sel.dataset.key === key) return;
  sel.dataset.key = key;
  const own = ownPreset(game, options);
  sel.replaceChildren();
  for (const [name, p] of Object.entries(game.presets)) {
    const step = p.step_s > 1 ? `, step ${p.step_s} s` : '';
    const more = p.increment_s ? `, +${p.increment_s} s a move` : '';
    sel.append(el('option', { value: name, selected: name === own }, `${name}: turn ${duration(p.turn_s)}, bank ${duration(p.bank_s)}${step}${more}`));
  }
  sel.append(el('option', { value: 'custom' }, 'custom…'));
  const preset = game.presets[own];
  for (const [field, id] of Object.entries(FIELDS)) {
    $(id).closest('label').hidden = typeof preset[field] !== 'number'; // a field the server's clock has
    $(id).value = preset[field];
  }
  $('u-custom-clock').dataset.base = own;
  $('u-custom-clock').hidden = true;
  game.hints.players.forEach((name, seat) => { $(`u-name-${seat}`).placeholder = name; });
}

// A preset chosen: the custom clock starts from it (its fields filled with the preset's values).
function presetChosen() {
  const sel = $('u-clock-preset');
  const custom = sel.value === 'custom';
  $('u-custom-clock').hidden = !custom;
  if (custom) return;
  const preset = store.gameInfo(store.game()).presets[sel.value];
  for (const [field, id] of Object.entries(FIELDS)) if (typeof preset[field] === 'number') $(id).value = preset[field];
  $('u-custom-clock').dataset.base = sel.value;
}

function clockOfForm() {
  const preset = $('u-clock-preset').value;
  if (preset !== 'custom') return { preset };
  const clock = { preset: $('u-custom-clock').dataset.base }; // the fields not shown come from the preset it started from
  for (const [field, id] of Object.entries(FIELDS)) if (!$(id).closest('label').hidden) clock[field] = Number($(id).value);
  return clock;
}

const canonical = (v) => JSON.stringify(v, (k, x) => (x && typeof x === 'object' && !Array.isArray(x)
  ? Object.fromEntries(Object.keys(x).filter((n) => n !== 'sig').sort().map((n) => [n, x[n]])) : x));

// The options that start a game at the line's first position: the line's own, and what the server drew
// for it that its state carries under an option's name (a deal's `seed`: the grid it dealt).  Checked by
// starting that game (POST new): null, and said why, when the options do not give the position shown
// (a state pasted mid-game: a match starts from a game's options, not from a state).
async function startingOptions() {
  const game = store.gameInfo(store.game());
  const first = store.position(0).state;
  const options = { ...store.options() };
  for (const [name, opt] of Object.entries(game.options)) {
    if (!opt.setup && options[name] === undefined && first[name] !== undefined && first[name] !== null) options[name] = first[name];
  }
  const r = await api('POST', `/v1/games/${game.name}/new`, { options });
  if (r.ok && canonical(r.data.state) === canonical(first)) return options;
  say('bad', `No match: its first position would not be the one shown here${r.ok ? '' : ` (${errorText(r)})`}. `
    + 'A match starts from a new game, or a diagram pasted ("Paste a state"), not from a state in the middle of a game.');
  return null;
}

// A match of the game on the board, from its first position, with the clock and names of the form.
// A match is made of the game on the board, from its first position; a different game chosen in Set up but
// not started there would be made silently of the board's game, so it is refused, naming both.
function refuse(text) {
  $('u-match-said').textContent = text;
  $('u-match-said').hidden = false;
  say('bad', text);
}

async function createMatch() {
  const chosen = $('u-game').value;
  if (chosen && chosen !== store.game()) {
    return refuse(`No match: Set up shows ${store.gameInfo(chosen).title}, the board a game of ${store.gameInfo(store.game()).title}. `
      + `Start a game of ${store.gameInfo(chosen).title} first (Set up, New game), or choose ${store.gameInfo(store.game()).title} again.`);
  }
  const options = await startingOptions();
  if (!options) return;
  const clock = clockOfForm();
  clock.start = $('u-clock-start').value; // when the clocks start: the umpire's start (the page's default), the first move, at once
  const typed = [0, 1].map((seat) => $(`u-name-${seat}`).value.trim());
  const game = store.game();
  const body = { game, options, clock };
  if (typed.some(Boolean)) body.players = typed.map((n) => n || null);
  // A channel the server posts every change to.  Whether the server may post there (its WEBHOOK_ALLOW) only
  // it knows: a refusal is its 422, shown as its sentence, and no match is made.
  const hook = $('u-hook-url').value.trim();
  if (hook) body.webhooks = [{ url: hook, format: $('u-hook-format').value }];
  const r = await api('POST', '/v1/matches', body);
  // Said twice: in the verdict, and beside the form's button, where the umpire looks.
  if (!r.ok) return refuse(`No match: ${errorText(r)}`);
  $('u-match-said').textContent = '';
  $('u-match-said').hidden = true;
  const own = store.gameInfo(game).hints.players;
  keepCreated({
    id: r.data.match_id,
    title: store.gameInfo(game).title,
    names: typed.map((n, seat) => n || own[seat]),
    seats: [r.data.seats['0'], r.data.seats['1']],
    umpire: r.data.umpire || null, // the match's umpire token: a seat's new link (and the umpire's controls)
    created: new Date().toLocaleString(),
  });
  const start = { umpire: " The clocks wait for the umpire's start (the umpire's view).", first_move: ' The clocks start at the first move.' }[clock.start] || '';
  const from = store.positions().length > 1 ? ` It starts from the first position of the line on the board (ply ${store.plyOf(0)}), as shown there.` : '';
  say('info', `The match of ${store.gameInfo(game).title} is created: open a seat link here, and send the other to the opponent. The links are kept below until you dismiss them.${start}${from}`);
}

export function wireMatchForm() {
  $('u-clock-preset').addEventListener('change', presetChosen);
  $('u-match-form').addEventListener('submit', (ev) => { ev.preventDefault(); createMatch(); });
}
