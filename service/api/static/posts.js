// Posts and records of the line shown: the forum post of the position (views/posts.py's formats), its
// picture saved as a PNG, and the record copied (the page's own text record, which "Paste a record"
// reads back, or another site's format the game writes).  Each belongs to the position it was made
// for, and goes when another is shown.

import { api, errorText } from './api.js';
import { $, copyText, sayBy } from './dom.js';
import { fillRecordFormats } from './paste.js';
import * as store from './store.js';
import { say } from './verdicts.js';

// The post, the PNG link and the record copied belong to the position they were made for: gone once
// another is shown (issue 22: the ply-1 post under the ply-2 board, one game's PNG link in another).
export function forgetShares() {
  const key = store.shownKey();
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

// The formats the game on the board writes (a match's by GET moves, the page's own game by POST export).
export function showExportFormats() {
  const sel = $('u-export-format');
  if (sel.dataset.game === store.game()) return;
  fillRecordFormats(sel, store.game(), "the umpire's text record");
  sel.dataset.game = store.game();
}

// Text shown in the post's box, for the position of `key`, and copied: false when the clipboard refused it.
async function hand(text, key) {
  const area = $('u-post');
  area.hidden = false;
  area.value = text;
  area.dataset.key = key;
  return copyText(text);
}

// The post of the position shown, in the format chosen (the API's: views/posts.py), its heading
// numbered by the position's own ply.
async function copyPost() {
  const h = store.position();
  const key = store.shownKey();
  const format = $('u-post-format').value;
  const m = store.following();
  let r;
  if (m) {
    const query = [store.plyQuery(store.at()), `format=${format}`, store.namesQuery()].filter(Boolean).join('&');
    r = await api('GET', `/v1/matches/${m.id}/post?${query}`);
  } else {
    r = await api('POST', `/v1/games/${store.game()}/post`, {
      state: h.state, before: h.before || undefined, events: h.events || [], move: h.move || undefined, format,
    });
  }
  if (!r.ok) return say('bad', errorText(r));
  if (key !== store.shownKey()) return; // another position is shown now
  const copied = await hand(r.data, key);
  if (!copied) $('u-post').select();
  sayBy($('u-copy-post'), copied ? 'Copied' : 'Not copied: select it below');
  say('info', copied ? 'The forum post is copied: paste it into the forum.' : 'Select the post below and copy it.');
}

async function savePng() {
  const link = $('u-png-link');
  const key = store.shownKey();
  const name = `${store.game()}-ply-${store.plyOf(store.at())}.png`;
  const m = store.following();
  if (m) {
    link.href = `/v1/matches/${m.id}/board.png?${store.plyQuery(store.at())}`;
  } else {
    const h = store.position();
    const r = await api('POST', `/v1/games/${store.game()}/render`, { state: h.state, events: h.events || [], format: 'png' });
    if (!r.ok) return say('bad', errorText(r));
    if (key !== store.shownKey()) return;
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
  const m = store.following();
  const game = store.game();
  const moves = store.positions().slice(1).map((h) => h.move);
  let text;
  if (m) {
    const id = encodeURIComponent(m.id);
    const r = await api('GET', format ? `/v1/matches/${id}/moves?format=${encodeURIComponent(format)}` : `/v1/matches/${id}/moves`);
    if (!r.ok) return say('bad', errorText(r));
    text = format ? r.data : r.data.text;
  } else if (format) { // the server writes it (POST export), as it writes a match's
    const r = await api('POST', `/v1/games/${game}/export`, { format, options: store.options(), moves });
    if (!r.ok) return say('bad', errorText(r));
    text = r.data;
  } else {
    text = [`[Game ${JSON.stringify(game)}]`, `[Options ${JSON.stringify(store.options())}]`, '',
      ...moves.map((move, i) => `${i + 1}. ${move}`)].join('\n') + '\n';
  }
  const copied = await hand(text, store.shownKey());
  sayBy($('u-export'), copied ? 'Copied' : 'Not copied: select it below');
  say('info', copied ? 'The record is copied.' : 'Select the record below and copy it.');
}

export function wirePosts() {
  $('u-copy-post').addEventListener('click', copyPost);
  $('u-save-png').addEventListener('click', savePng);
  $('u-export').addEventListener('click', exportRecord);
}
