// The computer opponent: a strength and a seat chosen under "Play against the computer"; when its
// seat is to move (or "Computer, move now"), POST /v1/games/{game}/suggest chooses the move, which is
// played as a person's is.  Only on the page's own games: a match's seats are the server's.

import { api, errorText } from './api.js';
import { $, el } from './dom.js';
import { play } from './moves.js';
import * as store from './store.js';
import { say } from './verdicts.js';
import { showTurn } from './view.js';

// The strength chosen: a built-in bot and its budget (`mcts:0.5`), or null when the computer is off.
function computer() {
  const value = $('u-bot').value;
  if (!value) return null;
  const [bot, seconds] = value.split(':');
  return { bot, budget_s: seconds ? Number(seconds) : null, label: $('u-bot').selectedOptions[0].textContent };
}

// The seats to choose from, by the game's names; hidden in a match (the server's seats play there).
export function showComputer() {
  $('u-computer').hidden = !!store.following();
  const sel = $('u-bot-seat');
  if (sel.dataset.game !== store.game()) {
    const was = sel.value || '1';
    sel.replaceChildren(...store.names().map((name, seat) => el('option', { value: String(seat) }, name)));
    sel.value = was;
    sel.dataset.game = store.game();
  }
  const h = store.latest();
  $('u-bot-move').disabled = store.thinking() || !computer() || !store.atLatest() || !h.state || h.state.status === 'finished';
}

function think(on) {
  store.setThinking(on);
  document.body.dataset.thinking = on ? '1' : '0';
}

// The computer moves when it is on and its seat is to move (`now`: whoever is to move).
export async function computerMove(now) {
  const c = computer();
  const h = store.latest();
  if (store.following() || store.thinking() || !c || !store.atLatest() || !h.state || h.state.status === 'finished') return;
  if (!now && h.state.to_move !== Number($('u-bot-seat').value)) return;
  think(true);
  showTurn();
  say('info', `The computer (${c.label}) is thinking…`);
  const body = { state: h.state, bot: c.bot };
  if (c.budget_s) body.budget_s = c.budget_s;
  let r;
  try {
    r = await api('POST', `/v1/games/${store.game()}/suggest`, body);
  } finally {
    think(false);
  }
  if (store.latest().state !== h.state) { // the position changed meanwhile (a new game): forget the move, answer the new one
    showTurn();
    return computerMove(false);
  }
  if (!r.ok) {
    showTurn();
    return say('bad', `The computer could not move: ${errorText(r)} Press "Computer, move now" to ask again.`);
  }
  await play(r.data.move, c.label);
}

export function wireComputer() {
  $('u-bot').addEventListener('change', () => { showComputer(); computerMove(false); });
  $('u-bot-seat').addEventListener('change', () => computerMove(false));
  $('u-bot-move').addEventListener('click', () => computerMove(true));
}
