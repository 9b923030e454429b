"""NumPyro's ``Predictive`` as one compiled program per data set.

``Predictive(model, ...)(key, **data)`` run as it is dispatches every JAX operation of
the model on its own, and compiles each once per shape: the first predictive check of
a process pays for dozens of small compilations. :func:`draw` traces the same call
once into one program instead, with the data as constants and the key and the
posterior draws as arguments, and keeps it in the engine's cache under the model's
layout with every array bound by content (:class:`~judgebayes.bayes.engine.keys.Layout`),
the draws' shapes and the sites: re-running a check on the same data and fit compiles
nothing (``bench/predictive_speed.py``).

The data are constants because NumPyro's samplers read them: the Multinomial needs
concrete counts, and the Binomial draws by another algorithm when its counts are
abstract. Traced under ``jax.ensure_compile_time_eval``, the operations on the data
alone run as they do op by op, so the program draws what ``Predictive`` draws op by op
from the same key (integers equal, floats to rounding). A model that cannot be traced
at all (Python control flow on a draw) runs op by op. Programs of few drawn entries
compile at XLA's quick level (:func:`~judgebayes.bayes.engine.xla.predictive_options`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import jax
import jax.numpy as jnp
from numpyro.infer import Predictive

from judgebayes.bayes.engine import xla
from judgebayes.bayes.engine.cache import cached
from judgebayes.bayes.engine.keys import NEEDS_CONCRETE, Layout, is_array, signature

__all__ = ["draw"]


def draw(
    model: Callable,
    free: Mapping[str, Any],
    rng_key: jax.Array,
    sites: Sequence[str],
    elements: int,
    *,
    samples: Mapping[str, Any] | None = None,
    num_samples: int | None = None,
) -> dict[str, jax.Array]:
    """``Predictive(model, posterior_samples=samples, num_samples=num_samples,
    return_sites=sites, parallel=True)(rng_key, **free)`` by one compiled program (see the module
    docstring); ``elements``: the data entries drawn (draws times entries), which set
    the XLA options."""
    samples = None if samples is None else {k: jnp.asarray(v) for k, v in samples.items()}

    def run(rng: jax.Array, given: dict | None) -> dict[str, jax.Array]:
        predictive = Predictive(
            model,
            posterior_samples=given,
            num_samples=num_samples,
            return_sites=list(sites),
            parallel=True,  # vmapped over the draws: the data stay concrete inside
        )
        with jax.ensure_compile_time_eval():  # the data's own operations, as op by op
            return predictive(rng, **free)

    def build() -> Callable | None:
        xla.enable_persistent_cache()
        try:
            traced = jax.jit(run).trace(rng_key, samples)
        except NEEDS_CONCRETE:  # a model that needs its draws concrete: op by op
            return None
        options = xla.predictive_options(elements, _has_loop(traced.jaxpr.jaxpr))
        return traced.lower().compile(options)

    try:
        layout = Layout.of(model, free, bind=[k for k, v in free.items() if is_array(v)])[0]
    except TypeError:  # an argument with no fingerprint: nothing to key on, op by op
        program = None
    else:
        key = (
            "predictive",
            layout,
            None if samples is None else signature(samples),
            tuple(sites),
            num_samples,
        )
        program = cached(key, build)
    if program is None:
        return run(rng_key, samples)
    return program(rng_key, samples)


def _has_loop(jaxpr: Any) -> bool:
    """Whether a jaxpr holds a ``while`` loop, nested ones included."""
    for eqn in jaxpr.eqns:
        if eqn.primitive.name == "while":
            return True
        for p in eqn.params.values():
            for sub in p if isinstance(p, tuple | list) else (p,):
                inner = getattr(sub, "jaxpr", sub)
                if hasattr(inner, "eqns") and _has_loop(inner):
                    return True
    return False
