"""Is this request Discord's?  Every interaction carries ``X-Signature-Ed25519``, Discord's
Ed25519 signature of ``X-Signature-Timestamp`` followed by the raw body, made with the
application's key; the public half is ``DISCORD_PUBLIC_KEY`` (hex).  It is checked with
``cryptography``'s Ed25519 (as discord-interactions' ``verify_key`` does: the timestamp's bytes,
then the body's, verified against the key) before the body is parsed, and a request that fails
is ``401 invalid_signature``, as Discord's docs ask (Discord itself sends forged requests to an
endpoint to see that it refuses them).

A signature does not expire, so a request captured on the way (a log, a proxy) could be sent
again.  Two things stop that: the timestamp must be within ``DISCORD_MAX_AGE_S`` (5 minutes by
default) of the server's clock either way (``401 stale_interaction``) - Discord posts an
interaction the moment it happens and never retries one, so only a replay or a clock set badly
is older, and 5 minutes leaves room for a clock a little off without keeping a captured request
usable for long - and each interaction id is let through once (service/discord/binding.py
``first_time``, kept in Redis for twice that window, so a replay within the window is caught and
one after it is stale).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from service.web.errors import ApiError

SIGNATURE = "X-Signature-Ed25519"
TIMESTAMP = "X-Signature-Timestamp"


@lru_cache(maxsize=4)
def public_key(hex_key: str) -> Ed25519PublicKey:
    """``DISCORD_PUBLIC_KEY`` as a key (ValueError naming the setting when it is not 32 bytes of hex)."""
    try:
        raw = bytes.fromhex(hex_key.strip())
        if len(raw) != 32:
            raise ValueError
        return Ed25519PublicKey.from_public_bytes(raw)
    except ValueError:
        raise ValueError("DISCORD_PUBLIC_KEY must be the application's public key: 64 hex digits") from None


def verified(key: Ed25519PublicKey, signature: str, timestamp: str, body: bytes) -> bool:
    """Whether ``signature`` (hex) is the key's Ed25519 signature of ``timestamp`` + ``body``."""
    try:
        sig = bytes.fromhex(signature)
    except ValueError:
        return False
    if len(sig) != 64:
        return False
    try:
        key.verify(sig, timestamp.encode() + body)
    except InvalidSignature:
        return False
    return True


def check(key: Ed25519PublicKey, headers: Mapping[str, str], body: bytes, now_s: float, max_age_s: float) -> None:
    """Raise ``401 invalid_signature`` unless the request is signed by ``key``, then ``401
    stale_interaction`` unless it was signed within ``max_age_s`` of ``now_s``."""
    signature, timestamp = headers.get(SIGNATURE), headers.get(TIMESTAMP)
    if not signature or not timestamp or len(signature) > 256 or len(timestamp) > 32:
        raise ApiError("invalid_signature", f"Send {SIGNATURE} and {TIMESTAMP}, as Discord signs every interaction.")
    if not verified(key, signature.strip(), timestamp, body):
        raise ApiError("invalid_signature", f"{SIGNATURE} is not the application's signature of this request.")
    try:
        signed = int(timestamp.strip())
    except ValueError:
        signed = None
    if signed is None or abs(now_s - signed) > max_age_s:
        raise ApiError(
            "stale_interaction",
            f"The interaction was signed more than {max_age_s:g} s from the server's time (DISCORD_MAX_AGE_S).",
            {"max_age_s": max_age_s},
        )
