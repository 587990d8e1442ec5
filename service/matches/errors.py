"""What the match store raises: a lost race, a match that is not there, and the two
ways a write can fail once it may have run (REDIS_DURABILITY, service/matches/store.py).
service/matches/failures.py answers each in the one error shape."""

from __future__ import annotations

import redis


class Conflict(Exception):
    """The match changed between read and commit: read again."""


class Gone(Exception):
    """The match does not exist (never created, expired, or not an id at all)."""

    def __init__(self, match_id: str) -> None:
        super().__init__(match_id)
        self.match_id = match_id


class Unconfirmed(Exception):
    """A write was sent and not confirmed: the connection broke or timed out once it may have
    run (``reason`` ``no_answer``), or it ran on the master and no replica acknowledged it in
    time (``no_replica``, REDIS_DURABILITY=replica).  Either way it may or may not survive:
    the request answers 503 ``outcome_unknown``, and sending it again is safe.

    ``what`` names the change in the answer's sentence, ``again`` how to send it again (None:
    the same request, with the same ply and key); :meth:`about` sets them where it is known."""

    def __init__(self, reason: str, message: str, what: str = "a change to the match", again: str | None = None) -> None:
        super().__init__(message)
        self.reason, self.what, self.again = reason, what, again

    def about(self, what: str, again: str | None = None) -> Unconfirmed:
        """The same failure, said of ``what`` (``this move``, ``the new match``...)."""
        return Unconfirmed(self.reason, str(self), what, again)


class NoReplicas(redis.RedisError):
    """The master refused the write for want of replicas (``min-replicas-to-write``): nothing applied."""
