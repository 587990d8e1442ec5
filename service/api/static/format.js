// Text made of values: a sentence of a game's hints with its {placeholders} filled, and a clock's
// time as h:mm:ss or m:ss.

export const fill = (text, values) => Object.entries(values).reduce((t, [k, v]) => t.split(`{${k}}`).join(v), text);

export function duration(seconds) {
  const s = Math.max(0, Math.floor(seconds + 1e-9));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = String(s % 60).padStart(2, '0');
  return h ? `${h}:${String(m).padStart(2, '0')}:${sec}` : `${m}:${sec}`;
}
