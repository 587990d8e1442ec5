"""A managed match's record as text: the list ``replay`` takes, and the plain text in the
seeds' notation (``GET /v1/matches/{id}/moves``)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import views
from engine.game import Game, Outcome
from service.matches.jsontext import canonical
from service.matches.match import Live, Meta
from service.matches.record import Entry, iso

AnyGame = Game[Any, Any]


def record_moves(entries: Sequence[Entry]) -> list[str]:
    """The record as ``replay`` takes it: moves, and the reserved entries for
    what changed the game otherwise (``timeout``, ``resign N``, ``forfeit N``,
    ``abort``); flags that only opened R-X6's window and illegal attempts that
    changed nothing are not in it."""
    return [word for e in entries if (word := e.replay_word()) is not None]


def record_text(game: AnyGame, meta: Meta, live: Live, entries: Sequence[Entry]) -> str:
    """The record as plain text in the seeds' notation: a header of tags, then
    one numbered line per change of the game, which is what ``replay`` checks:
    each move, ``timeout``, ``resign N``, ``forfeit N``, ``abort``.  What did
    not change the game (a flag that opened R-X6's window, an illegal attempt
    under the reject policy) is a comment line in braces.  ``Result`` is
    ``1-0`` when seat 0 won, ``0-1`` when seat 1 won."""
    spec = meta.spec
    state = live.state
    outcome = None if state["end"] is None else Outcome(state["winner"], state["end"])
    result = "*" if outcome is None else outcome.result
    default = views.show_for(game.name).default_names  # the rules' names of the seats (Crystal: Player 1, Player 2)
    names = (meta.players[0] or default[0], meta.players[1] or default[1])
    said = "" if outcome is None else f" {{{state['end']}; {_who_won(outcome, names)}}}"
    inc = f", increment {spec.increment_ms / 1000:g} s" if spec.increment_ms else ""
    lines = [
        f'[Game "{game.name}"]',
        f'[Match "{meta.match_id}"]',
        f'[Date "{iso(meta.created_ms)}"]',
        f"[Options {canonical(meta.options)}]",
        f'[Clock "turn {spec.turn_ms / 1000:g} s, bank {spec.bank_ms / 1000:g} s, step {spec.step_ms / 1000:g} s{inc},'
        f' on flag {spec.on_flag}"]',
    ]
    for seat, name in enumerate(meta.players):
        if name:
            lines.append(f"[Seat{seat} {json.dumps(name, ensure_ascii=False)}]")
    if meta.tags:
        lines.append(f"[Tags {json.dumps(', '.join(meta.tags), ensure_ascii=False)}]")
    lines += [f'[Illegal "{meta.illegal}"]', f'[Result "{result}"]{said}', ""]
    n = 0
    for e in entries:
        word, comment = e.line(game.flag_rule, names)
        if word is None:
            lines.append(f"{{{comment}}}")
        else:
            n += 1
            lines.append(f"{n}. {word} {{{comment}}}")
    return "\n".join(lines) + "\n"


def _who_won(outcome: Outcome, names: tuple[str, str]) -> str:
    if outcome.winner is not None:
        return f"seat {outcome.winner} ({names[outcome.winner]}) won"
    return "no result" if outcome.end == "aborted" else "a draw"  # an abort decides nothing: Result "*"
