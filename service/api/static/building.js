// The move being built, part of the store (store.js re-exports it): its steps, the cell of a wrong
// step, the legal next steps marked, the board as the steps leave it (the preview), and the choice a
// click's step carries (a colour).  Only the operations below change it; what they hand out is frozen.

import { shownKey } from './store.js';

let steps = Object.freeze({ prefix: Object.freeze([]), wrong: null, open: Object.freeze([]), preview: null });
let choice = null;

export const prefix = () => steps.prefix;
export const wrongCell = () => steps.wrong;
export const openSteps = () => steps.open;
export const choiceCode = () => choice;
// The preview of the move being built, while it is the move being built on the position shown.
const previewKey = () => `${shownKey()}|${steps.prefix.join('\n')}`;
export const previewState = () => (steps.preview && steps.preview.key === previewKey() ? steps.preview.state : null);

// The steps so far, all legal (the wrong cell's mark goes).
export function setPrefix(list) {
  steps = Object.freeze({ ...steps, prefix: Object.freeze([...list]), wrong: null });
}
export function clearMove() {
  steps = Object.freeze({ ...steps, prefix: Object.freeze([]), wrong: null });
}
export function markWrongCell(cell) {
  steps = Object.freeze({ ...steps, wrong: cell });
}
// The legal next steps the board marks (all of them, when "Show the legal moves" is on).
export function setOpenSteps(list) {
  steps = Object.freeze({ ...steps, open: Object.freeze([...list]) });
}
// The board as the steps so far leave it (legal-moves `preview`), for the move being built now.
export function setPreview(state) {
  steps = Object.freeze({ ...steps, preview: state ? Object.freeze({ key: previewKey(), state }) : null });
}
export function pickChoice(code) {
  choice = code;
}
