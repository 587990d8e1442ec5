// The webhooks' deliveries on the umpire's view (issue 35: a host wants to see that the channel gets
// the posts): GET /v1/matches/ID/webhooks with the match's umpire token - each webhook's format and
// host (never its URL), the changes posted, given up and waiting, and its last failure - read when the
// match changes and every few seconds while posts wait, and after the end until none waits.

import { api, bearer } from './api.js';
import { $, el } from './dom.js';
import { umpireToken } from './links.js';
import * as store from './store.js';
import { umpireRefused } from './umpire.js';

const EVERY_MS = 4000;
const FORMATS = { discord: 'Discord', slack: 'Slack', json: 'JSON' };

let reading = null; // the match (its `gen`) whose deliveries are being read, so that one loop reads them

// A failure, in words: which change, what the receiver answered, and whether the change was given up.
function failure(f) {
  const answer = f.status === null ? `no answer (${f.error})` : `answered ${f.status}${f.error ? ` (${f.error})` : ''}`;
  const end = f.gave_up ? `given up after try ${f.attempt}` : `try ${f.attempt}, to be tried again`;
  return `Change ${f.seq} (ply ${f.ply}): ${answer}; ${end}.`;
}

function render(hooks) {
  const box = $('u-deliveries');
  box.hidden = !hooks.length;
  box.replaceChildren(el('p', { class: 'u-deliveries-head' }, 'Posts to the channel'), ...hooks.map((h) => {
    const counts = `${h.delivered} posted, ${h.failed} given up, ${h.pending} waiting.`;
    const trouble = h.failed > 0 || !!h.last_error;
    return el('div', { class: trouble ? 'u-delivery u-trouble' : 'u-delivery', 'data-host': h.host },
      el('p', {}, el('strong', {}, `${FORMATS[h.format] || h.format} webhook at ${h.host}: `), counts),
      h.last_error ? el('p', {}, `Last failure: ${failure(h.last_error)}`) : null);
  }));
}

// Read now, and again every few seconds while this view follows the match with its umpire's token and
// something may still change (the match runs, or posts wait).
export async function showDeliveries() {
  const m = store.following();
  const token = umpireToken();
  if (!m || !token) {
    $('u-deliveries').hidden = true;
    return;
  }
  const r = await api('GET', `/v1/matches/${encodeURIComponent(m.id)}/webhooks`, undefined, bearer(token), true);
  if (!store.stillFollowing(m.gen)) return;
  if (r.status === 401) return umpireRefused(token); // the view's first read with the token: a link withdrawn is found as it opens
  if (!r.ok) return;
  render(r.data.webhooks);
  const more = r.data.webhooks.length && (m.data.state.status !== 'finished' || r.data.webhooks.some((h) => h.pending > 0));
  if (more && reading !== m.gen) {
    reading = m.gen;
    setTimeout(() => {
      reading = null;
      if (store.stillFollowing(m.gen)) showDeliveries();
    }, EVERY_MS);
  }
}
