"""The stateless API (games: verdicts, legal moves, replays, records), pictures and
posts (pictures, drawn by renderer processes), the built-in bots' suggestions
(suggest, searcher), the page, the docs and the OpenAPI spec."""
