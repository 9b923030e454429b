"""A NumPyro model bound to its layout, and its compiled kernels.

NumPyro's ``MCMC.run`` traces and compiles its sampling loop again on every call unless
the caller keeps the ``MCMC`` object and its arguments' shapes (``jit_model_args``);
:func:`judgebayes.fit` is a function, so the engine keeps what it compiles instead:
:meth:`CompiledModel.of` finds the model of a :class:`~judgebayes.bayes.engine.keys.Layout`
in the engine's cache, and each kernel is compiled on first use and cached under the
same layout, with the arrays passed to the compiled function as arguments. A new data
set of the same shapes, a new seed or a second fit reuses them.

The kernels: NUTS (:mod:`~judgebayes.bayes.engine.nuts`'s chunked driver; SBC's whole
chains vmapped over simulations), the pointwise log-likelihood of every observed site
at every draw, the observed values of the data sites, and MAP's potential with its
gradient (:mod:`~judgebayes.bayes.engine.laplace`). The potential is NumPyro's (the
negative log joint on the unconstrained space); draws are constrained by NumPyro's
``constrain_fn``, deterministic sites included. XLA options come from
:mod:`~judgebayes.bayes.engine.xla`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax.flatten_util import ravel_pytree
from numpyro.distributions import biject_to
from numpyro.handlers import seed, trace
from numpyro.infer.util import constrain_fn, log_likelihood, potential_energy

from judgebayes.bayes.engine import nuts, xla
from judgebayes.bayes.engine.cache import cached
from judgebayes.bayes.engine.keys import NEEDS_CONCRETE, Layout, signature
from judgebayes.bayes.engine.sites import is_data_site

__all__ = ["LOGLIK_BLOCK", "CompiledModel", "bound_model", "target_accept_for"]

#: Draws per call of the compiled pointwise log-likelihood.
LOGLIK_BLOCK = 1000


def target_accept_for(model: Callable, target_accept: float | None) -> float:
    """``target_accept``, or where it is ``None`` the model's own ``target_accept``
    attribute (a model with hard geometry sets one), or 0.8."""
    if target_accept is not None:
        return float(target_accept)
    return float(getattr(model, "target_accept", 0.8))


def bound_model(model: Callable, static: Mapping[str, Any]) -> Callable:
    """``model`` with its static keyword arguments fixed (a named function, for traces)."""

    def bound(**arrays: Any) -> Any:
        return model(**static, **arrays)

    bound.__name__ = getattr(model, "__name__", "model")
    bound.__doc__ = model.__doc__
    return bound


@dataclass(frozen=True, eq=False)
class CompiledModel:
    """A NumPyro model with its static arguments bound, for one layout.

    Get one with :meth:`of`; its kernels compile on first use and are cached with it.

    Attributes
    ----------
    layout
        The :class:`~judgebayes.bayes.engine.keys.Layout` it was built for.
    model
        The model with its static arguments (and bound arrays) fixed: ``model(**arrays)``.
    z_template
        Shapes and dtypes of the latent sites on the unconstrained space.
    """

    layout: Layout
    model: Callable
    z_template: Any

    @classmethod
    def of(
        cls, model: Callable, data: Mapping[str, Any], *, bind: Collection[str] = ()
    ) -> tuple[CompiledModel, dict[str, jax.Array]]:
        """The (cached) compiled model of ``model(**data)`` and the arrays to pass it.

        Arrays named in ``bind`` are bound (see :mod:`~judgebayes.bayes.engine.keys`);
        where the model reads another of its arrays, every array is bound: it then
        compiles per data set, as NumPyro's ``MCMC`` does, and gets no arrays.
        """
        layout, arrays, static = Layout.of(model, data, bind=bind)
        try:
            return cached(("model", layout), lambda: cls._build(layout, static, arrays)), arrays
        except NEEDS_CONCRETE:
            if not arrays:
                raise
        return cls.of(model, data, bind=[*bind, *arrays])

    @classmethod
    def _build(
        cls, layout: Layout, static: Mapping[str, Any], arrays: Mapping[str, jax.Array]
    ) -> CompiledModel:
        bound = bound_model(layout.model, static)
        return cls(layout, bound, _unconstrained_shapes(bound, arrays))

    def potential_gen(self, **arrays: Any) -> Callable:
        """The potential energy (negative log joint on the unconstrained space) given
        ``arrays``: NumPyro's ``potential_energy``."""
        return functools.partial(potential_energy, self.model, (), arrays)

    def postprocess_gen(self, **arrays: Any) -> Callable:
        """Unconstrained point → constrained values of every latent and deterministic
        site given ``arrays``: NumPyro's ``constrain_fn``."""
        return functools.partial(constrain_fn, self.model, (), arrays, return_deterministic=True)

    def kernel(self, name: tuple, build: Callable[[], Any]) -> Any:
        """The kernel ``name`` of this layout, built by ``build()`` on first use (cached;
        JAX's persistent compilation cache is on before anything compiles)."""
        xla.enable_persistent_cache()
        return cached(("kernel", self.layout, *name), build)

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
        """Constrained draws and sampler statistics, each shaped ``(chain, draw, ...)``,
        by :func:`~judgebayes.bayes.engine.nuts.run_chains` (``progress``: a tqdm bar).

        The compiled chunk kernel depends on neither ``chains``, ``draws``, ``warmup``
        nor ``target_accept``.
        """
        chunk = nuts.CHUNK
        kernel, blank = self.kernel(("nuts", chunk), lambda: self._nuts_kernel(arrays, chunk))
        return nuts.run_chains(
            kernel,
            blank,
            self.z_template,
            rng,
            arrays,
            chains=chains,
            draws=draws,
            warmup=warmup,
            target_accept=target_accept,
            progress=progress,
        )

    def _nuts_kernel(
        self, arrays: Mapping[str, jax.Array], chunk: int
    ) -> tuple[Callable, nuts.ChainState]:
        """The chunk kernel of one chain compiled ahead of time for these argument shapes
        (the plan's values do not matter, only its shapes and dtypes, those of every
        :func:`~judgebayes.bayes.engine.nuts.make_plan`), and a state of its shapes."""
        rng = nuts.raw_key(jax.random.PRNGKey(0))
        blank = jax.tree.map(
            lambda s: np.zeros(s.shape, s.dtype),
            jax.eval_shape(nuts.blank_state, self.z_template, rng),
        )
        plan = nuts.Plan(*map(jnp.asarray, nuts.make_plan(1, 1, 0.8)))
        run = jax.jit(
            nuts.chunk_fn(self.potential_gen, self.postprocess_gen, self.z_template, chunk)
        )
        lowered = run.lower(blank, np.int32(0), plan, arrays)
        return lowered.compile(xla.compiler_options(arrays)), blank

    def batched_nuts(
        self, params: Iterable[str], *, warmup: int, draws: int, thin: int, target_accept: float
    ) -> Callable:
        """``run(fit_key, rows, arrays, obs) -> (draws, divergences)``: SBC's refits, one
        :func:`~judgebayes.bayes.engine.nuts.nuts_chain` per row (seed
        ``fold_in(fit_key, rows[r])``, data ``obs[r]`` and the shared ``arrays``), jitted
        and vmapped, its ``params`` flattened per kept draw; compiled once per layout,
        settings and batch shape."""
        n_keep, params = -(-draws // thin), tuple(params)

        def one(rng: jax.Array, arrays: dict, obs: dict) -> tuple[jax.Array, jax.Array]:
            kwargs = {**arrays, **obs}
            zs, stats = nuts.nuts_chain(
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

        return self.kernel(
            ("sbc", params, warmup, draws, thin, target_accept), lambda: jax.jit(run)
        )

    # ------------------------------------------------------------------ MAP
    def flat_potential(self) -> tuple[np.ndarray, Callable, Callable]:
        """Flat start point, jitted value-and-gradient and batched constrain of the
        potential on a flat vector (for :mod:`~judgebayes.bayes.engine.laplace`).

        Call (and use the results) with ``jax.enable_x64(True)`` on: the kernels are
        traced for float64 vectors.
        """

        def build() -> tuple:
            flat0, unravel = ravel_pytree(
                jax.tree.map(lambda x: jnp.zeros(x.shape, dtype=jnp.float64), self.z_template)
            )

            def potential(x: jax.Array, arrays: dict) -> jax.Array:
                return self.potential_gen(**arrays)(unravel(x))

            def constrain(xs: jax.Array, arrays: dict) -> dict:
                return jax.vmap(lambda x: self.postprocess_gen(**arrays)(unravel(x)))(xs)

            return (
                np.asarray(flat0),
                jax.jit(jax.value_and_grad(potential)),
                jax.jit(constrain),
            )

        return self.kernel(("map",), build)

    # ---------------------------------------------------------- likelihood
    def pointwise_log_likelihood(
        self, samples: Mapping[str, np.ndarray], arrays: Mapping[str, jax.Array]
    ) -> dict[str, np.ndarray]:
        """Log-likelihood of every observed site at every draw (``(chain, draw, ...)``).

        Draws go through one compiled kernel in blocks of :data:`LOGLIK_BLOCK` (the
        last one padded), so a new number of draws or chains compiles nothing.
        """
        lead = next(iter(samples.values())).shape[:2]
        blocks = {
            k: jax.ShapeDtypeStruct(
                (LOGLIK_BLOCK, *v.shape[2:]), jax.dtypes.canonicalize_dtype(v.dtype)
            )
            for k, v in samples.items()
        }
        flat = {
            k: np.asarray(v).reshape(-1, *v.shape[2:]).astype(blocks[k].dtype, copy=False)
            for k, v in samples.items()
        }
        n = int(np.prod(lead))

        def build() -> Callable:
            def loglik(s: dict, a: dict) -> dict:
                return log_likelihood(self.model, s, parallel=True, **a)

            lowered = jax.jit(loglik).lower(blocks, arrays)
            return lowered.compile(xla.compiler_options(arrays))

        fn = self.kernel(("loglik", LOGLIK_BLOCK, signature(blocks)), build)
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

    def observed(self, arrays: Mapping[str, jax.Array]) -> dict[str, np.ndarray]:
        """Values of the data sites (:func:`~judgebayes.bayes.engine.sites.is_data_site`),
        from one compiled trace of the model: running it op by op instead compiles a
        kernel for every operation on the first call of a process."""

        def values(a: dict) -> dict:
            tr = trace(seed(self.model, 0)).get_trace(**a)
            return {k: s["value"] for k, s in tr.items() if is_data_site(s)}

        fn = self.kernel(("observed",), lambda: jax.jit(values))
        return {k: np.asarray(v) for k, v in fn(arrays).items()}


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
