"""Compiled NUTS and MAP kernels of a NumPyro model, cached per model and data layout.

NumPyro's ``MCMC.run`` traces and compiles its whole sampling loop again on every
call (its loop body is a fresh closure each time): about 1 s for even a 54-dimensional
Normal on a CPU, several seconds for a Bradley–Terry arena, whereas drawing the
samples themselves takes well under a second. A notebook user who refits, a
simulation study, an SBC run or a test suite pays that cost again and again.

This module compiles each kernel once per *layout*, the model function, its
non-array arguments (sizes, hyper-parameters) and the shapes and dtypes of its array
arguments, and passes the arrays as arguments of the compiled function, so a new
data set of the same shape, a new seed or a second fit reuses it. NUTS is NumPyro's
transition and warm-up adaptation (what ``MCMC(NUTS(model))`` runs, with a longer
closing step-size window: see :func:`~judgebayes.bayes.driver.nuts_chain`) in the
chunked driver of :mod:`judgebayes.bayes.driver`: one compiled kernel runs a chunk of
iterations of one chain, with the run length, the warm-up schedule and the target
acceptance as arguments, so neither ``draws``, ``warmup``, ``chains`` nor
``target_accept`` compiles anything, and it holds no host callback, so JAX's
persistent compilation cache can keep it on disk for the next process. MAP uses
NumPyro's potential function (the negative log joint on the unconstrained space)
with its JAX gradient; the Laplace Hessian is a central difference of that compiled
gradient (:func:`central_hessian`), which compiles nothing more.

Each chain runs on its own Python thread (JAX releases the GIL while a compiled
function runs), so chains use every core without asking JAX for several host devices
before it starts. Chains are not vectorised with ``vmap``: on the 55-model arena a
vectorised pair of chains cost the same CPU time per chain, but ``vmap``'s batching
of NumPyro's tree-building loops made the sampler ten times slower to trace (1.1 s
against 0.1 s of CPU) and a second slower to compile, paid by the first fit of
every process.

XLA's compilation of a kernel, not its tracing, is most of a first fit's cost (about
4–5 s of CPU for the NUTS kernel of even a small model, most of it one thread's work).
:meth:`CompiledModel.precompile` traces and lowers a model's kernels in the calling
thread and hands their compilation to a pool of background threads (XLA releases the
GIL), so a caller that fits several models (``fit_calibration``'s designs) compiles
them side by side and overlaps their compilation with its own tracing and sampling.

Kernels of small arrays (:data:`SMALL_DATA`) compile with XLA's classic CPU emitters,
not its fusion emitters (:func:`compiler_options`): two thirds of the CPU time, and as
fast on data that small. Measured on 2 cores (NUTS, 2 chains × 1,000 + 1,000): an
8-model Bradley–Terry fit compiled in 2.2 s of CPU, not 3.4, sampling in 0.12 s both;
``fit_calibration``'s three designs in 13.3 s, not 19.9, sampling unchanged. Larger
data run faster under the fusion emitters (190 pairs: 12 %, the arena's 1,485: 17 %).
The two round ``exp`` and ``log1p`` differently: a seed gives other, equally valid draws.
"""

from __future__ import annotations

import functools
import hashlib
import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax.flatten_util import ravel_pytree
from numpyro.distributions import biject_to
from numpyro.handlers import seed, trace
from numpyro.infer.util import constrain_fn, log_likelihood, potential_energy

from judgebayes.bayes.driver import (
    CHUNK,
    MAX_START_ATTEMPTS,
    ChainState,
    Plan,
    blank_state,
    chain_starts,
    chunk_fn,
    chunk_ranges,
    enable_persistent_cache,
    is_finite_start,
    make_plan,
    nuts_chain,
    step_size_tail,
    uniform_init,
)

__all__ = [
    "CompiledModel",
    "central_hessian",
    "nuts_chain",
    "split_data",
    "step_size_tail",
    "target_accept_for",
    "uniform_init",
]

_CACHE_SIZE = 32
#: Kernels whose array arguments hold at most this many entries in all compile with
#: XLA's classic CPU emitters (see the module docstring and :func:`compiler_options`).
SMALL_DATA = 1024
#: Draws per call of the compiled pointwise log-likelihood.
LOGLIK_BLOCK = 1000
_cache: OrderedDict[tuple, CompiledModel] = OrderedDict()
_cache_lock = threading.Lock()


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


def _layout(
    model: Callable,
    arrays: Mapping[str, jax.Array],
    static: Mapping[str, Any],
) -> tuple:
    return (
        model,
        tuple(sorted(static.items(), key=lambda kv: kv[0])),
        _signature(arrays),
        bool(jax.config.jax_enable_x64),
    )


def target_accept_for(model: Callable, target_accept: float | None) -> float:
    """``target_accept``, or where it is ``None`` the model's own ``target_accept``
    attribute (a model with hard geometry sets one), or 0.8."""
    if target_accept is not None:
        return float(target_accept)
    return float(getattr(model, "target_accept", 0.8))


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
            key = (*key, _digests(arrays))
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
    def _build(
        cls, model: Callable, static: Mapping[str, Any], arrays: Mapping[str, jax.Array]
    ) -> CompiledModel:
        bound = _bind(model, static)
        return cls(
            bound,
            _unconstrained_shapes(bound, arrays),
            lambda **a: functools.partial(potential_energy, bound, (), a),
            lambda **a: functools.partial(constrain_fn, bound, (), a, return_deterministic=True),
        )

    def _kernel(self, name: tuple, build: Callable[[], Any]) -> Any:
        """The kernel ``name``, built by ``build()`` on first use; one that
        :meth:`precompile` handed to the compile pool is waited for here."""
        kernel = self._kernels.get(name)
        if kernel is None:
            kernel = self._kernels[name] = build()
        elif isinstance(kernel, Future):
            try:
                kernel = kernel.result()
            except BaseException:
                del self._kernels[name]  # the next call compiles (and reports) it here
                raise
            self._kernels[name] = kernel
        return kernel

    def precompile(self, arrays: Mapping[str, jax.Array], *, loglik: bool = True) -> None:
        """Start compiling the NUTS chunk kernel (and the pointwise log-likelihood kernel)
        of this layout now, in a background thread, and return.

        Tracing and lowering to StableHLO run here, in the calling thread (a NumPyro
        model is traced on its global handler stack); XLA's compilation, most of a
        first fit's cost (about 5 s of CPU for a small NUTS kernel) and which releases
        the GIL, runs in a pool of one thread per core. :meth:`nuts` and
        :meth:`pointwise_log_likelihood` then wait for the kernels instead of
        compiling them. Precompiling several models before fitting them compiles
        their kernels side by side on a multi-core machine, and the next model's
        compilation overlaps this one's tracing and sampling. The compiled code is
        the same as without it: same draws, and the persistent compilation cache
        applies as usual.
        """
        enable_persistent_cache()
        pool = _compile_pool()
        nuts = ("nuts", CHUNK)
        if nuts not in self._kernels:
            lowered, blank = self._lower_nuts(arrays, _raw_key(jax.random.PRNGKey(0)), CHUNK)
            self._kernels[nuts] = pool.submit(
                _compile_with, lowered, blank, compiler_options(arrays)
            )
        if loglik:
            shapes = jax.eval_shape(lambda z: self.postprocess_gen(**arrays)(z), self.z_template)
            blocks = _blocks(shapes)
            name = ("loglik", LOGLIK_BLOCK, _signature(blocks))
            if name not in self._kernels:
                self._kernels[name] = pool.submit(
                    self._lower_loglik(blocks, arrays).compile, compiler_options(arrays)
                )

    # ----------------------------------------------------------------- NUTS
    def nuts(
        self,
        rng: jax.Array,
        arrays: Mapping[str, jax.Array],
        *,
        chains: int,
        draws: int,
        warmup: int,
        target_accept: float,
        progress: Any = None,
    ) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
        """Constrained draws and sampler statistics, each shaped ``(chain, draw, ...)``.

        ``rng`` is a raw PRNG key (``jax.random.PRNGKey``); chain ``c``'s key and start
        come from a NumPy generator seeded with ``rng`` and ``c``
        (:func:`~judgebayes.bayes.driver.chain_starts`). ``progress`` is a tqdm bar
        (total ``chains · (warmup + draws)``) or ``None``; it advances as chunks of
        :data:`~judgebayes.bayes.driver.CHUNK` iterations finish. The compiled kernel
        depends on neither ``chains``, ``draws``, ``warmup`` nor ``target_accept``.
        """
        enable_persistent_cache()
        plan = Plan(*map(jnp.asarray, make_plan(warmup, draws, target_accept)))
        rng = _raw_key(rng)
        # Compile in this thread: tracing a NumPyro model uses its global handler
        # stack, which two threads must not share.
        chunk = CHUNK
        kernel, blank = self._nuts_kernel(arrays, plan, rng, chunk)
        lock = threading.Lock()

        def tick(n: int) -> None:
            if progress is not None:
                with lock:
                    progress.update(n)

        def run(chain: int) -> tuple[dict, dict]:
            return _run_chain(
                kernel,
                chain_starts(blank, self.z_template, rng, chain),
                arrays,
                plan,
                chunk_ranges(warmup, draws, chunk),
                tick,
            )

        if chains == 1:
            outs = [run(0)]
        else:
            with ThreadPoolExecutor(chains) as pool:
                outs = list(pool.map(run, range(chains)))
        samples = {k: np.stack([o[0][k] for o in outs]) for k in outs[0][0]}
        stats = {k: np.stack([o[1][k] for o in outs]) for k in outs[0][1]}
        stats["tree_depth"] = np.floor(np.log2(stats["n_steps"])).astype(np.int32) + 1
        return samples, stats

    def _nuts_kernel(
        self, arrays: Mapping[str, jax.Array], plan: Plan, rng: np.ndarray, chunk: int
    ) -> tuple[Callable, ChainState]:
        """The chunk kernel of one chain, compiled ahead of time for these argument
        shapes (see :mod:`judgebayes.bayes.driver`), and a state of its shapes (zeros)."""

        def build() -> tuple[Callable, ChainState]:
            lowered, blank = self._lower_nuts(arrays, rng, chunk)
            return lowered.compile(compiler_options(arrays)), blank

        return self._kernel(("nuts", chunk), build)

    def _lower_nuts(
        self,
        arrays: Mapping[str, jax.Array],
        rng: np.ndarray,
        chunk: int,
    ) -> tuple[jax.stages.Lowered, ChainState]:
        """The chunk kernel traced and lowered (not compiled) for these argument shapes,
        and a state of its shapes (zeros). The plan's values do not matter, only its
        shapes and dtypes (those of every :func:`~judgebayes.bayes.driver.make_plan`)."""
        blank = jax.tree.map(
            lambda s: np.zeros(s.shape, s.dtype), jax.eval_shape(blank_state, self.z_template, rng)
        )
        plan = Plan(*map(jnp.asarray, make_plan(1, 1, 0.8)))
        run = jax.jit(
            chunk_fn(self.potential_gen, self.postprocess_gen, self.z_template, chunk=chunk)
        )
        return run.lower(blank, np.int32(0), plan, arrays), blank

    def batched_nuts(
        self, params: Iterable[str], *, warmup: int, draws: int, thin: int, target_accept: float
    ) -> Callable:
        """``run(fit_key, rows, arrays, obs) -> (draws, divergences)``: SBC's refits, one
        :func:`~judgebayes.bayes.driver.nuts_chain` per row (seed ``fold_in(fit_key,
        rows[r])``, data ``obs[r]`` and the shared ``arrays``), jitted and vmapped, its
        ``params`` flattened per kept draw; compiled once per layout, settings, batch."""
        n_keep, params = -(-draws // thin), tuple(params)

        def one(rng: jax.Array, arrays: dict, obs: dict) -> tuple[jax.Array, jax.Array]:
            kwargs = {**arrays, **obs}
            zs, stats = nuts_chain(
                self.potential_gen,
                self.z_template,
                warmup=warmup,
                draws=draws,
                target_accept=target_accept,
                model_kwargs=kwargs,
                rng=rng,
            )
            values = jax.vmap(self.postprocess_gen(**kwargs))(jax.tree.map(lambda x: x[::thin], zs))
            flat = jnp.concatenate([values[p].reshape(n_keep, -1) for p in params], axis=1)
            return flat, stats["diverging"].sum()

        def run(fit_key: jax.Array, rows: jax.Array, arrays: dict, obs: dict) -> tuple:
            keys = jax.vmap(lambda r: jax.random.fold_in(fit_key, r))(rows)
            return jax.vmap(one, in_axes=(0, None, 0))(keys, arrays, obs)

        name = ("sbc", params, warmup, draws, thin, target_accept, jax.config.jax_enable_x64)
        return self._kernel(name, lambda: jax.jit(run))

    # ------------------------------------------------------------------ MAP
    def flat_potential(self) -> tuple[np.ndarray, Callable, Callable, Callable]:
        """Flat start point, jitted value-and-gradient, Hessian, and batched constrain.

        Call (and use the results) with ``jax.enable_x64(True)`` on: the kernels are
        traced for float64 vectors. ``hessian(x, arrays)`` is :func:`central_hessian`
        of the compiled gradient (no ``jax.hessian`` compile: anchors MAP 7.8 → 3.8 s CPU).
        """

        def build() -> tuple:
            flat0, unravel = ravel_pytree(
                jax.tree.map(lambda x: jnp.zeros(x.shape, dtype=jnp.float64), self.z_template)
            )

            def potential(x: jax.Array, arrays: dict) -> jax.Array:
                return self.potential_gen(**arrays)(unravel(x))

            def constrain(xs: jax.Array, arrays: dict) -> dict:
                return jax.vmap(lambda x: self.postprocess_gen(**arrays)(unravel(x)))(xs)

            value_and_grad = jax.jit(jax.value_and_grad(potential))
            return (
                np.asarray(flat0),
                value_and_grad,
                functools.partial(central_hessian, value_and_grad),
                jax.jit(constrain),
            )

        return self._kernel(("map",), build)

    # ---------------------------------------------------------- likelihood
    def pointwise_log_likelihood(
        self, samples: Mapping[str, np.ndarray], arrays: Mapping[str, jax.Array]
    ) -> dict[str, np.ndarray]:
        """Log-likelihood of every observed site at every draw (``(chain, draw, ...)``).

        Draws go through one compiled kernel in blocks of :data:`LOGLIK_BLOCK` (the
        last one padded), so a new number of draws or chains compiles nothing.
        """
        lead = next(iter(samples.values())).shape[:2]
        blocks = _blocks(
            {k: jax.ShapeDtypeStruct(v.shape[2:], v.dtype) for k, v in samples.items()}
        )
        flat = {
            k: np.asarray(v).reshape(-1, *v.shape[2:]).astype(blocks[k].dtype, copy=False)
            for k, v in samples.items()
        }
        n = int(np.prod(lead))
        fn = self._kernel(
            ("loglik", LOGLIK_BLOCK, _signature(blocks)),
            lambda: self._lower_loglik(blocks, arrays).compile(compiler_options(arrays)),
        )
        parts = []
        for start in range(0, n, LOGLIK_BLOCK):
            rows = (
                slice(start, start + LOGLIK_BLOCK)
                if start + LOGLIK_BLOCK <= n
                else np.minimum(np.arange(start, start + LOGLIK_BLOCK), n - 1)
            )  # padded
            out = fn({k: v[rows] for k, v in flat.items()}, arrays)
            parts.append({k: np.asarray(v)[: n - start] for k, v in out.items()})
        return {
            k: np.concatenate([p[k] for p in parts]).reshape(*lead, *parts[0][k].shape[1:])
            for k in parts[0]
        }

    def _lower_loglik(
        self, blocks: Mapping[str, jax.ShapeDtypeStruct], arrays: Mapping[str, jax.Array]
    ) -> jax.stages.Lowered:
        """The pointwise log-likelihood of a block of draws (``blocks``: their shapes),
        traced and lowered for these argument shapes."""
        return jax.jit(lambda s, a: log_likelihood(self.model, s, parallel=True, **a)).lower(
            dict(blocks), arrays
        )

    def observed(
        self, arrays: Mapping[str, jax.Array], select: Callable[[Mapping[str, Any]], bool]
    ) -> dict[str, np.ndarray]:
        """Values of the sample sites ``select(site)`` picks (the data sites), from one
        compiled trace of the model: running it op by op instead compiles a kernel for
        every operation on the first call of a process (a second on the arena)."""
        fn = self._kernel(
            ("observed",),
            lambda: jax.jit(
                lambda a: {
                    k: s["value"]
                    for k, s in trace(seed(self.model, 0)).get_trace(**a).items()
                    if select(s)
                }
            ),
        )
        return {k: np.asarray(v) for k, v in fn(arrays).items()}


def central_hessian(
    value_and_grad: Callable,
    x: Any,
    arrays: Mapping[str, jax.Array],
) -> np.ndarray:
    r"""Hessian of a potential by central differences of its compiled gradient, symmetrised.

    Column j is (∇U(x + h_j e_j) − ∇U(x − h_j e_j)) / (2 h_j), h_j = ε^{1/3} s_j with
    s_j = max(1, |x_j|) and ε the machine epsilon (2.2e-16 in float64: h_j ≈ 6e-6 s_j),
    divided by the step actually taken; the result is (Ĥ + Ĥᵀ) / 2.

    Accuracy. Taylor truncation h_j² / 6 · ∂_j³ g_i (g_i = ∂_i U) plus the rounding
    error ε G_i of the two gradients (G_i: the size of the terms summed into g_i) over
    the step: at most about ε^{2/3} (s_j² |∂_j³ g_i| / 6 + G_i / s_j), ε^{2/3} = 3.7e-11;
    symmetrising keeps that bound. Measured against ``jax.hessian``: a 5-model BT and a
    shared calibration design 1–2e-9 (1e-10 of the largest entry, rounding-dominated;
    ``tests/test_map_hessian.py`` checks every entry against the bound); the anchors
    model (173 dimensions) 2.1e-5 on an entry of 512 (9e-9 of the largest, 2,270),
    truncation that its fourth derivative, 3.4e6, predicts to three digits. H⁻¹ moves by
    at most κ(H) times the relative error (the anchors' SDs by 2e-8): far below any
    Laplace Monte Carlo error. Needs x64 (in float32 it is good to ~1e-4 only).

    Cost. 2n calls of the compiled ``value_and_grad`` and nothing compiled (0.2 s on
    the anchors model): ``jax.hessian`` compiled a forward-over-reverse program (3.9 s
    of CPU there), and a gradient vmapped over the 2n points would compile too.

    Parameters
    ----------
    value_and_grad
        ``value_and_grad(x, arrays) -> (U(x), ∇U(x))``, jitted.
    x
        The point (a flat vector).
    arrays
        The potential's array arguments.

    Returns
    -------
    numpy.ndarray
        The symmetric ``(n, n)`` Hessian estimate.
    """
    dtype = jnp.asarray(x).dtype
    x = np.asarray(x, dtype=dtype).ravel()
    h = np.finfo(dtype).eps ** (1 / 3) * np.maximum(1.0, np.abs(x))
    grads = []
    for j in range(x.size):
        up, down = x.copy(), x.copy()
        up[j] += h[j]
        down[j] -= h[j]
        # dispatched without waiting: JAX runs them while the next ones are queued
        grads.append(
            (
                value_and_grad(jnp.asarray(up), arrays)[1],
                value_and_grad(jnp.asarray(down), arrays)[1],
                up[j] - down[j],
            )
        )
    hess = np.stack(
        [
            (np.asarray(g_up, dtype=np.float64) - np.asarray(g_down, dtype=np.float64)) / step
            for g_up, g_down, step in grads
        ],
        axis=1,
    )
    return 0.5 * (hess + hess.T)


def _raw_key(rng: jax.Array) -> np.ndarray:
    """The raw key data of a PRNG key (typed or raw), on the host."""
    if jax.dtypes.issubdtype(rng.dtype, jax.dtypes.prng_key):
        rng = jax.random.key_data(rng)
    return np.asarray(rng)


def compiler_options(arrays: Mapping[str, Any]) -> dict[str, Any] | None:
    """XLA options of the kernels of a model whose array arguments are ``arrays``.

    On a CPU, where the arrays hold at most :data:`SMALL_DATA` entries in all, XLA's
    classic emitters (``xla_cpu_use_fusion_emitters=False``): a small model's first fit
    is mostly compilation, which they do in two thirds of the time, and on such data
    their code runs as fast. Otherwise ``None``, XLA's defaults (see the module
    docstring for the measurements).
    """
    if jax.default_backend() != "cpu":
        return None
    if sum(int(np.size(a)) for a in jax.tree.leaves(dict(arrays))) > SMALL_DATA:
        return None
    return {"xla_cpu_use_fusion_emitters": False}


def _compile_with(
    lowered: jax.stages.Lowered, blank: ChainState, options: dict[str, Any] | None
) -> tuple[Callable, ChainState]:
    return lowered.compile(options), blank


def _blocks(shapes: Mapping[str, Any]) -> dict[str, jax.ShapeDtypeStruct]:
    """Shapes of a block of :data:`LOGLIK_BLOCK` draws of sites shaped ``shapes`` (one
    draw each), in the dtypes JAX computes in (float32 unless x64 is on)."""
    return {
        k: jax.ShapeDtypeStruct((LOGLIK_BLOCK, *v.shape), jax.dtypes.canonicalize_dtype(v.dtype))
        for k, v in shapes.items()
    }


def _signature(values: Mapping[str, Any]) -> tuple:
    """Name, shape and dtype of every array (or ``ShapeDtypeStruct``), sorted by name."""
    return tuple(sorted((k, v.shape, str(v.dtype)) for k, v in values.items()))


def _digests(arrays: Mapping[str, Any]) -> tuple:
    """Name and SHA-1 of the bytes of every array, sorted by name: a key by content."""
    return tuple(
        sorted((k, hashlib.sha1(np.asarray(v).tobytes()).hexdigest()) for k, v in arrays.items())
    )


_pool: ThreadPoolExecutor | None = None


def _compile_pool() -> ThreadPoolExecutor:
    """The threads :meth:`CompiledModel.precompile` compiles in (one per core)."""
    global _pool
    with _cache_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(
                max(1, os.cpu_count() or 1), thread_name_prefix="judgebayes-compile"
            )
        return _pool


def _run_chain(
    kernel: Callable,
    starts: Iterator[ChainState],
    arrays: Mapping,
    plan: Plan,
    chunks: Iterable[tuple[int, int, int]],
    tick: Callable[[int], None],
) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """Run one chain chunk by chunk (``chunks``: :func:`~judgebayes.bayes.driver.chunk_ranges`)
    and keep its draws (leading axis: draw).

    The first chunk is tried from one start after another until the potential and its
    gradient are finite there. The next chunk is dispatched before the last one's
    draws are copied to the host, so the copy and the progress update overlap the
    sampling.
    """
    ranges = list(chunks)
    for _ in range(MAX_START_ATTEMPTS):
        state, values, stats = kernel(next(starts), np.int32(0), plan, arrays)
        if is_finite_start(state):
            break
    else:
        raise RuntimeError(
            f"no start point with a finite log density and gradient in {MAX_START_ATTEMPTS} "
            "uniform(-2, 2) draws on the unconstrained space: check the model and its data"
        )
    kept: list[tuple[dict, dict]] = []
    pending = (ranges[0], values, stats)

    def collect(item: tuple) -> None:
        (_, lo, hi), values, stats = item
        if hi > lo:
            # slices of host copies: slicing a JAX array would compile per slice
            kept.append(jax.tree.map(lambda x: np.asarray(x)[lo:hi], (values, stats)))
        tick(hi)

    for rows in ranges[1:]:
        state, values, stats = kernel(state, np.int32(rows[0]), plan, arrays)
        collect(pending)
        pending = (rows, values, stats)
    collect(pending)
    return tuple(
        {k: np.concatenate([part[j][k] for part in kept]) for k in kept[0][j]} for j in (0, 1)
    )


def _unconstrained_shapes(model: Callable, arrays: Mapping[str, jax.Array]) -> dict:
    """Shapes and dtypes of the latent sites on the unconstrained space (nothing is run).

    The same map NumPyro's ``initialize_model`` uses, ``biject_to(support)``, found
    by abstract evaluation, so a new layout costs no eager JAX operations.
    """

    def unconstrained(a: Mapping[str, jax.Array]) -> dict:
        tr = trace(seed(model, 0)).get_trace(**a)
        return {
            k: biject_to(s["fn"].support).inv(s["value"])
            for k, s in tr.items()
            if s["type"] == "sample" and not s["is_observed"]
        }

    return jax.eval_shape(unconstrained, arrays)


def _bind(model: Callable, static: Mapping[str, Any]) -> Callable:
    """``model`` with its static keyword arguments fixed (a named function, for traces)."""

    def bound(**arrays: Any) -> Any:
        return model(**static, **arrays)

    bound.__name__ = getattr(model, "__name__", "model")
    bound.__doc__ = model.__doc__
    return bound


#: Objects other modules cache per layout (:func:`judgebayes.bayes.sbc.sbc`'s), LRU.
PROGRAMS_KEPT = 16
_programs: OrderedDict[tuple, Any] = OrderedDict()


def _fingerprint(value: Any) -> Any:
    """A hashable stand-in for a value, arrays by content (SHA-1); else ``TypeError``."""
    if isinstance(value, np.ndarray | jax.Array):
        a = np.ascontiguousarray(value)
        return ("array", a.shape, str(a.dtype), hashlib.sha1(a.tobytes()).hexdigest())
    if isinstance(value, list | tuple | dict):
        items = sorted(value.items()) if isinstance(value, dict) else enumerate(value)
        return (type(value).__name__, tuple((k, _fingerprint(v)) for k, v in items))
    return (type(value).__name__, value, hash(value))


def _program_key(make: Callable[[], tuple]) -> tuple | None:
    """``make()``, a cache key, or ``None`` where a part has no fingerprint (nothing cached)."""
    try:
        key = make()
        hash(key)
    except TypeError:
        return None
    return key


def _shape_key(arrays: Mapping[str, jax.Array], static: Mapping[str, Any]) -> tuple:
    """The static arguments by content, the arrays by shape and dtype only, and x64."""
    return _fingerprint(static), _signature(arrays), bool(jax.config.jax_enable_x64)


def _cached_program(key: tuple | None, build: Callable[[], Any]) -> Any:
    """The program cached as ``key``, built by ``build()`` on first use (``key=None``: not
    cached). A jitted program keeps its executables: the same key and argument shapes
    later compile nothing."""
    with _cache_lock:
        if key is not None and key in _programs:
            _programs.move_to_end(key)
            return _programs[key]
    program = build()
    if key is not None:
        with _cache_lock:
            _programs[key] = program
            while len(_programs) > PROGRAMS_KEPT:
                _programs.popitem(last=False)
    return program
