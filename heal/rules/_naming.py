"""Deterministic, collision-free renaming, shared by the tool-name and tool-call-id rules."""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Collection, Iterable
from functools import lru_cache


def digest(text: str, size: int = 4) -> str:
    """A short, stable hex digest of ``text`` (no randomness, same on every machine)."""
    return hashlib.blake2s(text.encode("utf-8", "surrogatepass"), digest_size=size).hexdigest()


def with_suffix(base: str, tag: str, limit: int | None) -> str:
    """``base_tag``, shortening ``base`` so the whole fits in ``limit`` characters."""
    if limit is not None:
        base = base[: max(limit - len(tag) - 1, 0)]
    return f"{base}_{tag}" if base else tag


@lru_cache(maxsize=4096)
def sanitize(value: str, forbidden: re.Pattern[str], limit: int | None, fallback: str) -> str:
    """Replace forbidden characters with ``_``; shorten to ``limit`` keeping it unique by a
    digest of the original; use ``fallback`` for an empty value. Cached: the same foreign ids
    come back in history after history (Kimi's ``functions.search:3`` counts from 0 in each
    conversation), and a renaming asks for every one of them."""
    clean = forbidden.sub("_", value)
    if not clean:
        return fallback
    if limit is not None and len(clean) > limit:
        return with_suffix(clean, digest(value), limit)
    return clean


def rename_all(
    bad: Iterable[str],
    keep: Collection[str],
    forbidden: re.Pattern[str],
    limit: int | None,
    fallback: str,
) -> dict[str, str]:
    """Map each bad value to a valid one that no other value (kept or renamed) uses.

    The result depends only on the set of values, not on their order: when two bad values
    sanitize to the same text, or one sanitizes to a value that is kept, both take a digest of
    their original as suffix, so ``a.b`` and ``a:b`` become ``a_b_<digest>`` each.
    """
    bad_set = sorted(set(bad))
    bases = {old: sanitize(old, forbidden, limit, fallback) for old in bad_set}
    made = list(bases.values())
    shared = (  # the bases two bad values sanitize to (none, nearly always)
        {base for base, count in Counter(made).items() if count > 1}
        if len(set(made)) < len(made)
        else set()
    )
    used = set(keep)
    out: dict[str, str] = {}
    for old in bad_set:
        base = bases[old]
        if base in shared or base in used:
            base = with_suffix(base, digest(old), limit)
        candidate, n = base, 2
        while candidate in used:  # a digest collision: astronomically rare, still handled
            candidate = with_suffix(base, str(n), limit)
            n += 1
        used.add(candidate)
        out[old] = candidate
    return out
