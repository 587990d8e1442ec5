"""Bot programs for the tests: well-behaved until the move where each goes wrong."""

from __future__ import annotations

# examples/random_bot.py with a hook: on its second move misbehave(message) may
# return an answer, print, exit or hang (None: play as usual).
TEMPLATE = """
import json, random, sys, time

def choose(message):
    return random.choice(message["legal_moves"])  # the complete legal moves (docs/BOTS.md)

def misbehave(message):
{body}

count = 0
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({{"type": "hello", "name": "broken", "protocol": 1, "want_legal": True}}), flush=True)
    elif message["type"] == "move":
        count += 1
        answer = misbehave(message) if count == 2 else None
        if answer is None:
            answer = {{"move": choose(message)}}
        print(json.dumps(answer), flush=True)
"""


def broken(body: str) -> str:
    return TEMPLATE.format(body="\n".join("    " + line for line in body.strip().splitlines()))


# its second move: a cell already taken
ILLEGAL = broken("""
return {"move": sorted(message["state"]["board"])[0]}
""")

# its second move: a complaint on stderr, and exit 3
CRASH = broken("""
print("thinking about", message["ply"], file=sys.stderr)
print("Traceback: something broke inside the bot", file=sys.stderr, flush=True)
sys.exit(3)
""")

# its second move: never answers
HANG = broken("""
time.sleep(3600)
""")

# its second move: not JSON
GARBAGE = broken("""
print("let me think...", flush=True)
time.sleep(3600)
""")

# its second move: answered 1.6 s late (give it a clock of 1 s and a grace of 2 s)
SLOW = broken("""
time.sleep(1.6)
return None
""")

# its second move: resigns
RESIGN = broken("""
return {"resign": True}
""")
