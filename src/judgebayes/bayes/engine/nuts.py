"""The NUTS driver: NumPyro's NUTS transition with warm-up adaptation driven by data.

The only module of judgebayes that calls NumPyro's ``hmc_util``. NumPyro's ``hmc``
kernel builds its warm-up schedule in Python from ``num_warmup``, so the run length is a
constant of the compiled code: a new number of draws or warm-up iterations compiles the
sampler again, and NumPyro's progress bar needs a host callback inside the loop, which
JAX's persistent compilation cache cannot store. Here one iteration
(:func:`transition`) is NumPyro's own NUTS transition (``hmc_util.build_tree`` with
NumPyro's velocity Verlet integrator and momentum draw) followed by NumPyro's warm-up
adaptation (``dual_averaging`` for the step size, ``welford_covariance`` for the
diagonal mass matrix, re-estimated at the ends of Stan's doubling windows,
``build_adaptation_schedule``), with the iteration number and the schedule as
*arguments* (:class:`Plan`). :func:`chunk_fn` is one chain's chunk of :data:`CHUNK`
iterations (a ``lax.scan``), compiled once per layout by
:class:`~judgebayes.bayes.engine.model.CompiledModel`; :func:`run_chains` calls it
chunk after chunk, each chain on its own Python thread (JAX releases the GIL while a
compiled function runs, so chains use every core without asking JAX for several host
devices before it starts), and reports progress between chunks: the compiled code
holds no callback and depends on neither ``draws``, ``warmup``, ``chains`` nor
``target_accept``, so JAX's persistent compilation cache
(:mod:`~judgebayes.bayes.engine.xla`) can keep it on disk. :func:`nuts_chain` runs a
whole chain in one traceable scan (simulation-based calibration vmaps it).

Chains are not vectorised with ``vmap``: a vectorised pair of chains costs the same
CPU time per chain, but ``vmap``'s batching of NumPyro's tree-building loops makes the
sampler much slower to trace and compile, which the first fit of every process pays
(``docs/benchmarks.md``).

Warm-up ends with a step-size-only window longer than NumPyro's: see :func:`nuts_chain`.
Below 100 warm-up iterations there is none, and the draws are those of NumPyro's
``hmc`` kernel (``init_kernel``/``sample_kernel``) from the same start and key, to
float rounding (tested).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jax.flatten_util import ravel_pytree
from numpyro.infer.hmc import momentum_generator
from numpyro.infer.hmc_util import (
    IntegratorState,
    build_adaptation_schedule,
    build_tree,
    dual_averaging,
    euclidean_kinetic_energy,
    velocity_verlet,
    welford_covariance,
)

__all__ = [
    "CHUNK",
    "MAX_START_ATTEMPTS",
    "ChainState",
    "Plan",
    "blank_state",
    "chain_starts",
    "chunk_fn",
    "chunk_ranges",
    "init_chain",
    "is_finite_start",
    "make_plan",
    "nuts_chain",
    "raw_key",
    "run_chains",
    "step_size_tail",
    "transition",
    "uniform_init",
]

#: Iterations per compiled chunk: progress is reported between chunks, each of which
#: costs a little CPU beyond its iterations (dispatch, copies; ``docs/benchmarks.md``).
CHUNK = 250
#: Start points a chain tries before giving up (NumPyro tries as many).
MAX_START_ATTEMPTS = 100
#: Fraction of warm-up spent tuning the step size alone at its end (see nuts_chain).
TAIL_FRACTION = 0.2
#: Most mass-matrix windows a schedule may have (Stan's doubling windows: 25 windows
#: already cover over 10^8 warm-up iterations).
MAX_WINDOWS = 32
MAX_TREE_DEPTH = 10
MAX_DELTA_ENERGY = 1000.0
_TINY, _HUGE = float(np.finfo(np.float32).tiny), float(np.finfo(np.float32).max)
_da_init, _da_update = dual_averaging()
_mm_init, _mm_update, _mm_final = welford_covariance(diagonal=True)


class Plan(NamedTuple):
    """A run's length and warm-up schedule, passed to the compiled code as arrays.

    ``n_adapt`` iterations of NumPyro's windowed adaptation, then a closing
    step-size window up to ``warmup``, then draws up to ``total``. The diagonal mass
    matrix is estimated over iterations ``mm_first`` to ``mm_last`` and re-set at
    each of ``mm_ends`` (padded with −1).
    """

    warmup: Any
    total: Any
    n_adapt: Any
    target_accept: Any
    mm_first: Any
    mm_last: Any
    mm_ends: Any


class ChainState(NamedTuple):
    """One chain between iterations: position, RNG key and adaptation state."""

    z: Any
    z_grad: Any
    potential_energy: jax.Array
    rng_key: jax.Array
    step_size: jax.Array
    inverse_mass_matrix: jax.Array
    mass_matrix_sqrt: jax.Array
    ss: tuple  # dual averaging of log step size (NumPyro's dual_averaging state)
    mm: tuple  # Welford variance of the draws in the current window


def step_size_tail(warmup: int) -> int:
    """Warm-up iterations given to the closing step-size window (see :func:`nuts_chain`)."""
    return int(TAIL_FRACTION * warmup) if warmup >= 100 else 0


def make_plan(warmup: int, draws: int, target_accept: float) -> Plan:
    """The :class:`Plan` (NumPy values) of ``warmup`` iterations then ``draws`` draws."""
    if warmup < 0 or draws < 1:
        raise ValueError(f"NUTS needs warmup >= 0 and draws >= 1, got {warmup} and {draws}")
    n_adapt = warmup - step_size_tail(warmup)
    windows = build_adaptation_schedule(n_adapt)[1:-1] if n_adapt > 0 else []
    if len(windows) > MAX_WINDOWS:
        raise ValueError(f"warmup={warmup} needs more than {MAX_WINDOWS} adaptation windows")
    ends = np.full(MAX_WINDOWS, -1, dtype=np.int32)
    ends[: len(windows)] = [w.end for w in windows]
    first, last = (windows[0].start, windows[-1].end) if windows else (1, 0)
    i32 = np.int32
    return Plan(
        i32(warmup),
        i32(warmup + draws),
        i32(n_adapt),
        float(target_accept),
        i32(first),
        i32(last),
        ends,
    )


def chunk_ranges(warmup: int, draws: int, chunk: int = CHUNK) -> Iterator[tuple[int, int, int]]:
    """``(start, kept_from, kept_to)`` of every chunk: its first iteration and the rows
    of its output that are draws (rows past the run's end are padding)."""
    total = warmup + draws
    for start in range(0, total, chunk):
        yield start, min(max(warmup - start, 0), chunk), min(total - start, chunk)


def uniform_init(key: jax.Array, z: Any) -> Any:
    """Uniform(−2, 2) on the unconstrained space, like NumPyro's ``init_to_uniform``."""
    leaves, treedef = jax.tree.flatten(z)
    keys = jax.random.split(key, len(leaves))
    return jax.tree.unflatten(
        treedef,
        [
            jax.random.uniform(k, x.shape, dtype=x.dtype, minval=-2.0, maxval=2.0)
            for k, x in zip(keys, leaves, strict=True)
        ],
    )


def init_chain(potential_fn: Callable, z_template: Any, rng: jax.Array) -> ChainState:
    """A chain's start (traceable): a uniform(−2, 2) point on the unconstrained space,
    redrawn (up to 100 times) until the potential and its gradient are finite, as
    NumPyro does; unit mass matrix and step size 1, as NumPyro's ``init_kernel``."""
    value_and_grad = jax.value_and_grad(potential_fn)
    k_init, k_run = jax.random.split(rng)

    def redraw(c: tuple) -> tuple:  # the model is traced once, here
        n = c[0] + 1
        z = uniform_init(jax.random.fold_in(k_init, n), z_template)
        return (n, z, *value_and_grad(z))

    def again(c: tuple) -> jax.Array:
        n, _, pe, grad = c
        finite = jnp.isfinite(pe) & jnp.all(jnp.isfinite(ravel_pytree(grad)[0]))
        return (n < 100) & ~finite

    blank = blank_state(z_template, rng)
    start = (-1, blank.z, jnp.array(jnp.inf, blank.potential_energy.dtype), blank.z_grad)
    _, z, pe, grad = jax.lax.while_loop(again, redraw, start)
    return blank._replace(
        z=z, z_grad=grad, potential_energy=pe, rng_key=jax.random.split(k_run, 3)[0]
    )


def blank_state(z_template: Any, rng: jax.Array) -> ChainState:
    """A chain state at the origin with unit step size and mass matrix (traceable;
    the model is not run)."""
    dtype = jnp.result_type(float)
    z = jax.tree.map(lambda x: jnp.zeros(x.shape, x.dtype), z_template)
    size = ravel_pytree(z)[0].size
    step_size = jnp.ones((), dtype=dtype)
    return ChainState(
        z,
        z,
        jnp.zeros((), dtype=dtype),
        rng,
        step_size,
        jnp.ones(size, dtype=dtype),
        jnp.ones(size, dtype=dtype),
        _da_init(jnp.log(10 * step_size)),
        _mm_init(size),
    )


def transition(
    potential_fn: Callable,
    st: ChainState,
    i: jax.Array,
    plan: Plan,
) -> tuple[ChainState, tuple[Any, dict[str, jax.Array]]]:
    """Iteration ``i`` of one chain (traceable): a NUTS transition, then, during warm-up,
    the adaptation NumPyro's ``hmc`` kernel runs (see :func:`nuts_chain`).

    ``i`` and ``plan`` are the same for every chain (not batched under ``vmap``), so the
    warm-up branches are real conditionals. Returns the new state, its position and the
    iteration's statistics, named as ArviZ expects.
    """
    key, k_momentum, k_tree = jax.random.split(st.rng_key, 3)
    r = momentum_generator(st.z, st.mass_matrix_sqrt, k_momentum)
    _, vv_update = velocity_verlet(potential_fn, euclidean_kinetic_energy)
    tree = build_tree(
        vv_update,
        euclidean_kinetic_energy,
        IntegratorState(st.z, r, st.potential_energy, st.z_grad),
        st.inverse_mass_matrix,
        st.step_size,
        k_tree,
        max_delta_energy=MAX_DELTA_ENERGY,
        max_tree_depth=MAX_TREE_DEPTH,
    )
    accept = tree.sum_accept_probs / tree.num_proposals
    st = st._replace(
        z=tree.z_proposal,
        z_grad=tree.z_proposal_grad,
        potential_energy=tree.z_proposal_pe,
        rng_key=key,
    )
    st = jax.lax.cond(i < plan.warmup, _adapt, lambda s, *_: s, st, accept, i, plan)
    stats = {
        "diverging": tree.diverging,
        "n_steps": tree.num_proposals,
        "acceptance_rate": accept,
        "energy": tree.z_proposal_energy,
        "lp": -tree.z_proposal_pe,
        "step_size": st.step_size,
    }
    return st, (st.z, stats)


def _adapt(st: ChainState, accept: jax.Array, i: jax.Array, plan: Plan) -> ChainState:
    """Warm-up iteration ``i``'s adaptation: NumPyro's ``warmup_adapter`` update over
    ``[0, n_adapt)``, then dual averaging of the step size alone up to ``warmup``."""
    # The closing window opens: dual averaging restarts, as NumPyro restarts it at a
    # window's end (prox centre log 10ε); this iteration ran at the averaged ε.
    ss = jax.lax.cond(
        i == plan.n_adapt, lambda: _da_init(jnp.log(10.0) + jnp.log(st.step_size)), lambda: st.ss
    )
    ss = _da_update(plan.target_accept - accept, ss)
    # the averaged iterate at the end of either window, the last one elsewhere
    at_end = (i == plan.n_adapt - 1) | (i == plan.warmup - 1)
    step_size = jnp.clip(jnp.exp(jnp.where(at_end, ss[1], ss[0])), _TINY, _HUGE)
    st = st._replace(ss=ss, step_size=step_size)
    in_window = (plan.mm_first <= i) & (i <= plan.mm_last)
    st = jax.lax.cond(in_window, lambda s: s._replace(mm=_mm_update(s.z, s.mm)), lambda s: s, st)
    return jax.lax.cond(in_window & jnp.any(i == plan.mm_ends), _window_end, lambda s: s, st)


def _window_end(st: ChainState) -> ChainState:
    """A mass-matrix window closes: Stan's regularised variance, a fresh Welford
    estimate, dual averaging restarted at log 10ε (NumPyro's ``_update_at_window_end``)."""
    inverse_mass_matrix, mass_matrix_sqrt, _ = _mm_final(st.mm, regularize=True)
    return st._replace(
        inverse_mass_matrix=inverse_mass_matrix,
        mass_matrix_sqrt=mass_matrix_sqrt,
        mm=_mm_init(inverse_mass_matrix.shape[-1]),
        ss=_da_init(jnp.log(10.0) + jnp.log(st.step_size)),
    )


def nuts_chain(
    potential_gen: Callable,
    z_template: Any,
    *,
    warmup: int,
    draws: int,
    target_accept: float,
    model_kwargs: Mapping[str, Any],
    rng: jax.Array,
) -> tuple[Any, dict[str, jax.Array]]:
    """One NUTS chain (traceable): ``warmup`` adaptation steps, then ``draws`` draws.

    ``potential_gen(**model_kwargs)`` is the potential energy on the unconstrained
    space (``CompiledModel.potential_gen``); the chain starts as :func:`init_chain` says.

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

    Returns
    -------
    zs
        Unconstrained draws (a pytree with a leading ``draws`` axis).
    stats
        Per-draw sampler statistics named as ArviZ expects: ``diverging``,
        ``n_steps``, ``tree_depth``, ``acceptance_rate``, ``energy``, ``lp``,
        ``step_size``.
    """
    potential_fn = potential_gen(**model_kwargs)
    plan = Plan(*map(jnp.asarray, make_plan(warmup, draws, target_accept)))
    st = init_chain(potential_fn, z_template, rng)
    _, (zs, stats) = jax.lax.scan(
        lambda s, i: transition(potential_fn, s, i, plan),
        st,
        jnp.arange(warmup + draws, dtype=jnp.int32),
    )
    zs, stats = jax.tree.map(lambda x: x[warmup:], (zs, stats))
    stats["tree_depth"] = jnp.floor(jnp.log2(stats["n_steps"])).astype(jnp.int32) + 1
    return zs, stats


def chain_starts(
    blank: ChainState, z_template: Any, rng: np.ndarray, chain: int
) -> Iterator[ChainState]:
    """Start states of chain ``chain`` (on the host, NumPy), one per attempt.

    ``blank`` gives the shapes. A NumPy generator seeded with the key ``rng`` and
    ``chain`` draws the chain's NUTS key (raw key data, any bits are a valid key) and
    then, one per attempt, uniform(−2, 2) points on the unconstrained space (NumPyro's
    ``init_to_uniform``);
    :func:`chunk_fn` evaluates the potential there. Drawn here rather than in the
    compiled chunk: the random-number code of an in-kernel start doubled the time
    XLA took to compile the chunk's start (``docs/benchmarks.md``).
    """
    gen = np.random.default_rng([*np.asarray(rng, dtype=np.uint32).ravel().tolist(), chain])
    key = gen.integers(0, 2**32, size=np.shape(rng), dtype=np.uint32)
    leaves, treedef = jax.tree.flatten(z_template)
    while True:
        z = [gen.uniform(-2.0, 2.0, size=x.shape).astype(x.dtype) for x in leaves]
        yield blank._replace(z=jax.tree.unflatten(treedef, z), rng_key=key)


def is_finite_start(state: ChainState) -> bool:
    """Whether the potential and its gradient are finite at ``state`` (host)."""
    grads = [np.asarray(g) for g in jax.tree.leaves(state.z_grad)]
    return bool(
        np.isfinite(np.asarray(state.potential_energy)) and all(np.isfinite(g).all() for g in grads)
    )


def chunk_fn(
    potential_gen: Callable, postprocess_gen: Callable, z_template: Any, chunk: int = CHUNK
) -> Callable:
    """``run(state, start, plan, arrays)``: iterations ``start … start + chunk − 1`` of one
    chain (traceable).

    At ``start == 0`` only the position and key of ``state`` count (a start from
    :func:`chain_starts`): the chain starts there with unit step size and mass matrix,
    the potential and its gradient are evaluated and, where either is not finite, no
    iteration runs (the caller draws another start). Returns the new state, the
    constrained positions (``postprocess_gen``) and the statistics, each with a leading
    ``chunk`` axis; iterations at or past ``plan.total`` leave the state as it is (rows
    of padding).
    """

    def run(state: ChainState, start: jax.Array, plan: Plan, arrays: dict) -> tuple:
        potential_fn = potential_gen(**arrays)

        def begin() -> ChainState:
            pe, grad = jax.value_and_grad(potential_fn)(state.z)
            return blank_state(z_template, state.rng_key)._replace(
                z=state.z, potential_energy=pe, z_grad=grad
            )

        state = jax.lax.cond(start == 0, begin, lambda: state)
        finite = jnp.isfinite(state.potential_energy) & jnp.all(
            jnp.isfinite(ravel_pytree(state.z_grad)[0])
        )

        def idle(s: ChainState) -> tuple:
            zero = jnp.zeros((), dtype=s.potential_energy.dtype)
            return s, (
                s.z,
                {
                    "diverging": jnp.array(False),
                    "n_steps": jnp.array(0, dtype=jnp.result_type(int)),
                    "acceptance_rate": zero,
                    "energy": zero,
                    "lp": -s.potential_energy,
                    "step_size": s.step_size,
                },
            )

        def body(s: ChainState, i: jax.Array) -> tuple:
            return jax.lax.cond(
                (i < plan.total) & finite,
                lambda: transition(potential_fn, s, i, plan),
                lambda: idle(s),
            )

        state, (zs, stats) = jax.lax.scan(body, state, start + jnp.arange(chunk, dtype=jnp.int32))
        return state, jax.vmap(postprocess_gen(**arrays))(zs), stats

    return run


def raw_key(rng: jax.Array) -> np.ndarray:
    """The raw key data of a PRNG key (typed or raw), on the host."""
    if jax.dtypes.issubdtype(rng.dtype, jax.dtypes.prng_key):
        rng = jax.random.key_data(rng)
    return np.asarray(rng)


def run_chains(
    kernel: Callable,
    blank: ChainState,
    z_template: Any,
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

    ``kernel`` is the compiled :func:`chunk_fn` of the model (``blank``: a state of its
    shapes). Chain ``c``'s key and start come from a NumPy generator seeded with ``rng``
    and ``c`` (:func:`chain_starts`); each chain runs on its own thread. ``progress`` is a
    tqdm bar (total ``chains · (warmup + draws)``) or ``None``; it advances as chunks of
    :data:`CHUNK` iterations finish.
    """
    plan = Plan(*map(jnp.asarray, make_plan(warmup, draws, target_accept)))
    rng = raw_key(rng)
    lock = threading.Lock()

    def tick(n: int) -> None:
        if progress is not None:
            with lock:
                progress.update(n)

    def run(chain: int) -> tuple[dict, dict]:
        return _run_chain(
            kernel,
            chain_starts(blank, z_template, rng, chain),
            arrays,
            plan,
            chunk_ranges(warmup, draws, CHUNK),
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


def _run_chain(
    kernel: Callable,
    starts: Iterator[ChainState],
    arrays: Mapping,
    plan: Plan,
    chunks: Iterable[tuple[int, int, int]],
    tick: Callable[[int], None],
) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """Run one chain chunk by chunk (``chunks``: :func:`chunk_ranges`) and keep its draws
    (leading axis: draw).

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
