"""An external bot for `umpire tournament`, complete: JSON lines on stdin/stdout (docs/BOTS.md).

It asks for the legal moves in its hello (`want_legal`) and plays one of the
complete legal moves it is given, at random: it never needs to know how a
game's steps combine into a move, so it plays every game and variant.
    umpire tournament --game catchup --bots random "cmd:python examples/random_bot.py"
"""

import json
import random
import sys

for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        answer = {"type": "hello", "name": "example-random", "protocol": 1, "want_legal": True}
    elif message["type"] == "move":
        answer = {"move": random.choice(message["legal_moves"])}
    else:  # "end": the game is over; no answer
        continue
    print(json.dumps(answer), flush=True)
