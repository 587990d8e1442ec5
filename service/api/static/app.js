// The umpire's desk: set up a game, check or play moves, step through the
// history, copy the forum post, save the picture, and run managed matches.
// Plain JavaScript, no build step; it uses only the public API (/docs).
//
// The page knows no game: each game's names, move syntax, examples, how a
// click on a cell becomes a step and the words of its ends come from its
// `hints` in GET /v1/games (engine/games/<game>/hints.py), and the legal next
// steps of a move being built from legal-moves with a `prefix`.
//
// Two modes share one board.  Locally the page holds the positions itself
// and asks the stateless endpoints (/v1/games/...); in a match (the address
// ends in #match=ID, with &seat=N&token=T for a player) the server holds
// them and the page waits for changes: Server-Sent Events when the server
// has them (/v1/matches/ID/events), else long-polling (?wait_ply=N).
'use strict';

(() => {
  const $ = (id) => document.getElementById(id);
  // A record's entries that are not moves (engine/game.py RESERVED): replayed by the server.
  const RESERVED = ['timeout', 'resign', 'forfeit', 'abort', 'adjudicate'];
  const POLL_S = 25;
  // The stream's events of the umpire's controls (service/matches/events.py, API.md "The umpire's controls").
  const CONTROLS = ['start', 'pause', 'resume', 'add_time', 'token'];

  const desk = {
    games: {},     // name -> GET /v1/games description, with its `hints`
    game: null,    // the game on the board (the first of GET /v1/games at the start)
    choice: null,  // the choice a click's step carries (hints.click.choices: a colour), when the game has one
    options: {},   // the options the game was set up with (a match starts from them)
    history: [],   // positions: {state, before, move, events, announcements}; in a match, earlier ones may lack a state
    at: 0,         // the position shown
    main: null,    // on a branch: {history, from} - the main line kept, and the position the branch leaves it at
    line: 0,       // counts the lines shown (a new game, a branch): what was made for one line is not shown on another
    names: null,   // the players' names in a match that has them (else the game's own)
    prefix: [],    // the move being built, step by step
    wrong: null,   // the cell of the wrong step, marked on the board
    open: [],      // the legal next steps (when shown)
    preview: null, // {key, state}: the board as the steps so far leave it (legal-moves `preview`), for the move being built
    match: null,   // {id, seat, token, data, entries, gen, offset, es}
    thinking: false, // the computer is choosing a move (POST suggest): the board waits
  };
  let matchGen = 0;
  let busy = 0;

  // -- the API ---------------------------------------------------------------------------

  // A request; `waiting` marks a long-poll, which does not count as the page being busy (body[data-busy]).
  async function api(method, path, body, headers, waiting) {
    const init = { method, headers: Object.assign({}, headers || {}) };
    if (body !== undefined) {
      init.headers['Content-Type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    if (!waiting) setBusy(1);
    try {
      const resp = await fetch(path, init);
      const type = resp.headers.get('Content-Type') || '';
      let data;
      if (type.includes('json')) data = await resp.json();
      else if (type.startsWith('image/png')) data = await resp.blob();
      else data = await resp.text();
      return { ok: resp.ok, status: resp.status, data };
    } catch (err) {
      return { ok: false, status: 0, data: { error: { message: `The server cannot be reached (${err.message}).` } } };
    } finally {
      if (!waiting) setBusy(-1);
    }
  }

  function setBusy(delta) {
    busy += delta;
    document.body.dataset.busy = String(busy);
  }

  function errorText(r) {
    const e = r.data && r.data.error;
    if (!e) return `The server answered ${r.status}.`;
    const field = e.details && (e.details.field || e.details.parameter);
    return field ? `${e.message} (${field})` : e.message;
  }

  const sleep = (ms) => new Promise((ok) => setTimeout(ok, ms));

  // -- small helpers -----------------------------------------------------------------------

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === 'class') node.className = v;
      else if (k.startsWith('on')) node.addEventListener(k.slice(2), v);
      else if (v !== null && v !== undefined && v !== false) node.setAttribute(k, v === true ? '' : v);
    }
    for (const c of children) if (c !== null && c !== undefined) node.append(c);
    return node;
  }

  // The game's hints (engine/hints.py): everything the page knows about a game.
  function hints() { return desk.games[desk.game].hints; }
  // Each seat's name: the match's players where it names them, else the game's (the hints').
  function names() {
    const own = hints().players;
    return [0, 1].map((seat) => (desk.names && desk.names[seat]) || own[seat]);
  }
  // The names to send with a picture or a post: only when they are not the game's own.
  function namesToSend() { return desk.names && desk.names.some(Boolean) ? names() : undefined; }
  const fill = (text, values) => Object.entries(values).reduce((t, [k, v]) => t.split(`{${k}}`).join(v), text);

  function duration(seconds) {
    const s = Math.max(0, Math.floor(seconds + 1e-9));
    const h = Math.floor(s / 3600);
    const m = Math.floor((s % 3600) / 60);
    const sec = String(s % 60).padStart(2, '0');
    return h ? `${h}:${String(m).padStart(2, '0')}:${sec}` : `${m}:${sec}`;
  }

  // A typed move's steps as the engine counts them (error.step indexes them): each match of the game's step pattern.
  function stepsOf(text) {
    const re = new RegExp(hints().step_pattern, 'gi');
    return [...String(text).matchAll(re)].map((m) => m[0].trim()).filter(Boolean);
  }
  function joinSteps(steps) { return steps.join(hints().joiner); }
  // The cells on the board, by name.
  function boardCells() {
    return new Set([...document.querySelectorAll('#u-board [data-cell]')].map((g) => g.dataset.cell.toUpperCase()));
  }
  // The cell a step names: its last word that is a cell of the board (none for a word step: "swap", "C up 2").
  function cellOf(step, cells) {
    const known = cells || boardCells();
    const words = String(step || '').toUpperCase().split(/[\s,;]+/).reverse();
    return words.find((w) => known.has(w)) || null;
  }
  // The step a click on `cell` makes (hints.click.step), with the choice picked first when the step carries one.
  function clickStep(cell) {
    const click = hints().click;
    return click ? fill(click.step, { cell, choice: desk.choice || '' }) : null;
  }
  // Is `step` what a click on its cell makes, with some choice?  Such steps are taken on the board; others are offered as words.
  function byClick(step, cells) {
    const click = hints().click;
    const cell = cellOf(step, cells);
    if (!click || !cell) return false;
    const choices = click.choices.length ? click.choices.map((c) => c.code) : [''];
    return choices.some((choice) => fill(click.step, { cell, choice }).toUpperCase() === String(step).toUpperCase());
  }

  const latest = () => desk.history[desk.history.length - 1];
  const atLatest = () => desk.at === desk.history.length - 1;
  const isReserved = (move) => !!move && RESERVED.includes(String(move).split(/\s+/)[0].toLowerCase());

  // The position's own ply (its state's `ply`), the one number the page, the pictures and the posts give
  // (issue 22).  A match's earlier positions have no state here: counted back from the latest, where
  // an end without a move (a resignation, a flag that loses) kept the ply of the move before it.
  function plies() {
    const out = [];
    let ply = latest().state ? latest().state.ply : desk.history.length - 1;
    for (let j = desk.history.length - 1; j >= 0; j--) {
      const h = desk.history[j];
      if (h.state) ply = h.state.ply;
      out[j] = ply;
      const keeps = h.keeps !== undefined ? h.keeps : isReserved(h.move);
      if (j > 0 && !(desk.history[j - 1].state && h.state) && !keeps) ply--;
    }
    return out;
  }
  const plyOf = (i) => plies()[i];
  // A match's position as the pictures' `?ply=` names it: none for the latest (the server's latest).
  function plyQuery(i) { return i === desk.history.length - 1 ? '' : `ply=${plyOf(i)}`; }
  // What a post, a PNG link or a record copied belongs to: the game, the line, the position.
  function shownKey() { return `${desk.match ? desk.match.id : desk.game}|${desk.line}|${desk.at}`; }
  // The preview of the move being built, while it is the move being built on the position shown.
  const previewKey = () => `${shownKey()}|${desk.prefix.join('\n')}`;
  function previewState() { return desk.preview && desk.preview.key === previewKey() ? desk.preview.state : null; }

  // -- set-up ----------------------------------------------------------------------------------

  function buildOptionFields() {
    const box = $('u-options');
    box.replaceChildren();
    const game = desk.games[$('u-game').value];
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
    const game = desk.games[$('u-game').value];
    if (!game) return;
    for (const box of $('u-options').querySelectorAll('[data-only-with]')) box.hidden = !optionApplies(game, box.dataset.onlyWith);
  }

  // The form shows the game on the board, with the options it was set up with.
  function syncForm() {
    const sel = $('u-game');
    if (sel.value !== desk.game) {
      sel.value = desk.game;
      buildOptionFields();
    }
    for (const node of $('u-options').querySelectorAll('[data-option]')) {
      const value = desk.options[node.dataset.option];
      if (value === undefined) continue;
      if (node.tagName === 'FIELDSET') {
        for (const box of node.querySelectorAll('input')) box.checked = value.includes(box.value);
      } else if (node.type === 'checkbox') node.checked = !!value;
      else node.value = value;
    }
    showOptionFields();
  }

  // The options of the form that differ from the game's defaults.
  function readOptions() {
    const game = desk.games[$('u-game').value];
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

  async function newGame(game, options) {
    const r = await api('POST', `/v1/games/${game}/new`, { options });
    if (!r.ok) return say('bad', errorText(r));
    startFrom(game, options, [{ state: r.data.state, before: null, move: null, events: [], announcements: [] }]);
    say('info', `A new game of ${desk.games[game].title}.`);
  }

  // A new line on the board (a new game, a state, a record): nothing of the old one stays - the move
  // being built, its marks, the post, the PNG link, a branch (issue 22: "E5" carried into a new game).
  function startFrom(game, options, history) {
    desk.game = game;
    desk.options = options;
    desk.history = history;
    desk.at = history.length - 1;
    desk.main = null;
    desk.line++;
    desk.prefix = [];
    desk.wrong = null;
    $('u-move').value = '';
    syncForm();
    show().then(() => computerMove(false)); // the computer opens when its seat is first to move
  }

  // A position pasted: a state as the API gives it (JSON), or the text diagram a post prints, which the
  // server reads back for the game chosen under "New game" (POST import, format "diagram").
  async function loadState(text) {
    let data;
    try {
      data = JSON.parse(text);
    } catch (err) {
      return loadDiagram(text, err);
    }
    const state = data && data.state && typeof data.state === 'object' ? data.state : data; // a state, or an answer holding one
    if (!state || !desk.games[state.game]) return say('bad', 'A state is a JSON object with a "game" the server knows.');
    const r = await api('POST', `/v1/games/${state.game}/legal-moves`, { state, limit: 1 }); // the server checks the state
    if (!r.ok) return say('bad', `The state is not valid: ${errorText(r)}`);
    startFrom(state.game, state.options || {}, [{ state, before: null, move: null, events: [], announcements: [] }]);
    say('info', 'The state is loaded.');
  }

  async function loadDiagram(text, notJson) {
    const game = $('u-game').value;
    if (!((desk.games[game] || {}).records || []).some((f) => f.name === 'diagram')) {
      return say('bad', `That is not JSON (${notJson.message}), and a ${desk.games[game].title} diagram cannot be read back: paste a state.`);
    }
    const seat = $('u-state-to-move').value;
    const body = { format: 'diagram', text, options: readOptions() };
    if (seat !== '') body.to_move = Number(seat);
    const r = await api('POST', `/v1/games/${game}/import`, body);
    if (!r.ok) return say('bad', `The diagram cannot be read: ${errorText(r)}`);
    const made = await api('POST', `/v1/games/${game}/new`, { options: r.data.options });
    if (!made.ok) return say('bad', `The position cannot be set up: ${errorText(made)}`);
    startFrom(game, r.data.options, [{ state: made.data.state, before: null, move: null, events: [], announcements: [] }]);
    say('info', `The diagram is read: a ${desk.games[game].title} position, ply ${made.data.state.ply}.`);
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

  // The record formats of other sites a game reads and writes (GET /v1/games `records`), in a select;
  // the first choice is the page's own text record.  A position's diagram is no record: "Paste a state" reads it.
  function fillRecordFormats(sel, game, own) {
    const was = sel.value;
    sel.replaceChildren(el('option', { value: '' }, own));
    for (const f of (desk.games[game] || {}).records || []) {
      if (f.name !== 'diagram') sel.append(el('option', { value: f.name }, f.title));
    }
    sel.value = [...sel.options].some((o) => o.value === was) ? was : '';
  }

  async function replayRecord(text) {
    const format = $('u-record-format').value;
    let rec;
    if (format) { // another site's record (Little Golem's...): the server reads it into options and moves
      const game = $('u-game').value;
      const r = await api('POST', `/v1/games/${game}/import`, { text, format });
      if (!r.ok) return say('bad', `The record cannot be read: ${errorText(r)}`);
      rec = { game, options: r.data.options, moves: r.data.moves };
    } else {
      try {
        rec = parseRecord(text);
      } catch (err) {
        return say('bad', err.message);
      }
    }
    const game = rec.game || $('u-game').value;
    if (!desk.games[game]) return say('bad', `There is no game called ${rec.game}.`);
    const options = rec.options || (rec.game ? {} : readOptions());
    const r = await api('POST', `/v1/games/${game}/new`, { options });
    if (!r.ok) return say('bad', `The record's options: ${errorText(r)}`);
    const history = [{ state: r.data.state, before: null, move: null, events: [], announcements: [] }];
    desk.game = game;
    for (let i = 0; i < rec.moves.length; i++) {
      const move = rec.moves[i];
      const before = history[history.length - 1].state;
      let v;
      if (RESERVED.includes(move.split(/\s+/)[0].toLowerCase())) {
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
    sayLegal(latest(), `The record replays: ${rec.moves.length} ${rec.moves.length === 1 ? 'move' : 'moves'}.`);
  }

  // -- showing a position --------------------------------------------------------------------

  // The post, the PNG link and the record copied belong to the position they were made for: gone once
  // another is shown (issue 22: the ply-1 post under the ply-2 board, one game's PNG link in another).
  function forgetShares() {
    const key = shownKey();
    const area = $('u-post');
    if (area.dataset.key !== key) {
      area.value = '';
      area.hidden = true;
      delete area.dataset.key;
    }
    const link = $('u-png-link');
    if (link.dataset.key !== key) {
      if (link.dataset.url) URL.revokeObjectURL(link.dataset.url);
      delete link.dataset.url;
      delete link.dataset.key;
      link.removeAttribute('href');
      link.removeAttribute('download');
      link.textContent = '';
      link.hidden = true;
    }
  }

  async function show() {
    forgetShares();
    const h = desk.history[desk.at];
    const coords = $('u-coords').checked;
    const preview = desk.match && !atLatest() ? null : previewState(); // a move under way: the board as its steps leave it
    let r;
    if (desk.match && !atLatest()) {
      const query = [plyQuery(desk.at), coords ? 'coords=true' : '', namesToSend() ? `names=${encodeURIComponent(names().map((n) => n.replace(/,/g, ' ')).join(','))}` : '']
        .filter(Boolean).join('&');
      r = await api('GET', `/v1/matches/${desk.match.id}/board.svg?${query}`);
    } else {
      r = await api('POST', `/v1/games/${desk.game}/render`, {
        state: preview || h.state, events: preview ? [] : h.events || [], format: 'svg', coords, names: namesToSend(),
      });
    }
    if (!r.ok) return say('bad', `The board cannot be drawn: ${errorText(r)}`);
    const board = $('u-board');
    board.innerHTML = r.data;
    const svg = board.querySelector('svg');
    if (svg) {
      svg.setAttribute('role', 'group');
      svg.setAttribute('aria-label', `Board, ${desk.games[desk.game].title}, ply ${plyOf(desk.at)}${preview ? ', the move so far' : ''}`);
    }
    board.dataset.preview = preview ? '1' : '0';
    $('u-preview').hidden = !preview;
    fitBoard();
    if ($('u-board').dataset.game !== desk.game) showHints();
    decorateCells(preview || h.state);
    const examples = hints().examples;
    $('u-move').placeholder = examples[Math.min(desk.at, examples.length - 1)];
    showTurn();
    showHistory();
    if ($('u-clock-preset').dataset.game !== desk.game) fillPresets(); // the presets of the game on the board
    // The formats the game writes (a match's by GET moves, the page's own game by POST export).
    if ($('u-export-format').dataset.game !== desk.game) {
      fillRecordFormats($('u-export-format'), desk.game, "the umpire's text record");
      $('u-export-format').dataset.game = desk.game;
    }
    await refreshSteps();
  }

  // What the game's hints say about the way it is played: the move syntax, how cells are clicked,
  // and the choice a click's step carries (a colour), built once per game.
  function showHints() {
    const h = hints();
    const click = h.click;
    $('u-board').dataset.game = desk.game;
    $('u-syntax').textContent = `${h.syntax} For example: ${h.examples.join(' · ')}`;
    $('u-state-text').placeholder = `{"game": "${desk.game}", "version": 1, ...}`;
    $('u-record-text').placeholder = h.examples.map((m, i) => `${i + 1}. ${m}`).join('\n');
    h.players.forEach((name, seat) => {
      $(`u-name-${seat}`).placeholder = name;
      $('u-state-to-move').options[seat + 1].textContent = name;
    });
    fillRecordFormats($('u-record-format'), $('u-game').value, "the umpire's text record");
    const box = $('u-choice');
    box.replaceChildren();
    box.hidden = !click || !click.choices.length;
    if (!click) {
      $('u-board-help').textContent = `${desk.games[desk.game].title}: a move here is made of words, not cells. `
        + 'Pick its steps under "Play or check", or type the move.';
      return;
    }
    let help = 'Click a cell, or focus it (Tab, then the arrow keys) and press Enter, to add it to the move; '
      + 'a move that cannot go on is played at once.';
    if (click.choices.length) {
      if (!click.choices.some((c) => c.code === desk.choice)) desk.choice = click.choices[0].code;
      box.append(el('legend', {}, click.label));
      for (const c of click.choices) {
        const input = el('input', { type: 'radio', name: 'u-choice', value: c.code, checked: c.code === desk.choice,
          onchange: () => { desk.choice = c.code; markCells(); } });
        box.append(el('label', { class: 'u-choice-item' }, input, el('span', { class: 'u-swatch', style: `--u-swatch: ${c.colour}` }), c.name));
      }
      const keys = click.choices.map((c) => c.code).join(', ');
      help = `Pick the ${click.label.toLowerCase()} (or press ${keys} on the board), then click a cell, or focus it `
        + '(Tab, then the arrow keys) and press Enter; a move that cannot go on is played at once.';
    }
    $('u-board-help').textContent = help;
  }

  function pickChoice(code) {
    desk.choice = code;
    for (const input of document.querySelectorAll('#u-choice input')) input.checked = input.value === code;
    markCells();
  }

  // What is on a cell, in the game's words: a board is an object of cells, or a list of rows of one symbol a column.
  function cellContent(state, cell) {
    if (!state) return '';
    const board = state.board;
    const h = hints();
    let value;
    if (Array.isArray(board)) {
      value = (board[Number(cell.slice(1)) - 1] || '')[cell.toUpperCase().charCodeAt(0) - 65];
      if (value === undefined) return '';
    } else {
      value = board ? board[cell] : undefined;
      if (value === undefined) return h.empty;
    }
    return h.board_words[String(value)] || String(value);
  }

  // On a small screen a big board's cells would be below a fingertip's size (side 10: 17 px wide on a phone):
  // the board is then drawn wider than the screen, and scrolls sideways in its card.
  const MIN_CELL_PX = 30;
  function fitBoard() {
    const svg = $('u-board').querySelector('svg');
    if (!svg) return;
    svg.style.minWidth = '';
    const shape = $('u-board').querySelector('[data-cell] > :first-child');
    if (!shape) return;
    const cell = shape.getBoundingClientRect().width;
    const board = svg.getBoundingClientRect().width;
    if (cell > 0 && cell < MIN_CELL_PX) svg.style.minWidth = `${Math.ceil((board * MIN_CELL_PX) / cell)}px`;
  }

  // Each cell says its name: on hover (its title), and under the board while it has the focus.
  function decorateCells(state) {
    const cells = [...document.querySelectorAll('#u-board [data-cell]')];
    const clickable = !!hints().click; // a game whose steps are words does not take cells
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
      g.addEventListener('click', () => { focusCell(g); addStep(clickStep(cell), true); });
      g.addEventListener('keydown', (ev) => cellKey(ev, g));
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

  // Arrow keys move between cells (to the nearest cell that way); Enter or Space takes the cell.
  function cellKey(ev, g) {
    if (ev.key === 'Enter' || ev.key === ' ') {
      ev.preventDefault();
      addStep(clickStep(g.dataset.cell), true);
      return;
    }
    const choice = (hints().click.choices || []).find((c) => c.code.toUpperCase() === ev.key.toUpperCase());
    if (choice) {
      ev.preventDefault();
      pickChoice(choice.code);
      return;
    }
    const dirs = { ArrowRight: [1, 0], ArrowLeft: [-1, 0], ArrowDown: [0, 1], ArrowUp: [0, -1] };
    const d = dirs[ev.key];
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
  function markCells() {
    const cells = boardCells();
    const picked = new Set(desk.prefix.map((s) => cellOf(s, cells)).filter(Boolean));
    const open = new Set();
    for (const s of desk.open) {
      const cell = cellOf(s, cells);
      if (cell && (!hints().click || clickStep(cell).toUpperCase() === s.toUpperCase())) open.add(cell);
    }
    for (const g of document.querySelectorAll('#u-board [data-cell]')) {
      const cell = g.dataset.cell;
      g.classList.toggle('u-picked', picked.has(cell));
      g.classList.toggle('u-open', open.has(cell) && !picked.has(cell));
      g.classList.toggle('u-wrong', desk.wrong === cell);
    }
  }

  function showTurn() {
    const h = desk.history[desk.at];
    const who = names();
    let text;
    let seat = null;
    if (!h.state) text = `Position after move ${desk.at}.`;
    else if (h.state.status === 'finished') {
      const w = h.state.winner;
      const said = hints().ends[h.state.end] || {};
      const sentence = w === null ? said.drawn : said.won && fill(said.won, { winner: who[w] });
      text = `The game is over. ${sentence || `It ended by ${h.state.end}${w === null ? '' : `: ${who[w]} wins`}.`}`;
      seat = w;
    } else {
      const s = h.state;
      seat = s.to_move;
      const notes = [];
      for (const [field, words] of Object.entries(hints().turn_notes)) {
        if (s[field] === undefined || s[field] === null) continue;
        const value = String(s[field]);
        const note = words[value] !== undefined ? words[value] : words['*'];
        if (note) notes.push(fill(note, { value }));
      }
      text = `${who[s.to_move]} to move${notes.length ? `: ${notes.join(', ')}` : ''} (ply ${s.ply}).`;
    }
    const colours = hints().colours;
    $('u-turn').style.setProperty('--u-swatch', colours && seat !== null ? colours[seat] : 'transparent');
    $('u-turn').classList.toggle('u-has-swatch', !!colours && seat !== null);
    if (!atLatest()) {
      text += ' You are looking at an earlier position.';
      if (!desk.match && h.state && h.state.status !== 'finished') text += ' A move played here starts a branch; the line shown is kept.';
    }
    $('u-turn').textContent = text;
    showComputer();
    const m = desk.match;
    const canMove = mayMove();
    $('u-move').disabled = !canMove;
    $('u-play-button').disabled = !canMove;
    const watching = !!m && m.seat === null; // the umpire's view of a match: nothing to play
    $('u-move-form').hidden = watching;
    $('u-show-legal').parentElement.hidden = watching;
    if (m && m.data) {
      const s = m.data.state;
      const seatName = m.seat === null ? null : who[m.seat];
      let line = m.seat === null ? (umpireToken() && s.status !== 'finished' ? "Umpire's view, with the umpire's controls." : "Umpire's view: read only.") : `You are seat ${m.seat} (${seatName}).`;
      const clk = m.data.clock;
      const firstMove = clk.started === false && clk.start === 'first_move'; // the clocks start with the first move
      if (s.status === 'finished') line += ' The match is over.';
      else if (clk.started === false && !firstMove) line += ' The clocks wait for the start.';
      else if (clk.paused) line += ' The umpire has paused the clocks.';
      else if (m.seat !== null && clk.may_move !== m.seat) line += ` Waiting for ${who[1 - m.seat]}…`;
      else if (m.seat !== null) line += firstMove ? ' Your move: the clocks start with it.' : ' Your move.';
      else if (firstMove) line += ' The clocks start with the first move.';
      $('u-seat').textContent = line;
    }
  }

  // Locally a move may be played on any position: on an earlier one it starts a branch (the main line
  // is kept).  In a match only on the latest, by the seat whose turn it is.
  function mayMove() {
    const h = desk.history[desk.at];
    if (desk.thinking || !h || !h.state || h.state.status === 'finished') return false;
    const m = desk.match;
    if (!m) return true;
    // While the clocks are paused or wait for the start the move may still be built and sent: the server
    // takes it (clock.start first_move) or says why not (409 paused, not_started), and the page shows its sentence.
    return atLatest() && m.seat !== null && m.data && m.data.clock.may_move === m.seat;
  }

  // The moves, each numbered by the ply it reaches (an end without a move, such as a resignation,
  // reaches none); on a branch, the branch's own moves are marked.
  function showHistory() {
    const list = $('u-moves');
    const ply = plies();
    const from = desk.main ? desk.main.from : Infinity;
    list.replaceChildren();
    desk.history.forEach((h, i) => {
      let label;
      if (i === 0) label = ply[0] ? `start (ply ${ply[0]})` : 'start';
      else label = ply[i] === ply[i - 1] ? h.move : `${ply[i]}. ${h.move}`;
      const b = el('button', { type: 'button', 'aria-current': i === desk.at ? 'true' : 'false', onclick: () => goTo(i) }, label);
      list.append(el('li', { class: i > from ? 'u-branch-move' : null }, b));
    });
    const current = list.querySelector('[aria-current="true"]');
    if (current) { // the list scrolls to the move shown; the page does not (on a phone it would leave the board)
      const li = current.parentElement;
      if (li.offsetTop < list.scrollTop) list.scrollTop = li.offsetTop;
      else if (li.offsetTop + li.offsetHeight > list.scrollTop + list.clientHeight) list.scrollTop = li.offsetTop + li.offsetHeight - list.clientHeight;
    }
    const moves = desk.history.length - 1;
    $('u-ply').textContent = `ply ${ply[desk.at]} · move ${desk.at} of ${moves}`;
    $('u-first').disabled = $('u-back').disabled = desk.at === 0;
    $('u-last').disabled = $('u-forward').disabled = atLatest();
    const branch = $('u-branch');
    branch.hidden = !desk.main;
    if (desk.main) {
      const own = moves - desk.main.from;
      const main = desk.main.history.length - 1;
      $('u-branch-text').textContent = `A branch from ply ${ply[desk.main.from]} (move ${desk.main.from}): `
        + `${own} ${own === 1 ? 'move' : 'moves'} of its own. The main line, ${main} ${main === 1 ? 'move' : 'moves'}, is kept.`;
    }
    const takeBack = $('u-take-back');
    takeBack.hidden = !!desk.match;
    takeBack.disabled = !!desk.match || desk.thinking || !atLatest() || moves === 0;
  }

  // Back to the main line, where the branch left it (the branch is dropped).
  async function mainLine() {
    if (!desk.main) return;
    const { history, from } = desk.main;
    desk.history = history;
    desk.at = from;
    desk.main = null;
    desk.line++;
    desk.prefix = [];
    desk.wrong = null;
    $('u-move').value = '';
    await show();
    say('info', 'Back on the main line, where the branch left it.');
  }

  // The last move of the line shown is taken back (before it is posted): a branch with no move left
  // is the main line again.
  async function takeBack() {
    if (desk.match || desk.thinking || !atLatest() || desk.history.length < 2) return;
    const gone = latest();
    desk.history = desk.history.slice(0, -1);
    desk.at = desk.history.length - 1;
    desk.line++;
    if (desk.main && desk.at === desk.main.from) {
      desk.history = desk.main.history;
      desk.main = null;
    }
    desk.prefix = [];
    desk.wrong = null;
    $('u-move').value = '';
    await show();
    say('info', `${gone.move} is taken back.`);
  }

  async function goTo(i) {
    if (i < 0 || i >= desk.history.length || i === desk.at) return;
    desk.at = i;
    desk.prefix = [];
    desk.wrong = null;
    $('u-move').value = '';
    await show();
    const h = desk.history[i];
    if (desk.match && !h.announcements) h.announcements = await matchAnnouncements(plyQuery(i));
    if (i > 0) sayLegal(h, `Move ${i}: ${h.move}`);
    else say('info', 'The starting position.');
  }

  // -- verdicts ------------------------------------------------------------------------------

  function say(kind, text) {
    const box = $('u-verdict');
    box.replaceChildren(el('div', { class: `u-${kind}` }, el('p', {}, text)));
  }

  function sayLegal(h, head) {
    const items = (h.announcements || []).map((s) => el('li', {}, s));
    const box = $('u-verdict');
    box.replaceChildren(el('div', { class: 'u-ok' }, el('p', {}, el('strong', {}, head)), items.length ? el('ul', {}, ...items) : null));
  }

  function sayIllegal(error, head) {
    const rule = error.rule ? el('span', { class: 'u-rule' }, ` (${error.rule})`) : null;
    $('u-verdict').replaceChildren(el('div', { class: 'u-bad' },
      el('p', {}, el('strong', {}, `${head || 'Illegal'}: `), error.message, rule)));
  }

  // The cell of the step an error names.  A move that stopped early (one whose piece "must still eat") names
  // the step it lacks, after the last one typed: the last step typed is marked, where it stopped.
  function markWrong(move, error) {
    const steps = stepsOf(move);
    const at = error && error.step !== undefined && error.step !== null ? Math.min(error.step, steps.length - 1) : -1;
    desk.wrong = at >= 0 ? cellOf(steps[at]) : null;
    markCells();
  }

  // -- building and playing a move -------------------------------------------------------------

  // A step added to the move being built; a cell clicked again right after it (`fromBoard`) takes it back.
  async function addStep(step, fromBoard) {
    if (!mayMove()) {
      say('info', desk.match && atLatest() ? 'It is not your move.' : 'Go to the latest position to play.');
      return;
    }
    const last = desk.prefix[desk.prefix.length - 1];
    const again = fromBoard && last && last.toUpperCase() === step.toUpperCase();
    const prefix = again ? desk.prefix.slice(0, -1) : [...desk.prefix, step];
    const r = await api('POST', `/v1/games/${desk.game}/legal-moves`, { state: desk.history[desk.at].state, prefix });
    if (!r.ok) return say('bad', errorText(r));
    if (r.data.error) {
      desk.wrong = cellOf(step);
      markCells();
      return sayIllegal(r.data.error, `${step} cannot come next`);
    }
    desk.prefix = r.data.prefix;
    desk.wrong = null;
    $('u-move').value = joinSteps(desk.prefix);
    if (r.data.complete && r.data.count === 0) return play(r.data.move); // the move cannot go on: it is played
    desk.preview = r.data.preview ? { key: previewKey(), state: r.data.preview } : null;
    if (desk.preview || $('u-board').dataset.preview === '1') await show(); // the board as the steps so far leave it
    applySteps(r.data);
    if (desk.prefix.length) {
      say('info', r.data.complete
        ? `${r.data.move} may be played now (Play, or Enter), or go on.`
        : `${joinSteps(desk.prefix)}: the move goes on.`);
    }
  }

  async function refreshSteps() {
    desk.open = [];
    // Always asked: a step no click makes (a word such as "swap") is offered under the move box.
    if (!mayMove()) {
      $('u-legal').hidden = true;
      markCells();
      return;
    }
    const r = await api('POST', `/v1/games/${desk.game}/legal-moves`, { state: desk.history[desk.at].state, prefix: desk.prefix });
    if (r.ok && !r.data.error) applySteps(r.data);
  }

  // The legal next steps as buttons: all of them when asked ("Show the legal moves"), else only the steps
  // no click on a cell makes (a game's words: "swap", a draft's colours, a shift), which are picked here.
  function applySteps(steps) {
    const cells = boardCells();
    const all = $('u-show-legal').checked;
    const words = steps.steps.filter((s) => !byClick(s, cells));
    const listed = all ? steps.steps : words;
    const show = all || words.length > 0;
    desk.open = all ? steps.steps : [];
    markCells();
    $('u-legal').hidden = !show;
    if (!show) return;
    const box = $('u-steps');
    box.replaceChildren();
    if (steps.complete) {
      box.append(el('button', { type: 'button', class: 'u-done', onclick: () => play(steps.move) }, `Play ${steps.move}`));
    }
    for (const s of listed) box.append(el('button', { type: 'button', onclick: () => addStep(s) }, s));
    const count = steps.count;
    const after = desk.prefix.length ? `After ${joinSteps(desk.prefix)}: ` : '';
    if (listed.length < count) {
      const what = `a cell on the board, or ${listed.length === 1 ? 'this step' : 'one of these steps'}:`;
      $('u-legal-head').textContent = after ? after + what : what.charAt(0).toUpperCase() + what.slice(1);
    } else {
      $('u-legal-head').textContent = desk.prefix.length
        ? `${after}${count} legal next ${count === 1 ? 'step' : 'steps'}.`
        : `${count} legal first ${count === 1 ? 'step' : 'steps'}.`;
    }
  }

  // `byComputer`: the computer's move (POST suggest), played as a person's is; after a person's move the
  // computer answers when it is its turn.
  async function play(text, byComputer) {
    text = (text || '').trim();
    if (!text) return say('info', 'Type a move, or click the cells of one.');
    if (desk.thinking && !byComputer) return say('info', 'The computer is thinking…');
    if (!byComputer && !mayMove()) return say('info', desk.match ? 'It is not your move.' : 'Go to the latest position to play.');
    if (desk.match) return playInMatch(text);
    const line = desk.line;
    const before = desk.history[desk.at].state;
    const r = await api('POST', `/v1/games/${desk.game}/play`, { state: before, move: text });
    if (line !== desk.line) return; // another line is on the board now
    if (!r.ok) return say('bad', errorText(r));
    const v = r.data;
    if (!v.legal) {
      desk.prefix = [];
      markWrong(text, v.error);
      return sayIllegal(v.error, `${text} is illegal`);
    }
    if (!atLatest()) { // a branch: the line it leaves is kept (the main line, where a branch is replaced)
      if (!desk.main) desk.main = { history: desk.history, from: desk.at };
      else if (desk.at < desk.main.from) desk.main.from = desk.at;
      desk.line++;
    }
    desk.history = desk.history.slice(0, desk.at + 1);
    desk.history.push({ state: v.state, before, move: v.move, events: v.events, announcements: v.announcements });
    desk.at = desk.history.length - 1;
    desk.prefix = [];
    desk.wrong = null;
    $('u-move').value = '';
    await show();
    sayLegal(latest(), byComputer ? `The computer (${byComputer}) plays ${v.move}` : `Legal: ${v.move}`);
    if (!byComputer) await computerMove(false);
  }

  // -- the computer opponent (POST /v1/games/{game}/suggest) --------------------------------------

  // The strength chosen: a built-in bot and its budget (`mcts:0.5`), or null when the computer is off.
  function computer() {
    const value = $('u-bot').value;
    if (!value) return null;
    const [bot, seconds] = value.split(':');
    return { bot, budget_s: seconds ? Number(seconds) : null, label: $('u-bot').selectedOptions[0].textContent };
  }

  // The seats to choose from, by the game's names; hidden in a match (the server's seats play there).
  function showComputer() {
    $('u-computer').hidden = !!desk.match;
    const sel = $('u-bot-seat');
    const who = names();
    if (sel.dataset.game !== desk.game) {
      const was = sel.value || '1';
      sel.replaceChildren(...who.map((name, seat) => el('option', { value: String(seat) }, name)));
      sel.value = was;
      sel.dataset.game = desk.game;
    }
    $('u-bot-move').disabled = desk.thinking || !computer() || !atLatest() || !latest().state || latest().state.status === 'finished';
  }

  // The computer moves when it is on and its seat is to move (`now`: whoever is to move).
  async function computerMove(now) {
    const c = computer();
    const h = latest();
    if (desk.match || desk.thinking || !c || !atLatest() || !h.state || h.state.status === 'finished') return;
    if (!now && h.state.to_move !== Number($('u-bot-seat').value)) return;
    desk.thinking = true;
    document.body.dataset.thinking = '1';
    showTurn();
    say('info', `The computer (${c.label}) is thinking…`);
    const body = { state: h.state, bot: c.bot };
    if (c.budget_s) body.budget_s = c.budget_s;
    let r;
    try {
      r = await api('POST', `/v1/games/${desk.game}/suggest`, body);
    } finally {
      desk.thinking = false;
      document.body.dataset.thinking = '0';
    }
    if (latest().state !== h.state) { // the position changed meanwhile (a new game): forget the move, answer the new one
      showTurn();
      return computerMove(false);
    }
    if (!r.ok) {
      showTurn();
      return say('bad', `The computer could not move: ${errorText(r)} Press "Computer, move now" to ask again.`);
    }
    await play(r.data.move, c.label);
  }

  async function clearMove() {
    desk.prefix = [];
    desk.wrong = null;
    $('u-move').value = '';
    $('u-verdict').replaceChildren();
    if ($('u-board').dataset.preview === '1') await show(); // the board as it is, without the steps taken back
    else await refreshSteps();
  }

  // -- the forum post and the picture -------------------------------------------------------------

  // Text to the clipboard: the Clipboard API where the page may use it, else a selection copied the old
  // way; false when neither worked (the text is then shown to be copied by hand).
  async function copyText(text) {
    try {
      await navigator.clipboard.writeText(text);
      return true;
    } catch (err) {
      const area = el('textarea', { class: 'u-offscreen', readonly: true });
      area.value = text;
      document.body.append(area);
      area.select();
      try { return document.execCommand('copy'); } catch (e) { return false; } finally { area.remove(); }
    }
  }

  // The post of the position shown, in the format chosen (the API's: views/posts.py), its heading
  // numbered by the position's own ply.
  async function copyPost() {
    const h = desk.history[desk.at];
    const key = shownKey();
    const format = $('u-post-format').value;
    let r;
    if (desk.match) {
      const query = [plyQuery(desk.at), `format=${format}`, namesToSend() ? `names=${encodeURIComponent(names().map((n) => n.replace(/,/g, ' ')).join(','))}` : '']
        .filter(Boolean).join('&');
      r = await api('GET', `/v1/matches/${desk.match.id}/post?${query}`);
    } else {
      r = await api('POST', `/v1/games/${desk.game}/post`, {
        state: h.state, before: h.before || undefined, events: h.events || [], move: h.move || undefined, format,
      });
    }
    if (!r.ok) return say('bad', errorText(r));
    if (key !== shownKey()) return; // another position is shown now
    const area = $('u-post');
    area.hidden = false;
    area.value = r.data;
    area.dataset.key = key;
    const copied = await copyText(r.data);
    if (!copied) area.select();
    say('info', copied ? 'The forum post is copied: paste it into the forum.' : 'Select the post below and copy it.');
  }

  async function savePng() {
    const link = $('u-png-link');
    const key = shownKey();
    const name = `${desk.game}-ply-${plyOf(desk.at)}.png`;
    if (desk.match) {
      link.href = `/v1/matches/${desk.match.id}/board.png?${plyQuery(desk.at)}`;
    } else {
      const h = desk.history[desk.at];
      const r = await api('POST', `/v1/games/${desk.game}/render`, { state: h.state, events: h.events || [], format: 'png' });
      if (!r.ok) return say('bad', errorText(r));
      if (key !== shownKey()) return;
      if (link.dataset.url) URL.revokeObjectURL(link.dataset.url);
      link.href = link.dataset.url = URL.createObjectURL(r.data);
    }
    link.dataset.key = key;
    link.download = name;
    link.textContent = `Download ${name}`;
    link.hidden = false;
    link.click();
    say('info', `The picture is saved as ${name}.`);
  }

  // The record of the line shown, copied: the page's own text record (which "Paste a record" reads back),
  // or another site's format the game writes (a match's, from the server).
  async function exportRecord() {
    const format = $('u-export-format').value;
    let text;
    if (desk.match) {
      const id = encodeURIComponent(desk.match.id);
      const r = await api('GET', format ? `/v1/matches/${id}/moves?format=${encodeURIComponent(format)}` : `/v1/matches/${id}/moves`);
      if (!r.ok) return say('bad', errorText(r));
      text = format ? r.data : r.data.text;
    } else if (format) { // the server writes it (POST export), as it writes a match's
      const moves = desk.history.slice(1).map((h) => h.move);
      const r = await api('POST', `/v1/games/${desk.game}/export`, { format, options: desk.options, moves });
      if (!r.ok) return say('bad', errorText(r));
      text = r.data;
    } else {
      const moves = desk.history.slice(1).map((h) => h.move);
      text = [`[Game ${JSON.stringify(desk.game)}]`, `[Options ${JSON.stringify(desk.options)}]`, '',
        ...moves.map((m, i) => `${i + 1}. ${m}`)].join('\n') + '\n';
    }
    const area = $('u-post');
    area.hidden = false;
    area.value = text;
    area.dataset.key = shownKey();
    const copied = await copyText(text);
    say('info', copied ? 'The record is copied.' : 'Select the record below and copy it.');
  }

  // -- managed matches -------------------------------------------------------------------------------

  function fillPresets() {
    const sel = $('u-clock-preset');
    const game = desk.games[desk.game];
    sel.dataset.game = desk.game;
    sel.replaceChildren();
    for (const [name, p] of Object.entries(game.presets)) {
      sel.append(el('option', { value: name, selected: name === game.default_preset },
        `${name}: turn ${duration(p.turn_s)}, bank ${duration(p.bank_s)}`));
    }
    sel.append(el('option', { value: 'custom' }, 'custom…'));
    $('u-custom-clock').hidden = sel.value !== 'custom';
  }

  // The seat links of the matches this browser created, kept (localStorage: this origin only, never in a
  // URL a server logs) until the umpire dismisses them, so that leaving for a match, or closing the tab,
  // loses none (issue 22).  The newest first.
  const KEPT = 'umpire-desk.matches';
  function keptMatches() {
    try {
      const kept = JSON.parse(localStorage.getItem(KEPT) || '[]');
      return Array.isArray(kept) ? kept.filter((k) => k && typeof k.id === 'string' && Array.isArray(k.seats)) : [];
    } catch (err) {
      return [];
    }
  }
  function keepMatches(kept) {
    try { localStorage.setItem(KEPT, JSON.stringify(kept)); } catch (err) { /* storage off: the links show until the page is left */ }
    showKept(kept);
  }

  function showKept(kept) {
    const box = $('u-kept');
    box.replaceChildren();
    $('u-links').hidden = !kept.length;
    const base = `${location.origin}${location.pathname}#match=`;
    for (const k of kept) {
      const at = `${base}${encodeURIComponent(k.id)}`;
      const links = [
        ...k.seats.map((token, seat) => ({ href: `${at}&seat=${seat}&token=${encodeURIComponent(token)}`, text: `Seat ${seat} (${k.names[seat]})`, seat: String(seat) })),
        // The umpire's token stays in this browser (never in a link): the view opened here has the controls.
        { href: at, text: k.umpire ? "Umpire's view (controls here, read only elsewhere)" : "Umpire's view (read only)", seat: 'umpire' },
      ];
      const items = links.map((l) => {
        // The umpire's view opens in a tab of its own: this one keeps the desk (and the links).
        const a = l.seat === 'umpire'
          ? el('a', { href: l.href, 'data-seat': l.seat, target: '_blank', rel: 'noopener' }, l.text)
          : el('a', { href: l.href, 'data-seat': l.seat }, l.text);
        const copy = el('button', { type: 'button', class: 'u-copy', 'data-copy': l.seat, 'aria-label': `Copy the link: ${l.text}`,
          onclick: async () => say('info', (await copyText(l.href)) ? `The link of ${l.text} is copied.` : `Copy the link by hand: ${l.href}`) }, 'Copy');
        // A seat whose link was lost or leaked gets a new one (the match's umpire token): the old one stops at once.
        const renew = l.seat !== 'umpire' && k.umpire
          ? el('button', { type: 'button', class: 'u-copy', 'data-reissue': l.seat, 'aria-label': `A new link for ${l.text}`,
            onclick: () => reissue(k.id, Number(l.seat)) }, 'New link')
          : null;
        return el('li', {}, a, ' ', copy, renew ? ' ' : null, renew);
      });
      const dismiss = el('button', { type: 'button', class: 'u-dismiss', onclick: () => {
        if (!window.confirm('Forget these links? A seat whose link is lost can no longer move.')) return;
        keepMatches(keptMatches().filter((other) => other.id !== k.id));
      } }, 'Dismiss');
      box.append(el('div', { class: 'u-kept', 'data-match': k.id },
        el('p', {}, el('strong', {}, `${k.title}: ${k.names[0]} – ${k.names[1]}`), ` · ${k.created}`),
        el('ul', {}, ...items), dismiss));
    }
  }

  async function reissue(id, seat) {
    const kept = keptMatches();
    const k = kept.find((other) => other.id === id);
    if (!k || !window.confirm(`A new link for seat ${seat} (${k.names[seat]})? The old link stops working at once.`)) return;
    const r = await api('POST', `/v1/matches/${encodeURIComponent(id)}/seats/${seat}/token`, undefined, { Authorization: `Bearer ${k.umpire}` });
    if (!r.ok) return say('bad', `No new link: ${errorText(r)}`);
    k.seats[seat] = r.data.token;
    keepMatches(kept);
    say('info', `Seat ${seat} (${k.names[seat]}) has a new link; the old one no longer works. Copy it and send it on.`);
  }

  // The umpire's token of the match shown: kept in this browser beside its seat links (never in a URL), used
  // only on the umpire's view (no seat's token in the address): a seat's page never shows the controls.
  function umpireToken() {
    const m = desk.match;
    if (!m || m.seat !== null) return null;
    const k = keptMatches().find((other) => other.id === m.id);
    return k && typeof k.umpire === 'string' ? k.umpire : null;
  }

  // The controls as the match's clocks allow them now (a refusal still comes back as the server's sentence).
  function showUmpire() {
    const m = desk.match;
    const token = umpireToken();
    const on = !!(m && m.data && token && m.data.state.status !== 'finished');
    $('u-umpire').hidden = !on;
    if (!on) return;
    const c = m.data.clock;
    // Only the control the clocks' state allows is offered: Start before the start, then Pause or Resume.
    $('u-start-clock').hidden = c.started !== false;
    $('u-pause').hidden = c.started === false || !!c.paused;
    $('u-resume').hidden = !c.paused;
    const who = names();
    const fillSelect = (sel, choices) => {
      const was = sel.value;
      sel.replaceChildren(...choices.map(([value, label]) => el('option', { value }, label)));
      if (choices.some(([value]) => value === was)) sel.value = was;
    };
    fillSelect($('u-add-seat'), [0, 1].map((seat) => [String(seat), who[seat]]));
    fillSelect($('u-adj-winner'), [['0', `${who[0]} wins`], ['1', `${who[1]} wins`], ['draw', 'a draw']]);
  }

  // One of the umpire's controls (POST /v1/matches/ID/<action>, the umpire's token as bearer): the match as
  // it answers, and the umpire's sentence; a refusal (409 paused, 410 finished...) as the server says it.
  async function control(action, body, question, done) {
    const m = desk.match;
    const token = umpireToken();
    if (!m || !token) return;
    if (question && !window.confirm(question)) return;
    const r = await api('POST', `/v1/matches/${encodeURIComponent(m.id)}/${action}`, body, { Authorization: `Bearer ${token}` });
    if (!r.ok) return say('bad', errorText(r));
    const { events, announcements, legal, move, error, ...data } = r.data;
    if (data.state && data.clock) await changed({ ...m.data, ...data });
    say('info', announcements && announcements.length ? announcements.join(' ') : done);
  }

  function wireUmpire() {
    $('u-start-clock').addEventListener('click', () => control('start', undefined, null, 'The clocks are started.'));
    $('u-pause').addEventListener('click', () => control('pause', undefined, null, 'The clocks are paused.'));
    $('u-resume').addEventListener('click', () => control('resume', undefined, null, 'The clocks run again.'));
    $('u-add-time').addEventListener('submit', (ev) => {
      ev.preventDefault();
      const seat = Number($('u-add-seat').value);
      control('add-time', { seat, seconds: Number($('u-add-s').value) }, null, `${names()[seat]} has more time.`);
    });
    $('u-adjudicate').addEventListener('submit', (ev) => {
      ev.preventDefault();
      const choice = $('u-adj-winner').value;
      const winner = choice === 'draw' ? null : Number(choice);
      const result = winner === null ? 'a draw' : `${names()[winner]} wins`;
      const reason = $('u-adj-reason').value.trim();
      control('adjudicate', { winner, reason }, `End the match now: ${result} (${reason || 'no reason given'})? This cannot be undone.`,
        `The umpire adjudicated: ${result} (${reason}).`);
    });
    $('u-abort').addEventListener('click', () => control('abort', undefined,
      'Abort the match? It ends at once with no result, and cannot be resumed.', 'The umpire aborted the match.'));
  }

  async function createMatch() {
    const preset = $('u-clock-preset').value;
    const clock = preset === 'custom' ? { turn_s: Number($('u-turn-s').value), bank_s: Number($('u-bank-s').value) } : { preset };
    clock.start = $('u-clock-start').value; // when the clocks start: the umpire's start (the page's default), the first move, at once
    const typed = [0, 1].map((seat) => $(`u-name-${seat}`).value.trim());
    const body = { game: desk.game, options: desk.options, clock };
    if (typed.some(Boolean)) body.players = typed.map((n) => n || null);
    // A channel the server posts every change to.  Whether the server may post there (its WEBHOOK_ALLOW) only
    // it knows: a refusal is its 422, shown as its sentence, and no match is made.
    const hook = $('u-hook-url').value.trim();
    if (hook) body.webhooks = [{ url: hook, format: $('u-hook-format').value }];
    const r = await api('POST', '/v1/matches', body);
    // Said twice: in the verdict, and beside the form's button, where the umpire looks.
    $('u-match-said').textContent = r.ok ? '' : `No match: ${errorText(r)}`;
    $('u-match-said').hidden = r.ok;
    if (!r.ok) return say('bad', `No match: ${errorText(r)}`);
    const own = hints().players;
    const kept = keptMatches().filter((k) => k.id !== r.data.match_id);
    kept.unshift({
      id: r.data.match_id,
      title: desk.games[desk.game].title,
      names: typed.map((n, seat) => n || own[seat]),
      seats: [r.data.seats['0'], r.data.seats['1']],
      umpire: r.data.umpire || null, // the match's umpire token: a seat's new link (and the umpire's controls)
      created: new Date().toLocaleString(),
    });
    keepMatches(kept);
    const start = { umpire: " The clocks wait for the umpire's start (the umpire's view).", first_move: ' The clocks start at the first move.' }[clock.start] || '';
    say('info', `The match is created: open a seat link here, and send the other to the opponent. The links are kept below until you dismiss them.${start}`);
  }

  function readHash() {
    const p = new URLSearchParams(location.hash.slice(1));
    const id = p.get('match');
    if (!id) return null;
    const seat = p.get('seat');
    return { id, seat: seat === '0' || seat === '1' ? Number(seat) : null, token: p.get('token') };
  }

  async function onHash() {
    const want = readHash();
    const m = desk.match;
    if (want && m && want.id === m.id && want.seat === m.seat && want.token === m.token) return;
    leaveMatch(false);
    if (want) await enterMatch(want);
  }

  async function enterMatch(want) {
    const gen = ++matchGen;
    desk.line++;
    desk.main = null;
    desk.match = { id: want.id, seat: want.token ? want.seat : null, token: want.token, data: null, entries: [], gen, offset: 0 };
    desk.history = [];
    $('u-match-bar').hidden = false;
    $('u-leave').hidden = false;
    $('u-match-form').hidden = true;
    const r = await api('GET', `/v1/matches/${encodeURIComponent(want.id)}`);
    if (gen !== matchGen) return;
    if (!r.ok) {
      say('bad', `The match cannot be read: ${errorText(r)}`);
      leaveMatch(false);
      return;
    }
    await takeMatch(r.data, true);
    wait(gen);
  }

  function leaveMatch(resetHash) {
    const m = desk.match;
    if (!m) return;
    matchGen++;
    desk.line++;
    if (m.es) m.es.close();
    desk.match = null;
    desk.names = null;
    $('u-match-bar').hidden = true;
    $('u-umpire').hidden = true;
    $('u-resign').hidden = true;
    $('u-leave').hidden = true;
    $('u-match-form').hidden = false;
    if (resetHash) history.replaceState(null, '', location.pathname);
    if (!desk.history.length || !desk.history[desk.history.length - 1].state) newGame(desk.game, desk.options);
  }

  // Replayable entries of the record, as the server counts plies (service/matches/referee.py record_moves):
  // a flag that only opened R-X6's window, and an illegal attempt refused, changed nothing.
  function recordStep(e) {
    if (e.kind === 'move') return e.move;
    if (e.kind === 'flag') return e.proxy ? null : 'timeout';
    if (e.kind === 'pass') return e.move || 'timeout';
    if (e.kind === 'illegal') return e.forfeit ? `forfeit ${e.seat}` : null;
    if (e.kind === 'abort') return 'abort';
    if (e.kind === 'resign') return `resign ${e.seat}`;
    if (e.kind === 'adjudicate') return `adjudicate ${e.winner === null || e.winner === undefined ? 'draw' : e.winner}`;
    return null; // the umpire's controls of the clocks (start, pause, resume, add time) change no position
  }

  async function takeMatch(data, first) {
    const m = desk.match;
    const gen = m.gen;
    const rec = await api('GET', `/v1/matches/${encodeURIComponent(m.id)}/moves`);
    if (gen !== matchGen || !rec.ok) return;
    m.data = data;
    m.offset = Date.now() - Date.parse(data.clock.now);
    desk.game = data.game;
    desk.options = rec.data.options;
    desk.names = Array.isArray(rec.data.players) ? rec.data.players : null; // the match's players, named everywhere
    const steps = rec.data.moves.map((e) => [recordStep(e), e]).filter(([s]) => s !== null);
    const wasLatest = first || atLatest();
    const known = desk.history;
    desk.history = [{ state: steps.length ? null : data.state, move: null, events: [] }];
    steps.forEach(([move, e], i) => {
      const old = known[i + 1];
      // A move, or a pass of R-X6, moves the ply on; a flag that loses, a resignation, a forfeit, an abort end the game on it.
      const keeps = e.kind !== 'move' && e.kind !== 'pass';
      desk.history.push({ state: null, move, keeps, events: e.events, announcements: old && old.move === move ? old.announcements : null });
    });
    const last = latest();
    last.state = data.state;
    const grew = desk.history.length !== known.length;
    if (wasLatest) desk.at = desk.history.length - 1;
    $('u-resign').hidden = m.seat === null || data.state.status === 'finished';
    syncForm();
    if (grew || first) {
      desk.prefix = [];
      desk.wrong = null;
      $('u-move').value = '';
    }
    await show();
    tick();
    showUmpire();
    if (desk.at > 0 && atLatest() && (grew || first)) {
      last.announcements = last.announcements || (await matchAnnouncements(plyQuery(desk.at)));
      if (gen === matchGen) sayLegal(last, `Move ${desk.at}: ${last.move}`);
    } else if (first && data.clock.started === false) {
      say('info', data.clock.start === 'first_move' ? 'The clocks start with the first move: no time runs yet.' : 'The clocks wait for the start: no time runs yet.');
    }
    else if (first) say('info', 'The match has not started: the first move is awaited.');
  }

  // The announcements of a match's position: the list at the top of its forum post.
  async function matchAnnouncements(query) {
    const r = await api('GET', `/v1/matches/${encodeURIComponent(desk.match.id)}/post?${query}`);
    if (!r.ok) return [];
    const out = [];
    for (const line of r.data.split('\n').slice(2)) {
      if (!line.startsWith('- ')) break;
      out.push(line.slice(2).replace(/\\(.)/g, '$1'));
    }
    return out;
  }

  // Wait for the match to change: Server-Sent Events if the server has them, else long-polling.
  function wait(gen) {
    const m = desk.match;
    if (!window.EventSource) return poll(gen);
    let opened = false;
    const es = new EventSource(`/v1/matches/${encodeURIComponent(m.id)}/events`);
    m.es = es;
    es.onopen = () => { opened = true; };
    // `state` is the match as GET answers it; every other event (API.md "Streams") carries
    // the position after it - ply, state, clock - which is all the page reads.
    const onEvent = (ev) => {
      if (gen !== matchGen) return es.close();
      let d;
      try { d = JSON.parse(ev.data); } catch (err) { return; } // not a match: ignore it
      if (ev.type !== 'state') d = { ...desk.match.data, match_id: m.id, ply: d.ply, state: d.state, clock: d.clock };
      changed(d);
    };
    for (const type of ['state', 'move', 'pass', 'flag', 'resign', 'illegal', 'end', 'adjudicate']) es.addEventListener(type, onEvent);
    // The umpire's controls of the clocks and the seats: the match after them, and the umpire's sentence
    // ("The umpire paused the clocks.") for every page that follows the match.
    for (const type of CONTROLS) {
      es.addEventListener(type, async (ev) => {
        if (gen !== matchGen) return es.close();
        let d;
        try { d = JSON.parse(ev.data); } catch (err) { return; }
        await changed({ ...desk.match.data, match_id: m.id, ply: d.ply, state: d.state, clock: d.clock });
        if (gen === matchGen && Array.isArray(d.announcements) && d.announcements.length) say('info', d.announcements.join(' '));
      });
    }
    es.onerror = () => {
      if (opened && es.readyState !== EventSource.CLOSED) return; // it reconnects by itself
      es.close();
      if (m.es === es) m.es = null;
      if (gen === matchGen) poll(gen);
    };
  }

  async function poll(gen) {
    while (gen === matchGen && desk.match && desk.match.data) {
      const m = desk.match;
      if (m.data.state.status === 'finished') return;
      const started = Date.now();
      const r = await api('GET', `/v1/matches/${encodeURIComponent(m.id)}?wait_ply=${m.data.ply}&timeout_s=${POLL_S}`, undefined, undefined, true);
      if (gen !== matchGen) return;
      const before = { ...m.data }; // its clock as it was: changed() may put the new one on m.data itself
      if (r.ok) {
        await changed(r.data);
        if (gen === matchGen) sayClocks(before, r.data);
      } else await sleep(2000);
      if (Date.now() - started < 200) await sleep(300); // answered at once without a change: never spin
    }
  }

  // A long poll brings the match, not the stream's announcements: what the umpire did to the clocks
  // (with no move in between) is said from the clocks themselves.
  function sayClocks(before, after) {
    if (after.ply !== before.ply || after.state.status === 'finished') return;
    const was = before.clock;
    const now = after.clock;
    const said = [];
    if (was.started === false && now.started) said.push('The clocks have started.');
    else if (!was.paused && now.paused) said.push('The clocks are paused: no moves until they resume.');
    else if (was.paused && !now.paused) said.push('The clocks run again.');
    // Time given: with no move in between, a bank grows only by the umpire's hand.
    const who = names();
    for (const seat of [0, 1]) {
      const more = now.seats[seat].bank_s - was.seats[seat].bank_s;
      if (more > 0) said.push(`The umpire gave ${who[seat]} ${+more.toFixed(3)} s.`);
    }
    if (said.length) say('info', said.join(' '));
  }

  function signature(d) {
    return JSON.stringify([d.ply, d.state.status, d.clock.to_move, d.clock.deadline, d.clock.proxy, d.clock.started, d.clock.paused, d.state.board]);
  }

  async function changed(data) {
    const m = desk.match;
    if (!m || data.match_id !== m.id) return;
    if (m.data && signature(m.data) === signature(data)) {
      m.data.clock = data.clock; // the same position: only the server's time moved on
      m.offset = Date.now() - Date.parse(data.clock.now);
      tick(); // time given shows at once, not at the next tick
      showUmpire();
      return;
    }
    await takeMatch(data, false);
  }

  async function playInMatch(text) {
    const m = desk.match;
    const headers = { Authorization: `Bearer ${m.token}` };
    const r = await api('POST', `/v1/matches/${encodeURIComponent(m.id)}/moves`, { move: text, ply: m.data.ply }, headers);
    if (r.status === 422 && r.data.legal === false) {
      desk.prefix = [];
      markWrong(text, r.data.error);
      return sayIllegal(r.data.error, `${text} is illegal`);
    }
    if (!r.ok) {
      say('bad', errorText(r));
      const again = await api('GET', `/v1/matches/${encodeURIComponent(m.id)}`);
      if (again.ok) await changed(again.data);
      return;
    }
    desk.prefix = [];
    $('u-move').value = '';
    const { legal, move, events, error, ...data } = r.data; // the verdict's match fields
    await changed(data);
  }

  async function resign() {
    const m = desk.match;
    if (!m || !window.confirm('Resign this match?')) return;
    const r = await api('POST', `/v1/matches/${encodeURIComponent(m.id)}/resign`, undefined, { Authorization: `Bearer ${m.token}` });
    if (!r.ok) return say('bad', errorText(r));
    const { events, ...data } = r.data;
    await changed(data);
  }

  // Both clocks, counted down between the server's answers (its "now" against ours).
  function tick() {
    const m = desk.match;
    if (!m || !m.data) return;
    const clock = m.data.clock;
    const state = m.data.state;
    const who = names();
    for (const seat of [0, 1]) {
      const box = $(`u-clock-${seat}`);
      const one = clock.seats[String(seat)];
      const name = box.querySelector('.u-clock-name');
      name.textContent = `${who[seat]}${m.seat === seat ? ' (you)' : ''}`;
      const colours = hints().colours;
      name.classList.toggle('u-has-swatch', !!colours);
      name.style.setProperty('--u-swatch', colours ? colours[seat] : 'transparent');
      let text = `bank ${duration(one.bank_s)}`;
      let running = false;
      let left = null;
      const waiting = clock.to_move === seat && state.status !== 'finished' && (clock.started === false || !!clock.paused);
      if (clock.to_move === seat && one.deadline) {
        running = true;
        left = (Date.parse(one.deadline) - (Date.now() - m.offset)) / 1000;
        if (clock.proxy) text = `out of time: ${who[1 - seat]} may move for them, ${duration(left)} more (R-X6)`;
        else text = `turn ${duration(Math.max(0, left - one.bank_s))} left · bank ${duration(Math.min(one.bank_s, Math.max(0, left)))}`;
      } else if (waiting && !clock.proxy) {
        // No deadline: the turn stands still at what the server says is left (a whole turn before the start).
        const have = one.remaining_s;
        const still = `turn ${duration(Math.max(0, have - one.bank_s))} left · bank ${duration(Math.min(one.bank_s, Math.max(0, have)))}`;
        const why = clock.started !== false ? 'paused' : clock.start === 'first_move' ? 'starts with the first move' : 'waiting for the start';
        text = `${why} · ${still}`;
      }
      const fell = (state.end === 'flag' && state.winner === 1 - seat) || (clock.proxy && clock.to_move === seat) || (left !== null && left <= 0);
      box.querySelector('.u-clock-time').textContent = text;
      box.querySelector('.u-flag').hidden = !fell;
      box.classList.toggle('u-running', running && state.status !== 'finished');
      box.classList.toggle('u-waiting', waiting);
      box.classList.toggle('u-low', left !== null && left < 10);
    }
  }

  // -- wiring ---------------------------------------------------------------------------------------

  function selectTab(tab) {
    for (const t of document.querySelectorAll('[role="tab"]')) {
      const on = t === tab;
      t.setAttribute('aria-selected', String(on));
      t.tabIndex = on ? 0 : -1;
      $(t.getAttribute('aria-controls')).hidden = !on;
    }
  }

  function wire() {
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
    $('u-game').addEventListener('change', () => {
      buildOptionFields();
      fillRecordFormats($('u-record-format'), $('u-game').value, "the umpire's text record");
    });
    $('u-new').addEventListener('submit', (ev) => {
      ev.preventDefault();
      leaveMatch(true);
      newGame($('u-game').value, readOptions());
    });
    $('u-state').addEventListener('submit', (ev) => {
      ev.preventDefault();
      leaveMatch(true);
      loadState($('u-state-text').value);
    });
    $('u-record').addEventListener('submit', (ev) => {
      ev.preventDefault();
      leaveMatch(true);
      replayRecord($('u-record-text').value);
    });
    $('u-move-form').addEventListener('submit', (ev) => {
      ev.preventDefault();
      play($('u-move').value);
    });
    $('u-move').addEventListener('input', () => {
      desk.prefix = [];
      desk.wrong = null;
      if ($('u-board').dataset.preview === '1') show(); // typing starts the move afresh: no preview of the steps clicked
      else markCells();
    });
    $('u-clear').addEventListener('click', clearMove);
    $('u-show-legal').addEventListener('change', refreshSteps);
    $('u-first').addEventListener('click', () => goTo(0));
    $('u-back').addEventListener('click', () => goTo(desk.at - 1));
    $('u-forward').addEventListener('click', () => goTo(desk.at + 1));
    $('u-last').addEventListener('click', () => goTo(desk.history.length - 1));
    $('u-copy-post').addEventListener('click', copyPost);
    $('u-export').addEventListener('click', exportRecord);
    $('u-coords').addEventListener('change', () => show());
    $('u-main-line').addEventListener('click', mainLine);
    $('u-take-back').addEventListener('click', takeBack);
    window.addEventListener('resize', fitBoard);
    // On a narrow screen the verdict of a click sits right under the board, not a screen further down
    // under the move box (issue 22); the same element, moved.
    const narrow = window.matchMedia('(max-width: 40rem)');
    const placeVerdict = () => {
      if (narrow.matches) $('u-board').after($('u-verdict'));
      else $('u-computer').after($('u-verdict'));
    };
    narrow.addEventListener('change', placeVerdict);
    placeVerdict();
    $('u-save-png').addEventListener('click', savePng);
    $('u-clock-preset').addEventListener('change', () => { $('u-custom-clock').hidden = $('u-clock-preset').value !== 'custom'; });
    $('u-match-form').addEventListener('submit', (ev) => { ev.preventDefault(); createMatch(); });
    $('u-resign').addEventListener('click', resign);
    $('u-bot').addEventListener('change', () => { showComputer(); computerMove(false); });
    $('u-bot-seat').addEventListener('change', () => computerMove(false));
    $('u-bot-move').addEventListener('click', () => computerMove(true));
    $('u-leave').addEventListener('click', () => leaveMatch(true));
    wireUmpire();
    window.addEventListener('hashchange', onHash);
    setInterval(tick, 250);
  }

  async function init() {
    setBusy(0);
    wire();
    const r = await api('GET', '/v1/games');
    if (!r.ok) return say('bad', `The games cannot be listed: ${errorText(r)}`);
    const sel = $('u-game');
    for (const g of r.data.games) {
      desk.games[g.name] = g;
      sel.append(el('option', { value: g.name }, g.title));
    }
    desk.game = r.data.games[0].name;
    sel.value = desk.game;
    buildOptionFields();
    showKept(keptMatches());
    const want = readHash();
    if (want) await enterMatch(want);
    else await newGame(desk.game, {});
    document.body.dataset.ready = '1';
  }

  init();
})();
