// Leaving a seat's page while its match runs is asked first (issue 35: "Start a new game" left the
// match with one tap, and Back left the site with the seat link): the browser asks before the page
// is closed, reloaded or left for another address (beforeunload), and the page asks before it leaves
// the match itself (Leave, a new game, a paste, another match's link, Back to the desk).  The umpire's
// view and a seat whose match is over, or whose link was replaced, leave without a question.

import * as store from './store.js';

// Is this page a seat of a match that is still on (its clock running or waiting)?
export function seatRuns() {
  const m = store.following();
  return !!(m && m.seat !== null && !m.lost && m.data && m.data.state.status !== 'finished');
}

// May the page leave the seat's match now?  Asked when it runs.
export function mayLeave() {
  if (!seatRuns()) return true;
  const seat = store.following().seat;
  return window.confirm(`Leave your seat (${store.names()[seat]}) in this match? Its clock runs on without you. `
    + 'The link stays in this browser, under "Managed match", to come back.');
}

export function wireLeave() {
  window.addEventListener('beforeunload', (ev) => {
    if (!seatRuns()) return;
    ev.preventDefault(); // the browser's own question (it shows no text of ours)
    ev.returnValue = ''; // the older way to ask for it
  });
}
