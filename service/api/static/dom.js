// The page's own small DOM helpers: an element by its id, an element built with its attributes and
// children, text put on the clipboard, and a word said by the button that did something.

export const $ = (id) => document.getElementById(id);

// `attrs`: `class`, listeners (`onclick`...), and attributes (true: present, false or null: absent).
export function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === 'class') node.className = v;
    else if (k.startsWith('on')) node.addEventListener(k.slice(2), v);
    else if (v !== null && v !== undefined && v !== false) node.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children) if (c !== null && c !== undefined) node.append(c);
  return node;
}

// Text to the clipboard: the Clipboard API where the page may use it, else a selection copied the old
// way; false when neither worked (the text is then shown to be copied by hand).
export async function copyText(text) {
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

// A word said right by the button pressed ("Copied"), for a while: where the eye is, not in the verdict
// a screen away (issue 35).  A status region, filled once it is in the page (so that it is read out).
export function sayBy(button, text) {
  let note = button.nextElementSibling;
  if (!note || !note.classList.contains('u-said-by')) {
    note = el('span', { class: 'u-said-by', role: 'status' });
    button.after(note);
  }
  clearTimeout(Number(note.dataset.timer));
  requestAnimationFrame(() => { note.textContent = text; });
  note.dataset.timer = String(setTimeout(() => note.remove(), 8000));
}
