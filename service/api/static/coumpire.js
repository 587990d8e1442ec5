// Co-umpire links (issue 35: the umpire's controls from a second device, or for a second umpire): the
// match's own umpire makes one (POST /v1/matches/ID/umpires), sees it under the controls with Copy and
// Withdraw (DELETE .../umpires/N: it stops working at once), kept in this browser until withdrawn.
// The link carries its token after the `#` (a browser never sends it); the page that opens it keeps
// the token as the match's umpire token and takes it out of the address (match.js).

import { api, bearer, errorText } from './api.js';
import { $, copyText, el, sayBy } from './dom.js';
import { coLinks, ownUmpire, setCoLinks, umpireToken } from './links.js';
import { matchPath } from './match.js';
import * as store from './store.js';
import { say } from './verdicts.js';

const linkOf = (id, token) => `${location.origin}${location.pathname}#match=${encodeURIComponent(id)}&umpire=${encodeURIComponent(token)}`;

// The co-umpire links made here, each with Copy and Withdraw; none on a co-umpire's own page (it makes none).
export function showCoUmpires() {
  const m = store.following();
  const own = !!m && !!m.data && ownUmpire() && m.data.state.status !== 'finished';
  $('u-co').hidden = !own;
  if (!own) return;
  $('u-co-links').replaceChildren(...coLinks().map(({ link, token }) => {
    const href = linkOf(m.id, token);
    const copy = el('button', { type: 'button', class: 'u-copy', 'data-co-copy': link, onclick: async (ev) => {
      const button = ev.currentTarget;
      if (await copyText(href)) return sayBy(button, 'Copied');
      sayBy(button, 'Not copied: copy the link itself (right-click it, or press and hold)');
    } }, 'Copy');
    const withdraw = el('button', { type: 'button', 'data-co-withdraw': link, onclick: () => withdrawLink(link) }, 'Withdraw');
    return el('li', {}, el('a', { href, 'data-co-link': link, target: '_blank', rel: 'noopener' }, `Co-umpire link ${link}`), ' ', copy, ' ', withdraw);
  }));
}

async function makeLink() {
  const m = store.following();
  const token = umpireToken();
  if (!m || !token) return;
  const r = await api('POST', `${matchPath(m.id)}/umpires`, undefined, bearer(token));
  if (!r.ok) return say('bad', `No co-umpire link: ${errorText(r)}`);
  setCoLinks([...coLinks(), { link: r.data.link, token: r.data.token }]);
  showCoUmpires();
  say('info', `Co-umpire link ${r.data.link} is made: copy it and send it on. It opens these controls (all but the links) until you withdraw it.`);
}

async function withdrawLink(link) {
  const m = store.following();
  const token = umpireToken();
  if (!m || !token || !window.confirm(`Withdraw co-umpire link ${link}? It stops working at once.`)) return;
  const r = await api('DELETE', `${matchPath(m.id)}/umpires/${link}`, undefined, bearer(token));
  if (!r.ok && r.status !== 404) return say('bad', `The link is not withdrawn: ${errorText(r)}`); // 404: gone already
  setCoLinks(coLinks().filter((l) => l.link !== link));
  showCoUmpires();
  say('info', `Co-umpire link ${link} is withdrawn: it no longer works.`);
}

export function wireCoUmpires() {
  $('u-co-make').addEventListener('click', makeLink);
}
