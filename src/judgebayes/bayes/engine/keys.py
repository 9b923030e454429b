"""What the engine caches by: a model's layout, and whether a model reads its data.

A *layout* is what a compiled program depends on: the model function, its non-array
arguments (sizes and hyper-parameters, which shape the model or steer Python control
flow in it: by value), the names, shapes and dtypes of its array arguments (not their
values: those are passed to the compiled program), and whether JAX computes in 64 bits.
Two calls with the same layout share every compiled kernel; a new data set of the same
shapes, a new seed or a new run length compiles nothing.

A model *reads its data* when tracing it with abstract arrays fails: NumPy code or
Python control flow on an array argument (``float(np.mean(x))``), or a NumPyro sampler
that needs a concrete count (the Multinomial of the Davidson and consistency models).
Such arrays are *bound*: they become part of the layout by content (SHA-1), so the
model is compiled per data set, as NumPyro's own ``MCMC`` compiles it. Every place that
tries the abstract route first catches :data:`NEEDS_CONCRETE`, the one list of what
such a failure raises.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

__all__ = [
    "NEEDS_CONCRETE",
    "Layout",
    "digests",
    "fingerprint",
    "is_array",
    "signature",
    "split_data",
]

#: What tracing a model that reads its data raises: JAX's concretisation errors (they
#: derive from ``TypeError`` and ``IndexError``) and NumPyro's (a Multinomial draw with
#: an abstract ``total_count``: ``ValueError``; a sampler with no abstract form:
#: ``NotImplementedError``). A genuine error of the model recurs on the bound route.
NEEDS_CONCRETE = (TypeError, ValueError, IndexError, NotImplementedError)


def is_array(value: Any) -> bool:
    """A NumPy or JAX array (traced by the engine); anything else is static."""
    return isinstance(value, np.ndarray | jax.Array)


def split_data(data: Mapping[str, Any]) -> tuple[dict[str, jax.Array], dict[str, Any]]:
    """Array arguments (traced, may change between calls) and static ones (part of the layout).

    Arrays (NumPy or JAX, any shape) are traced, as JAX arrays; Python scalars,
    strings, ``None`` and tuples are static: sizes such as ``n_models`` shape the model,
    and a hyper-parameter may steer Python control flow inside it.
    """
    arrays, static = {}, {}
    for name, value in data.items():
        if is_array(value):
            arrays[name] = jnp.asarray(value)
        else:
            static[name] = value
    return arrays, static


def signature(values: Mapping[str, Any]) -> tuple:
    """Name, shape and dtype of every array (or ``ShapeDtypeStruct``), sorted by name."""
    return tuple(sorted((k, v.shape, str(v.dtype)) for k, v in values.items()))


def digests(arrays: Mapping[str, Any]) -> tuple:
    """Name and SHA-1 of the bytes of every array, sorted by name: a key by content."""
    return tuple(
        sorted((k, hashlib.sha1(np.asarray(v).tobytes()).hexdigest()) for k, v in arrays.items())
    )


def fingerprint(value: Any) -> Any:
    """A hashable stand-in for a value: arrays by shape, dtype and content (SHA-1),
    lists, tuples and dicts item by item, anything else by its type and itself
    (``TypeError`` where it is not hashable)."""
    if is_array(value):
        a = np.ascontiguousarray(value)
        return ("array", a.shape, str(a.dtype), hashlib.sha1(a.tobytes()).hexdigest())
    if isinstance(value, list | tuple | dict):
        items = sorted(value.items()) if isinstance(value, dict) else enumerate(value)
        return (type(value).__name__, tuple((k, fingerprint(v)) for k, v in items))
    return (type(value).__name__, value, hash(value))


@dataclass(frozen=True)
class Layout:
    """The key of everything compiled for ``model(**data)`` (see the module docstring).

    Attributes
    ----------
    model
        The model function (by identity).
    static
        The static arguments and the bound arrays, by :func:`fingerprint`.
    arrays
        :func:`signature` of the traced arrays.
    x64
        Whether JAX computes in 64 bits (``jax.enable_x64``): MAP does, NUTS does not.
    """

    model: Callable
    static: tuple
    arrays: tuple
    x64: bool

    @classmethod
    def of(
        cls, model: Callable, data: Mapping[str, Any], *, bind: Collection[str] = ()
    ) -> tuple[Layout, dict[str, jax.Array], dict[str, Any]]:
        """The layout of ``model(**data)``, its traced arrays and its static arguments.

        ``bind`` names arrays the model reads (they join the static arguments, as JAX
        arrays, keyed by content). ``TypeError`` where a static argument is not hashable.
        """
        arrays, static = split_data(data)
        static |= {k: arrays.pop(k) for k in bind if k in arrays}
        layout = cls(
            model,
            tuple(sorted((k, fingerprint(v)) for k, v in static.items())),
            signature(arrays),
            bool(jax.config.jax_enable_x64),
        )
        return layout, arrays, static
