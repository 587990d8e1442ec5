// The match's two clocks, counted down between the server's answers (its "now" against ours), four
// times a second: each seat's turn and bank, a clock waiting (for the start, paused), a fallen flag,
// and R-X6's window when a seat is out of time; and said to a screen reader as a turn runs low.

import { $ } from './dom.js';
import { duration } from './format.js';
import * as store from './store.js';

export function tick() {
  const m = store.following();
  if (!m || !m.data) return;
  const clock = m.data.clock;
  const state = m.data.state;
  const who = store.names();
  const colours = store.hints().colours;
  for (const seat of [0, 1]) {
    const box = $(`u-clock-${seat}`);
    const one = clock.seats[String(seat)];
    const name = box.querySelector('.u-clock-name');
    name.textContent = `${who[seat]}${m.seat === seat ? ' (you)' : ''}`;
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
    if (running && !clock.proxy && state.status !== 'finished') announce(`${seat}|${one.deadline}|${clock.turn_started}`, left, one.bank_s, who[seat], m.seat === seat);
    const fell = (state.end === 'flag' && state.winner === 1 - seat) || (clock.proxy && clock.to_move === seat) || (left !== null && left <= 0);
    box.querySelector('.u-clock-time').textContent = text;
    box.querySelector('.u-flag').hidden = !fell;
    box.classList.toggle('u-running', running && state.status !== 'finished');
    box.classList.toggle('u-waiting', waiting);
    box.classList.toggle('u-low', left !== null && left < 10);
  }
}

// The clocks said to a screen reader as a turn runs low (issue 35), in a live region of their own, once
// each: when the turn's own time is up and the bank runs, and at a minute, 30 and 10 seconds before
// the flag.  Not every second (the clocks' text is aria-live off), and nothing already passed when the
// page first saw the turn (a page opened with 20 s left says the 10 s, not the minute).
const BEFORE_FLAG_S = [60, 30, 10];
let heard = { key: null, passed: new Set() };

function announce(key, left, bank, name, mine) {
  const marks = [...BEFORE_FLAG_S.filter((s) => left <= s).map((s) => `flag-${s}`), ...(bank > 0 && left <= bank ? ['bank'] : [])];
  if (heard.key !== key) { // a new turn (or one given time): what has already passed is not said
    heard = { key, passed: new Set(marks) };
    return;
  }
  const fresh = marks.filter((mark) => !heard.passed.has(mark));
  if (!fresh.length) return;
  fresh.forEach((mark) => heard.passed.add(mark));
  const who = mine ? `${name} (you)` : name;
  const flag = fresh.filter((mark) => mark.startsWith('flag-')).map((mark) => Number(mark.slice(5)));
  const said = flag.length
    ? `${who}: ${Math.min(...flag)} seconds left before the flag.` // the mark crossed, whenever the tick came
    : `${who}: the turn's time is up; the bank runs, ${duration(bank)} left.`;
  $('u-clock-said').textContent = said;
}

export function startClocks() {
  setInterval(tick, 250);
}
