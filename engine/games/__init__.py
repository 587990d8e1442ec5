"""The games, one room each (docs/DESIGN.md "A game is one room").

Each folder here holds everything about one game: its rules (``rules.py``),
and beside them what the rest of the service asks of it.  Nothing outside a
game's own folder names that game; :mod:`engine.registry` lists every game once.
"""
