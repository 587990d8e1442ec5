// Compiled by tests/test_clients.py with `tsc --strict --noEmit` against the types
// openapi-typescript generates from openapi.yaml (written to umpire.d.ts beside this
// file in a temporary folder): a client author's first lines must type-check, and
// the mistakes below must not.
import type { components, paths } from "./umpire";

type S = components["schemas"];

const state: S["CatchupState"] = {
  game: "catchup",
  version: 1,
  options: { variant: "standard", size: 3 },
  status: "ongoing",
  to_move: 0,
  ply: 0,
  winner: null,
  end: null,
  scores: [1, 1],
  board: {},
  blocked: [],
  bonus: false,
  max_stones: 1,
};

// every field of a state is required (board included), sig is optional
const board: S["HexBoardCells"] = state.board;
const sig: string | undefined = state.sig;

// a verdict narrows on `legal`
function describe(v: S["CatchupVerdict"]): string {
  if (v.legal) {
    return `${v.move} -> ply ${v.state.ply}`;
  }
  return `${v.error.code}: ${v.error.message}`;
}

function describeMatch(v: S["MatchLegalVerdict"] | S["MatchIllegalVerdict"]): number {
  return v.legal ? v.events.length : v.error.step ?? -1;
}

// a match's state is one of the games', told apart by `game`
function sideOf(m: S["Match"]): number | null {
  if (m.state.game === "catchup") {
    return m.state.max_stones;
  }
  return m.state.to_move;
}

const body: paths["/v1/games/catchup/play"]["post"]["requestBody"]["content"]["application/json"] = { state, move: "C3" };
const create: S["MatchCreate"] = { game: "bug", options: { variant: "green-meadow" }, clock: "bug-green-meadow" };
const error: S["Error"] = { error: { code: "bad_state", message: "m", details: { field: "state.ply", fields: { "state.ply": ["m"] } } } };

// @ts-expect-error: a Crystal state is not a Catchup state
const wrong: S["CatchupPlayRequest"] = { state: { ...state, game: "crystal" }, move: "C3" };
// @ts-expect-error: a state without its board
const partial: S["CatchupState"] = { ...state, board: undefined };
// @ts-expect-error: Catchup options in a Bug match
const mismatched: S["MatchCreate"] = { game: "bug", options: { bonus: true } };

export { board, sig, describe, describeMatch, sideOf, body, create, error, wrong, partial, mismatched };
