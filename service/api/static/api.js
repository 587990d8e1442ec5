// The API client: every request of the page goes through `api`, to the public API only (/docs), as
// any client would.  It counts the requests under way on body[data-busy] (the browser tests wait for
// none), and `errorText` says the one error shape of the API as a sentence.

let busy = 0;

function setBusy(delta) {
  busy += delta;
  document.body.dataset.busy = String(busy);
}

// The answer as {ok, status, data}: data is the JSON, a PNG's Blob, or the text.  A network failure is
// an answer as well (status 0, in the API's error shape).  `waiting` marks a long-poll, which does not
// count as the page being busy.
export async function api(method, path, body, headers, waiting) {
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

// A bearer token's header, for a seat's move or the umpire's controls.
export const bearer = (token) => ({ Authorization: `Bearer ${token}` });

export function errorText(r) {
  const e = r.data && r.data.error;
  if (!e) return `The server answered ${r.status}.`;
  const field = e.details && (e.details.field || e.details.parameter);
  return field ? `${e.message} (${field})` : e.message;
}
