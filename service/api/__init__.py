"""The stateless API (games: verdicts, legal moves, replays, records), pictures and
posts of a state (pictures, drawn by renderer processes; a match's are
service/matches/pictures.py's views, on the same blueprint), the built-in bots'
suggestions (suggest, searcher), the page, the docs and the OpenAPI spec."""
