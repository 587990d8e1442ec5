"""An external bot for `umpire tournament`, complete: JSON lines on stdin/stdout (docs/BOTS.md).

It asks for the legal moves in its hello and plays one at random: in Catchup one
stone, in Bug a complete move, in the Crystal draft a choice; a Crystal shift turn
repeats one legal shift there and back (C up 2, C down 2, ...), which stays legal.
    umpire tournament --game catchup --bots random "cmd:python examples/random_bot.py"
"""

import json
import random
import sys


def choose(message: dict) -> str:
    moves, due = message["legal_moves"], message["legal_info"].get("shifts_due", 0)
    if message["game"] == "crystal" and due:
        file, way, amount = random.choice(moves).split()
        back = {"up": "down", "down": "up", "left": "right", "right": "left"}[way]
        return ", ".join(f"{file} {way if i % 2 == 0 else back} {amount}" for i in range(due))
    return random.choice(moves)


for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        answer = {"type": "hello", "name": "example-random", "protocol": 1, "want_legal": True}
    elif message["type"] == "move":
        answer = {"move": choose(message)}
    else:  # "end": the game is over; no answer
        continue
    print(json.dumps(answer), flush=True)
