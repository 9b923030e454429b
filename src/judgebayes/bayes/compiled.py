"""Compiled NUTS and MAP kernels of a NumPyro model, cached per model and data layout.

NumPyro's ``MCMC.run`` traces and compiles its whole sampling loop again on every
call (its loop body is a fresh closure each time): about 1 s for even a 54-dimensional
Normal on a CPU, several seconds for a Bradley–Terry arena, whereas drawing the
samples themselves takes well under a second. A notebook user who refits, a
simulation study, an SBC run or a test suite pays that cost again and again.

This module compiles each kernel once per *layout*, the model function, its
non-array arguments (sizes, hyper-parameters) and the shapes and dtypes of its array
arguments, and passes the arrays as arguments of the compiled function, so a new
data set of the same shape, a new seed or a second fit reuses it. The kernels are
NumPyro's own (``numpyro.infer.hmc.hmc``: NUTS with dual-averaging step size and
windowed diagonal mass-matrix adaptation, what ``MCMC(NUTS(model))`` runs, with a
longer closing step-size window: see :func:`nuts_chain`), driven by a ``lax.scan``
written here; MAP uses NumPyro's potential function (the
negative log joint on the unconstrained space) with JAX gradients and Hessians.

Chains run in vectorised groups, one group per CPU core, the groups on Python
threads (JAX releases the GIL while a compiled function runs), so chains use every
core without asking JAX for several host devices before it starts.
"""

from __future__ import annotations

import functools
import hashlib
import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax.flatten_util import ravel_pytree
from numpyro.distributions import biject_to
from numpyro.handlers import seed, trace
from numpyro.infer.hmc import hmc
from numpyro.infer.hmc_util import dual_averaging
from numpyro.infer.util import constrain_fn, log_likelihood, potential_energy

__all__ = ["CompiledModel", "chain_groups", "nuts_chain", "split_data", "step_size_tail",
           "target_accept_for", "uniform_init"]

_CACHE_SIZE = 32
_cache: OrderedDict[tuple, CompiledModel] = OrderedDict()
_cache_lock = threading.Lock()
#: Fraction of warm-up spent tuning the step size alone at its end (see nuts_chain).
TAIL_FRACTION = 0.2
_TINY, _HUGE = float(np.finfo(np.float32).tiny), float(np.finfo(np.float32).max)


def split_data(data: Mapping[str, Any]) -> tuple[dict[str, jax.Array], dict[str, Any]]:
    """Array arguments (traced, may change between calls) and static ones (part of the layout).

    Arrays (NumPy or JAX, any shape) are traced; Python scalars, strings, ``None``
    and tuples are static: sizes such as ``n_models`` shape the model, and a
    hyper-parameter may steer Python control flow inside it.
    """
    arrays, static = {}, {}
    for name, value in data.items():
        if isinstance(value, np.ndarray | jax.Array):
            arrays[name] = jnp.asarray(value)
        else:
            static[name] = value
    return arrays, static


def _layout(model: Callable, arrays: Mapping[str, jax.Array], static: Mapping[str, Any],
            ) -> tuple:
    return (model, tuple(sorted(static.items(), key=lambda kv: kv[0])),
            tuple(sorted((k, v.shape, str(v.dtype)) for k, v in arrays.items())),
            bool(jax.config.jax_enable_x64))


def uniform_init(key: jax.Array, z: Any) -> Any:
    """Uniform(−2, 2) on the unconstrained space, like NumPyro's ``init_to_uniform``."""
    leaves, treedef = jax.tree.flatten(z)
    keys = jax.random.split(key, len(leaves))
    return jax.tree.unflatten(treedef, [
        jax.random.uniform(k, x.shape, dtype=x.dtype, minval=-2.0, maxval=2.0)
        for k, x in zip(keys, leaves, strict=True)])


def target_accept_for(model: Callable, target_accept: float | None) -> float:
    """``target_accept``, or where it is ``None`` the model's own ``target_accept``
    attribute (a model with hard geometry sets one), or 0.8."""
    if target_accept is not None:
        return float(target_accept)
    return float(getattr(model, "target_accept", 0.8))


def step_size_tail(warmup: int) -> int:
    """Warm-up iterations given to the closing step-size window (see :func:`nuts_chain`)."""
    return int(TAIL_FRACTION * warmup) if warmup >= 100 else 0


def nuts_chain(potential_gen: Callable, z_template: Any, *, warmup: int, draws: int,
               target_accept: float, model_kwargs: Mapping[str, Any], rng: jax.Array,
               on_tick: Callable[[], None] | None = None,
               tick_every: int = 1) -> tuple[Any, dict[str, jax.Array]]:
    """One NUTS chain (traceable): ``warmup`` adaptation steps, then ``draws`` draws.

    ``potential_gen(**model_kwargs)`` is the potential energy on the unconstrained
    space (``CompiledModel.potential_gen``). The chain starts from a uniform(−2, 2)
    point on that space, redrawn (up to 100 times) until the potential and its
    gradient are finite, as NumPyro does. ``on_tick`` (a host callback; under
    ``vmap`` it runs once for the whole batch) runs every ``tick_every`` iterations.

    Warm-up is NumPyro's windowed adaptation (Stan's schedule: step size by dual
    averaging, diagonal mass matrix re-estimated in doubling windows) over the first
    ``warmup − step_size_tail(warmup)`` iterations, then a closing window of
    ``step_size_tail(warmup)`` iterations (a fifth of warm-up) in which the mass
    matrix is fixed and a fresh dual averaging, restarted the way NumPyro restarts it
    at a window's end (prox centre log 10ε, the next transition still at ε), tunes
    the step size alone; sampling uses its averaged step size. NumPyro's own closing
    window (Stan's ``term_buffer``, fixed at 50 iterations) still ends the first
    part; the average over so short a window realises a mean acceptance
    well above the target (0.86 for a target of 0.8 on the 55-model arena; NumPyro
    issue #1786, PyMC issue #6613), i.e. a step size smaller than asked for and
    fewer effective draws per gradient. With the longer window the realised rate is
    0.82–0.84 and the minimum bulk ESS a quarter higher on that arena (mean over 5
    seeds 7,215 against 5,714 with NumPyro's window alone, at the same cost per
    draw); PyMC, whose dual averaging runs through all of tuning without restarts,
    realises 0.80. (Closing windows of 30 % and 50 % of warm-up gained < 2 % more.)

    Warm-up and sampling are one ``lax.scan`` around a single copy of NumPyro's
    transition (which itself switches off adaptation after its warm-up), so XLA
    compiles the NUTS tree-building code once rather than once per phase.

    Returns
    -------
    zs
        Unconstrained draws (a pytree with a leading ``draws`` axis).
    stats
        Per-draw sampler statistics named as ArviZ expects: ``diverging``,
        ``n_steps``, ``tree_depth``, ``acceptance_rate``, ``energy``, ``lp``,
        ``step_size``.
    """
    init_kernel, sample_kernel = hmc(potential_fn_gen=potential_gen, algo="NUTS")
    value_and_grad = jax.value_and_grad(potential_gen(**model_kwargs))
    k_init, k_run = jax.random.split(rng)
    tail = step_size_tail(warmup)
    tail_start = warmup - tail

    def _finite(z: Any) -> jax.Array:
        value, grad = value_and_grad(z)
        return jnp.isfinite(value) & jnp.all(jnp.isfinite(ravel_pytree(grad)[0]))

    def _retry(carry: tuple) -> tuple:
        attempt, _ = carry
        return attempt + 1, uniform_init(jax.random.fold_in(k_init, attempt + 1), z_template)

    _, z0 = jax.lax.while_loop(lambda c: (c[0] < 100) & ~_finite(c[1]), _retry,
                               (0, uniform_init(k_init, z_template)))
    state = init_kernel(z0, num_warmup=tail_start, target_accept_prob=target_accept,
                        model_kwargs=model_kwargs, rng_key=k_run)
    da_init, da_update = dual_averaging()

    def with_step_size(st: Any, log_eps: jax.Array) -> Any:
        eps = jnp.clip(jnp.exp(log_eps), _TINY, _HUGE)
        return st._replace(adapt_state=st.adapt_state._replace(step_size=eps))

    def pick(flag: jax.Array, a: Any, b: Any) -> Any:
        return jax.tree.map(lambda x, y: jnp.where(flag, x, y), a, b)

    def record(st: Any) -> tuple[Any, dict[str, jax.Array]]:
        return st.z, {"diverging": st.diverging, "n_steps": st.num_steps,
                      "acceptance_rate": st.accept_prob, "energy": st.energy,
                      "lp": -st.potential_energy, "step_size": st.adapt_state.step_size}

    def body(carry: tuple, i: jax.Array) -> tuple[tuple, tuple]:
        if on_tick is not None:
            jax.lax.cond(i % tick_every == 0, lambda: jax.debug.callback(on_tick),
                         lambda: None)
        st, da = carry
        if tail:  # the closing window opens: dual averaging restarts, ε is kept
            fresh = da_init(jnp.log(10.0) + jnp.log(st.adapt_state.step_size))
            da = pick(i == tail_start, fresh, da)
        st = sample_kernel(st, model_kwargs=model_kwargs)
        if tail:
            in_tail = (i >= tail_start) & (i < warmup)
            da = pick(in_tail, da_update(target_accept - st.accept_prob, da), da)
            # the averaged iterate at the window's end, as NumPyro does at its own
            log_eps = jnp.where(i == warmup - 1, da[1], da[0])
            st = pick(in_tail, with_step_size(st, log_eps), st)
        return (st, da), record(st)

    # Every iteration's draw is stacked and the warm-up ones dropped afterwards: a
    # buffer of `draws` written in place inside the scan would hold half the memory
    # during a run, but it doubled XLA's compile time (2.9 -> 5.5 s on the arena).
    da0 = da_init(jnp.log(state.adapt_state.step_size))  # replaced when the window opens
    _, (zs, stats) = jax.lax.scan(body, (state, da0), jnp.arange(warmup + draws))
    zs, stats = jax.tree.map(lambda x: x[warmup:], (zs, stats))
    stats["tree_depth"] = jnp.floor(jnp.log2(stats["n_steps"])).astype(jnp.int32) + 1
    return zs, stats


def chain_groups(chains: int, workers: int | None = None) -> list[int]:
    """Split ``chains`` into at most ``workers`` (default: CPU cores) near-equal groups."""
    workers = max(1, min(chains, workers or os.cpu_count() or 1))
    base, extra = divmod(chains, workers)
    return [base + (g < extra) for g in range(workers)]


class _Progress:
    """The progress bar the compiled samplers' host callbacks advance (one at a time)."""

    def __init__(self) -> None:
        self.bar: Any = None
        self.step = 0

    def tick(self, chains: int) -> None:
        if self.bar is not None:
            self.bar.update(chains * self.step)


_progress = _Progress()


@dataclass
class CompiledModel:
    """A NumPyro model with its static arguments bound, and its compiled kernels.

    Get one with :meth:`of`; kernels compile on first use and are kept.
    """

    model: Callable
    z_template: Any
    potential_gen: Callable
    postprocess_gen: Callable
    _kernels: dict = field(default_factory=dict, repr=False)

    @classmethod
    def of(cls, model: Callable, data: Mapping[str, Any]) -> tuple[CompiledModel, dict]:
        """The (cached) compiled model for ``model(**data)`` and the array arguments."""
        arrays, static = split_data(data)
        key = _layout(model, arrays, static)
        with _cache_lock:
            if key in _cache:
                _cache.move_to_end(key)
                return _cache[key], arrays
        try:
            compiled = cls._build(model, static, arrays)
        except (jax.errors.JAXTypeError, jax.errors.JAXIndexError):
            # The model needs concrete values of an array argument (NumPy code, Python
            # control flow on data): bind every argument; it compiles per data set,
            # as NumPyro's MCMC does, and is cached by the arrays' contents.
            key = (*key, tuple(sorted((k, hashlib.sha1(np.asarray(v).tobytes()).hexdigest())
                                      for k, v in arrays.items())))
            with _cache_lock:
                if key in _cache:
                    _cache.move_to_end(key)
                    return _cache[key], {}
            compiled, arrays = cls._build(model, {**static, **arrays}, {}), {}
        with _cache_lock:
            _cache[key] = compiled
            while len(_cache) > _CACHE_SIZE:
                _cache.popitem(last=False)
        return compiled, arrays

    @classmethod
    def _build(cls, model: Callable, static: Mapping[str, Any],
               arrays: Mapping[str, jax.Array]) -> CompiledModel:
        bound = _bind(model, static)
        return cls(bound, _unconstrained_shapes(bound, arrays),
                   lambda **a: functools.partial(potential_energy, bound, (), a),
                   lambda **a: functools.partial(constrain_fn, bound, (), a,
                                                 return_deterministic=True))

    def _kernel(self, name: tuple, build: Callable[[], Callable]) -> Callable:
        if name not in self._kernels:
            self._kernels[name] = build()
        return self._kernels[name]

    # ----------------------------------------------------------------- NUTS
    def nuts(self, rng: jax.Array, arrays: Mapping[str, jax.Array], *, chains: int,
             draws: int, warmup: int, target_accept: float, progress: Any = None,
             ) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
        """Constrained draws and sampler statistics, each shaped ``(chain, draw, ...)``.

        ``progress`` is a tqdm bar (total ``chains · (warmup + draws)``) or ``None``.
        """
        groups = chain_groups(chains)
        keys = jax.random.split(rng, chains)
        starts = np.cumsum([0, *groups])
        tick_every = max(1, (warmup + draws) // 100)
        _progress.bar, _progress.step = progress, tick_every

        # Compile in this thread, one group size after another: tracing a NumPyro model
        # uses its global handler stack, which two threads must not share.
        fns = {size: self._nuts_group(size, draws, warmup, target_accept, tick_every,
                                      keys[:size], arrays) for size in sorted(set(groups))}

        def run(g: int) -> tuple[dict, dict]:
            return fns[groups[g]](keys[starts[g]:starts[g + 1]], arrays)

        try:
            if len(groups) == 1:
                outs = [run(0)]
            else:
                with ThreadPoolExecutor(len(groups)) as pool:
                    outs = list(pool.map(run, range(len(groups))))
        finally:
            _progress.bar = None
        samples = {k: np.concatenate([np.asarray(o[0][k]) for o in outs]) for k in outs[0][0]}
        stats = {k: np.concatenate([np.asarray(o[1][k]) for o in outs]) for k in outs[0][1]}
        return samples, stats

    def _nuts_group(self, size: int, draws: int, warmup: int, target_accept: float,
                    tick_every: int, keys: jax.Array, arrays: Mapping[str, jax.Array],
                    ) -> Callable:
        """``size`` chains vectorised, compiled ahead of time for these argument shapes."""
        def build() -> Callable:
            def one(rng: jax.Array, arrays: dict) -> tuple[dict, dict]:
                zs, stats = nuts_chain(self.potential_gen, self.z_template,
                                       warmup=warmup, draws=draws,
                                       target_accept=target_accept, model_kwargs=arrays,
                                       rng=rng, tick_every=tick_every,
                                       on_tick=functools.partial(_progress.tick, size))
                return jax.vmap(self.postprocess_gen(**arrays))(zs), stats

            return jax.jit(jax.vmap(one, in_axes=(0, None))).lower(keys, arrays).compile()

        return self._kernel(("nuts", size, draws, warmup, target_accept, tick_every), build)

    # ------------------------------------------------------------------ MAP
    def flat_potential(self) -> tuple[np.ndarray, Callable, Callable, Callable]:
        """Flat start point, jitted value-and-gradient, Hessian, and batched constrain.

        Call (and use the results) with ``jax.enable_x64(True)`` on: the kernels are
        traced for float64 vectors.
        """
        def build() -> tuple:
            flat0, unravel = ravel_pytree(jax.tree.map(
                lambda x: jnp.zeros(x.shape, dtype=jnp.float64), self.z_template))

            def potential(x: jax.Array, arrays: dict) -> jax.Array:
                return self.potential_gen(**arrays)(unravel(x))

            def constrain(xs: jax.Array, arrays: dict) -> dict:
                return jax.vmap(lambda x: self.postprocess_gen(**arrays)(unravel(x)))(xs)

            return (np.asarray(flat0), jax.jit(jax.value_and_grad(potential)),
                    jax.jit(jax.hessian(potential)), jax.jit(constrain))

        return self._kernel(("map",), build)

    # ---------------------------------------------------------- likelihood
    def pointwise_log_likelihood(self, samples: Mapping[str, np.ndarray],
                                 arrays: Mapping[str, jax.Array]) -> dict[str, np.ndarray]:
        """Log-likelihood of every observed site at every draw (``(chain, draw, ...)``)."""
        lead = next(iter(samples.values())).shape[:2]
        flat = {k: jnp.asarray(v.reshape(-1, *v.shape[2:])) for k, v in samples.items()}
        fn = self._kernel(("loglik",), lambda: jax.jit(
            lambda s, a: log_likelihood(self.model, s, parallel=True, **a)))
        return {k: np.asarray(v).reshape(*lead, *np.shape(v)[1:])
                for k, v in fn(flat, arrays).items()}


def _unconstrained_shapes(model: Callable, arrays: Mapping[str, jax.Array]) -> dict:
    """Shapes and dtypes of the latent sites on the unconstrained space (nothing is run).

    The same map NumPyro's ``initialize_model`` uses, ``biject_to(support)``, found
    by abstract evaluation, so a new layout costs no eager JAX operations.
    """
    def unconstrained(a: Mapping[str, jax.Array]) -> dict:
        tr = trace(seed(model, 0)).get_trace(**a)
        return {k: biject_to(s["fn"].support).inv(s["value"]) for k, s in tr.items()
                if s["type"] == "sample" and not s["is_observed"]}

    return jax.eval_shape(unconstrained, arrays)


def _bind(model: Callable, static: Mapping[str, Any]) -> Callable:
    """``model`` with its static keyword arguments fixed (a named function, for traces)."""
    def bound(**arrays: Any) -> Any:
        return model(**static, **arrays)

    bound.__name__ = getattr(model, "__name__", "model")
    bound.__doc__ = model.__doc__
    return bound
