// The umpire's desk: set up a game, check or play moves, step through the history, copy the forum
// post, save the picture, and run managed matches.  This is the page's entry module (index.html
// loads it as type=module): it wires each part's controls and starts the page.  Plain JavaScript
// modules, no build step; the page uses only the public API (/docs).
//
// The page knows no game: each game's names, move syntax, examples, how a click on a cell becomes a
// step and the words of its ends come from its `hints` in GET /v1/games (engine/games/<game>/hints.py),
// and the legal next steps of a move being built from legal-moves with a `prefix`.
//
// Two modes share one board.  Locally the page holds the positions itself and asks the stateless
// endpoints (/v1/games/...); in a match (the address ends in #match=ID, with &seat=N&token=T for a
// player) the server holds them and the page waits for changes (live.js).
//
// Where things are:
//   api.js       the API client (every request), errors as sentences
//   store.js     the state the modules share, and the named operations that change it
//   building.js  the store's part that is the move being built (store.js re-exports it)
//   dom.js       element helpers, the clipboard;  format.js  sentences filled, clock times
//   setup.js     "Set up": the game, its options, a new game, a new line on the board
//   paste.js     "Paste a state" and "Paste a record"
//   view.js      the position shown: `show` redraws everything that follows it; whose turn it is
//   board.js     the board and the keyboard: cells named, clicked, keyed; the marks of the move
//   moves.js     building a move step by step, the legal steps offered, playing it
//   pending.js   a seat's "confirm before sending": a move a click completes waits for Send
//   verdicts.js  what the page says about a move or a refusal
//   layout.js    on a phone, what a player needs sits right under the board
//   history.js   the list of moves, stepping through it, branches, taking back
//   computer.js  the computer opponent (POST suggest)
//   posts.js     the forum post, the PNG, the record copied
//   create.js    creating a match: its clock (the variant's preset, a custom one), its first position
//   links.js     the seat links and umpire token kept in this browser
//   leave.js     a seat's page asks before it is left while its match runs
//   match.js     following a match: entering, leaving, its record on the board, a seat's move
//   seat.js      the seat line; a seat whose link the umpire replaced (told, and offered no moves)
//   record.js    a match's record: its positions with their plies, the entries between them in words
//   refusals.js  a match's refused attempts: listed in the history, said on every view
//   umpire.js    the umpire's controls of a match: the clocks, a take-back, time, the end
//   coumpire.js  co-umpire links: the umpire's controls on another device, or for a second umpire
//   clocks.js    the match's clocks, counted down, and said to a screen reader as a turn runs low
//   deliveries.js  the umpire's view: how the posts to the match's webhooks go
//   live.js      live updates of a match: its event stream, or long polls

import { api, errorText } from './api.js';
import { wireBoard } from './board.js';
import { startClocks } from './clocks.js';
import { wireMatchForm } from './create.js';
import { wireComputer } from './computer.js';
import { wireCoUmpires } from './coumpire.js';
import { wireHistory } from './history.js';
import { wireLeave } from './leave.js';
import { wireLayout } from './layout.js';
import { showKept } from './links.js';
import { onHash, wireMatch } from './match.js';
import { wireMoveForm } from './moves.js';
import { wirePaste } from './paste.js';
import { wirePending } from './pending.js';
import { wirePosts } from './posts.js';
import { listGames, newGame, wireSetup } from './setup.js';
import * as store from './store.js';
import { wireUmpire } from './umpire.js';
import { say } from './verdicts.js';
import { wireView } from './view.js';

function wire() {
  wireSetup();
  wirePaste();
  wireView();
  wireBoard();
  wireMoveForm();
  wireHistory();
  wirePosts();
  wireComputer();
  wireMatchForm();
  wireUmpire();
  wireCoUmpires();
  wireMatch();
  wireLeave();
  wirePending();
  wireLayout();
  startClocks();
}

async function init() {
  wire();
  const r = await api('GET', '/v1/games');
  if (!r.ok) return say('bad', `The games cannot be listed: ${errorText(r)}`);
  store.learnGames(r.data.games);
  listGames(r.data.games);
  showKept();
  if (!(await onHash())) await newGame(store.game(), {}); // a match's address, or a new game of the first game
  document.body.dataset.ready = '1';
}

init();
