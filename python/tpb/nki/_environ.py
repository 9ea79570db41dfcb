"""``os.environ.get`` for the variables read on every kernel call, without its cost.

A replayed kernel call reads two variables (``TPB_NKI_REPLAY``, ``NEURON_PLATFORM_TARGET_OVERRIDE``)
that are usually not set, and ``os.environ.get`` of an unset name raises and catches two
``KeyError``s: 0.7 µs each, a tenth of a small kernel's replay. ``os.environ`` keeps its
contents in a dict keyed by the encoded name (CPython's ``os._Environ``: ``_data``,
``encodekey``, ``decodevalue``), which its own setters and deleters update, so one dict
lookup there gives the same answer. Where that layout is not found, ``os.environ.get``."""

from __future__ import annotations

import os
from typing import Dict, Optional

# The encoded form of each name asked for (encoding a name is half the cost of a lookup).
_encoded: Dict[str, object] = {}


def get(name: str) -> Optional[str]:
    """``os.environ.get(name)``."""
    env = os.environ
    data = getattr(env, "_data", None)
    if type(data) is not dict:
        return env.get(name)
    key = _encoded.get(name)
    if key is None:
        try:
            key = env.encodekey(name)  # type: ignore[attr-defined]
        except (AttributeError, TypeError, ValueError):
            return env.get(name)
        _encoded[name] = key
    v = data.get(key)
    return None if v is None else env.decodevalue(v)  # type: ignore[attr-defined]
