// Live updates of the match followed: Server-Sent Events when the server has them
// (/v1/matches/ID/events), else long-polling (?wait_ply=N).  Whatever brings a change - an event, a
// poll's answer, the answer to the page's own move or control - ends in `changed`, which shows it.

import { api } from './api.js';
import { tick } from './clocks.js';
import { matchPath, takeMatch } from './match.js';
import * as store from './store.js';
import { moveToTakeBack, showUmpire } from './umpire.js';
import { say } from './verdicts.js';

const POLL_S = 25;
// A finished match answers a long poll at once; while the umpire may still take back the move that ended it
// (which reopens it), the page asks again this often.
const REOPEN_POLL_S = 5;
// The stream's events that carry the position after a change of it (API.md "Streams").
const CHANGES = ['move', 'pass', 'flag', 'resign', 'illegal', 'end', 'adjudicate'];
// The stream's events of the umpire's controls (service/matches/events.py, API.md "The umpire's controls"),
// a take-back among them.
const CONTROLS = ['start', 'pause', 'resume', 'add_time', 'token', 'add_umpire', 'remove_umpire', 'takeback'];

const sleep = (ms) => new Promise((ok) => setTimeout(ok, ms));

// Wait for the match of `gen` to change: Server-Sent Events if the server has them, else long-polling.
export function listen(gen) {
  if (!store.stillFollowing(gen)) return;
  const id = store.following().id;
  if (!window.EventSource) return poll(gen);
  let opened = false;
  const es = new EventSource(`${matchPath(id)}/events`);
  store.setStream(gen, es);
  es.onopen = () => { opened = true; };
  // An event's data, or null when it is not the match's (or the match followed is another now).
  const read = (ev) => {
    if (!store.stillFollowing(gen)) {
      es.close();
      return null;
    }
    try { return JSON.parse(ev.data); } catch (err) { return null; } // not a match: ignore it
  };
  // `state` is the match as GET answers it; every other event carries the position after it - ply,
  // state, clock - which is all the page reads.
  const after = (d) => ({ ...store.following().data, match_id: id, ply: d.ply, state: d.state, clock: d.clock });
  es.addEventListener('state', (ev) => {
    const d = read(ev);
    if (d) changed(d);
  });
  for (const type of CHANGES) {
    es.addEventListener(type, (ev) => {
      const d = read(ev);
      if (d) changed(after(d), type === 'illegal'); // a refused attempt leaves the position: its record entry is read
    });
  }
  // The umpire's controls of the clocks and the seats: the match after them, and the umpire's sentence
  // ("The umpire paused the clocks.") for every page that follows the match.
  for (const type of CONTROLS) {
    es.addEventListener(type, async (ev) => {
      const d = read(ev);
      if (!d) return;
      await changed(after(d), true); // the record has the control (listed in the history), a seat's new link says whose
      if (!store.stillFollowing(gen) || store.seatLost()) return; // a seat whose link this replaced has been told in its words
      if (Array.isArray(d.announcements) && d.announcements.length) say('info', d.announcements.join(' '));
    });
  }
  es.onerror = () => {
    if (opened && es.readyState !== EventSource.CLOSED) return; // it reconnects by itself
    es.close();
    if (!store.stillFollowing(gen)) return;
    store.setStream(gen, null);
    poll(gen);
  };
}

async function poll(gen) {
  while (store.stillFollowing(gen) && store.following().data) {
    const m = store.following();
    if (m.data.state.status === 'finished') {
      if (!moveToTakeBack(m)) return; // over for good
      await sleep(REOPEN_POLL_S * 1000);
      if (!store.stillFollowing(gen)) return;
      const r = await api('GET', matchPath(m.id), undefined, undefined, true);
      if (r.ok && store.stillFollowing(gen) && r.data.state.status !== 'finished') await changed(r.data, true); // reopened
      continue;
    }
    const started = Date.now();
    const r = await api('GET', `${matchPath(m.id)}?wait_ply=${m.data.ply}&timeout_s=${POLL_S}`, undefined, undefined, true);
    if (!store.stillFollowing(gen)) return;
    const before = store.following().data; // as it is now: the page's own move or control may have changed it meanwhile
    if (r.ok) {
      // Answered before its time with the same position: the record grew by what moves nothing (a refused
      // attempt, a seat's new link), which only the record says.
      await changed(r.data, Date.now() - started < (POLL_S - 1) * 1000);
      if (store.stillFollowing(gen)) sayClocks(before, r.data);
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
  else if (!was.paused && now.paused) {
    // the reason, when the umpire gave one, as the stream's announcement says it
    said.push(now.pause_reason ? `The umpire paused the clocks: ${now.pause_reason}.` : 'The clocks are paused: no moves until they resume.');
  }
  else if (was.paused && !now.paused) said.push('The clocks run again.');
  // Time given: with no move in between, a bank grows only by the umpire's hand.
  const who = store.names();
  for (const seat of [0, 1]) {
    const more = now.seats[seat].bank_s - was.seats[seat].bank_s;
    if (more > 0) said.push(`The umpire gave ${who[seat]} ${+more.toFixed(3)} s.`);
  }
  if (said.length) say('info', said.join(' '));
}

function signature(d) {
  return JSON.stringify([d.ply, d.state.status, d.clock.to_move, d.clock.deadline, d.clock.proxy, d.clock.started, d.clock.paused, d.state.board]);
}

// The match as the server says it is now: the same position with the time moved on (or time given)
// changes the clocks only, unless `record` says its record grew; anything else is read again with its
// record and shown.
export async function changed(data, record) {
  const m = store.following();
  if (!m || data.match_id !== m.id) return;
  if (!record && m.data && signature(m.data) === signature(data)) {
    store.takeClock(data.clock);
    tick(); // time given shows at once, not at the next tick
    showUmpire();
    return;
  }
  await takeMatch(data, false);
}
