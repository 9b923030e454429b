"""The engine's one cache: everything compiled, least recently used first out.

Compiled models, their kernels (NUTS chunk, log-likelihood, observed values, MAP
potential, SBC's batched chain) and predictive programs are kept here under a key that
starts with their :class:`~judgebayes.bayes.engine.keys.Layout`, so that a second fit
of a layout, with new data of the same shapes, a new seed or a new run length, finds
them. :data:`SIZE` entries are kept: a compiled kernel holds its executable (a few
hundred kilobytes to a few megabytes), and a notebook or a test suite works with a
few dozen layouts at a time.

One lock policy: :func:`cached` holds one re-entrant lock while it looks up *and*
while it builds a missing entry. Building traces a NumPyro model, and NumPyro traces
on a global handler stack that two threads must not share; the lock makes that safe
for callers on several threads (the chains of a fit run on threads, after their
kernel is built), and a build may call :func:`cached` again (a kernel builds on its
compiled model).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any

__all__ = ["SIZE", "cached"]

#: Entries kept (compiled models, kernels and programs together).
SIZE = 128

_entries: OrderedDict[Hashable, Any] = OrderedDict()
_lock = threading.RLock()


def cached(key: Hashable | None, build: Callable[[], Any]) -> Any:
    """The entry ``key``, built by ``build()`` (under the lock) on first use and kept;
    ``key=None``: built every time, not kept (a call that has no layout to key on)."""
    with _lock:
        if key is None:
            return build()
        if key in _entries:
            _entries.move_to_end(key)
            return _entries[key]
        value = _entries[key] = build()
        while len(_entries) > SIZE:
            _entries.popitem(last=False)
        return value
