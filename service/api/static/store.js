// The state the page's modules share.  Only the named operations below change it (a search for one
// finds every change of its part); the other modules read it through the getters, and the records they
// get are frozen (not the server's states inside them), so a stray assignment fails loudly instead of
// changing the page behind the store's back.  State one module alone needs stays in that module.
//
//  - the games: the server's (GET /v1/games), each with its `hints`, read once at the start;
//  - the line on the board: its game and options, its positions, the one shown, the main line kept
//    while a branch is shown, the branches left (kept, as a study board keeps them), and a count of the lines shown (what was made for one line, such as an
//    answer still on its way, is not shown on another);
//  - the move being built (building.js, re-exported here): its steps, the cell of a wrong step, the
//    legal next steps marked, the board as the steps leave it (the preview), the choice a click carries;
//  - the managed match followed, if any (the address ends in #match=ID), and whether the computer
//    is choosing a move.
//
// A position is {state, before, move, events, announcements}; in a match earlier positions have no
// state (the server keeps them), and each has its `ply` and its record `entry` (record.js), and
// `reopened` when a take-back returned to it.

// The move being built is its own module's (building.js), shared through the store like the rest.
import { clearMove } from './building.js';

export { choiceCode, clearMove, markWrongCell, openSteps, pickChoice, prefix, previewState, setOpenSteps, setPrefix, setPreview, wrongCell } from './building.js';

// A record's entries that are not moves (engine/game.py RESERVED): replayed by the server.
const RESERVED = ['timeout', 'resign', 'forfeit', 'abort', 'adjudicate'];
export const isReserved = (move) => !!move && RESERVED.includes(String(move).split(/\s+/)[0].toLowerCase());
// A record's `takeback` (engine/game.py TAKEBACK): the umpire undid the move right before it.
export const isTakeBack = (move) => String(move || '').trim().toLowerCase() === 'takeback';

// Positions kept as given (each frozen once, so a position keeps its identity from line to line).
const freeze = (list) => Object.freeze(list.map((h) => (Object.isFrozen(h) ? h : Object.freeze({ ...h }))));

let line = Object.freeze({ game: null, options: {}, history: freeze([]), at: 0, main: null, branches: freeze([]), names: null });
let lines = 0;

// -- the games ---------------------------------------------------------------------------------

const games = new Map();

// The games of GET /v1/games; the first is on the board until a line is set up.
export function learnGames(list) {
  for (const g of list) games.set(g.name, Object.freeze(g));
  line = Object.freeze({ ...line, game: list[0].name });
}
// A game's description (GET /v1/games), or undefined for a name the server does not know.
export const gameInfo = (name) => games.get(name);
// The hints of the game on the board (engine/hints.py): everything the page knows about a game.
export const hints = () => games.get(line.game).hints;

// -- the line on the board ---------------------------------------------------------------------

export const game = () => line.game;
export const options = () => line.options;
export const positions = () => line.history;
export const at = () => line.at;
export const position = (i) => line.history[i === undefined ? line.at : i];
export const latest = () => line.history[line.history.length - 1];
export const atLatest = () => line.at === line.history.length - 1;
// On a branch: {history, from}, the main line kept and the position the branch leaves it at.
export const mainLine = () => line.main;
// The branches left for the main line (or for another branch), kept as a study board keeps them: each
// {history, from}, the whole line and the main line's position it leaves; the newest first.
export const branches = () => line.branches;
// Changes with every new line shown (a new game, a branch, a match): compare it before and after a wait.
export const lineId = () => lines;

// Each seat's name: the match's players where it names them, else the game's own (the hints').
export function names() {
  const own = hints().players;
  return [0, 1].map((seat) => (line.names && line.names[seat]) || own[seat]);
}
// The names to send with a picture or a post: only when they are not the game's own.
export const namesToSend = () => (line.names && line.names.some(Boolean) ? names() : undefined);

// The names as a picture's or a post's `names=` (commas are its separator), or '' for the game's own.
export function namesQuery() {
  return namesToSend() ? `names=${encodeURIComponent(names().map((n) => n.replace(/,/g, ' ')).join(','))}` : '';
}

// The position's own ply, the one number the page, the pictures and the posts give (issue 22): its
// state's `ply`, or in a match the ply the server's record gives it (`ply`: its earlier positions have
// no state here, and an end without a move, a resignation, keeps the ply of the move before it).
export const plies = () => line.history.map((h) => (h.ply !== undefined ? h.ply : h.state.ply));
export const plyOf = (i) => plies()[i];
// A match's position as the pictures' `?ply=` names it: none for the latest (the server's latest).
export const plyQuery = (i) => (i === line.history.length - 1 ? '' : `ply=${plyOf(i)}`);
// What a post, a PNG link or a record copied belongs to: the game, the line, the position.
export const shownKey = () => `${match ? match.id : line.game}|${lines}|${line.at}`;

// Locally a move may be played on any position: on an earlier one it starts a branch (the main line
// is kept).  In a match only on the latest, by the seat whose turn it is.
export function mayMove() {
  const h = position();
  if (computing || !h || !h.state || h.state.status === 'finished') return false;
  if (!match) return true;
  // While the clocks are paused or wait for the start the move may still be built and sent: the server
  // takes it (clock.start first_move) or says why not (409 paused, not_started), and the page shows its sentence.
  return atLatest() && match.seat !== null && !match.lost && match.data && match.data.clock.may_move === match.seat;
}

// A new line (a new game, a state, a record): nothing of the old one stays - the move being built, a
// branch (issue 22: "E5" carried into a new game).
export function startLine(game, options, history) {
  line = Object.freeze({ ...line, game, options: Object.freeze({ ...options }), history: freeze(history), at: history.length - 1, main: null, branches: freeze([]) });
  lines++;
  clearMove();
}

// A move played on the position shown (locally).  On an earlier position it starts a branch: the line
// it leaves is kept as the main line (where a branch is replaced, the main line stays).
export function addMove(entry) {
  let main = line.main;
  let kept = line.branches;
  if (!atLatest()) {
    if (!main) main = Object.freeze({ history: line.history, from: line.at });
    else {
      kept = keepBranch(); // the branch cut here stays reachable
      if (line.at < main.from) main = Object.freeze({ ...main, from: line.at });
    }
    lines++;
  }
  const history = freeze([...line.history.slice(0, line.at + 1), entry]);
  line = Object.freeze({ ...line, history, at: history.length - 1, main, branches: kept });
  clearMove();
}

// The branches with the one shown kept first (at most MOST_BRANCHES, the oldest go).
const MOST_BRANCHES = 20;
const keepBranch = () => freeze([{ history: line.history, from: line.main.from }, ...line.branches].slice(0, MOST_BRANCHES));

// Back to the main line, where the branch left it (the branch is kept); false when not on a branch.
export function backToMainLine() {
  if (!line.main) return false;
  const { history, from } = line.main;
  line = Object.freeze({ ...line, history, at: Math.min(from, history.length - 1), main: null, branches: keepBranch() });
  lines++;
  clearMove();
  return true;
}

// A kept branch shown again, at its last position (the one shown now is kept in its turn).
export function toBranch(i) {
  const b = line.branches[i];
  if (!b) return false;
  const others = line.main ? keepBranch().filter((k) => k !== b) : line.branches.filter((k) => k !== b);
  const main = Object.freeze({ history: line.main ? line.main.history : line.history, from: b.from });
  line = Object.freeze({ ...line, history: b.history, at: b.history.length - 1, main, branches: freeze(others) });
  lines++;
  clearMove();
  return true;
}

// The last move of the line taken back: a branch with no move left is the main line again.
export function dropLastMove() {
  const history = line.history.slice(0, -1);
  line = Object.freeze({ ...line, history: Object.freeze(history), at: history.length - 1 });
  lines++;
  if (line.main && line.at === line.main.from) line = Object.freeze({ ...line, history: line.main.history, main: null });
  clearMove();
}

export function showPosition(i) {
  line = Object.freeze({ ...line, at: i });
  clearMove();
}

// The announcements of a position, once read (a match's come from its post): the position with them.
export function noteAnnouncements(entry, announcements) {
  const noted = Object.freeze({ ...entry, announcements });
  const i = line.history.indexOf(entry);
  if (i >= 0) line = Object.freeze({ ...line, history: Object.freeze(line.history.map((h, j) => (j === i ? noted : h))) });
  return noted;
}

// -- the computer opponent ---------------------------------------------------------------------

let computing = false;
export const thinking = () => computing;
export function setThinking(on) {
  computing = on;
}

// -- the match followed --------------------------------------------------------------------------

// {id, seat, token, data, offset, gen, es, asides, lost}: `data` is the match as GET /v1/matches/ID
// answers it, `offset` our clock less the server's, `gen` counts the matches followed (a wait of an
// earlier one stops), `es` the event stream, `asides` the entries of its record between its positions
// (record.js: the refused attempts, refusals.js, and the umpire's controls),
// `lost` why the seat's token no longer works (seat.js: 'replaced', 'unknown'), or null.  `seat` is null
// on the umpire's view (no seat token in the address).
let match = null;
let matchGen = 0;
const NONE = Object.freeze([]);

export const following = () => match;
export const asides = () => (match ? match.asides : NONE);
export const attempts = () => asides().filter((a) => a.kind === 'illegal');
export const seatLost = () => (match ? match.lost : null);
// Is the match followed still the one of `gen` (nothing left or replaced it meanwhile)?
export const stillFollowing = (gen) => gen === matchGen && match !== null;

export function followMatch(want) {
  const gen = ++matchGen;
  lines++;
  const seat = want.token ? want.seat : null;
  match = Object.freeze({ id: want.id, seat, token: want.token, data: null, offset: 0, gen, es: null, asides: NONE, lost: null });
  line = Object.freeze({ ...line, history: freeze([]), main: null, branches: NONE });
  return gen;
}

// The match left: its stream closed, its players' names forgotten; false when none was followed.
export function leaveMatch() {
  if (!match) return false;
  matchGen++;
  lines++;
  if (match.es) match.es.close();
  match = null;
  line = Object.freeze({ ...line, names: null });
  return true;
}

const offsetOf = (data) => Date.now() - Date.parse(data.clock.now);

// The match as the server answered it, with its record: its game, options, players, positions and the
// entries between them (record.js asidesOf).  `toLatest`: the latest position is shown (else the one shown stays).
export function takeMatch(data, record, history, toLatest, between) {
  match = Object.freeze({ ...match, data: Object.freeze({ ...data }), offset: offsetOf(data), asides: freeze(between) });
  const players = Array.isArray(record.players) ? Object.freeze([...record.players]) : null; // the match's players, named everywhere
  const at = toLatest ? history.length - 1 : Math.min(line.at, history.length - 1); // a take-back shortens the line
  line = Object.freeze({ ...line, game: data.game, options: Object.freeze({ ...record.options }), names: players, history: freeze(history), at });
}

// The same position with the server's time moved on (or time given): only the clocks change.
export function takeClock(clock) {
  const data = Object.freeze({ ...match.data, clock });
  match = Object.freeze({ ...match, data, offset: offsetOf(data) });
}

// The seat's token no longer works (`why`: 'replaced' by the umpire, or 'unknown' to the match): no moves.
export function loseSeat(why) {
  match = Object.freeze({ ...match, lost: why });
}

// The event stream of the match of `gen`, or none (null); a stream for a match left is closed.
export function setStream(gen, es) {
  if (!stillFollowing(gen)) {
    if (es) es.close();
    return;
  }
  match = Object.freeze({ ...match, es });
}
