"""MAP and the Laplace approximation on a compiled model's potential.

The mode of the potential U (the negative log joint on the unconstrained space,
NumPyro's, compiled with its gradient by
:meth:`~judgebayes.bayes.engine.model.CompiledModel.flat_potential`) is found by SciPy's
L-BFGS; the Laplace approximation is the Normal at the mode with covariance H⁻¹, H the
Hessian of U there, estimated by central differences of the compiled gradient
(:func:`central_hessian`), which compiles nothing more. Everything runs in float64
(``jax.enable_x64``): the caller opens that context around :func:`laplace` and whatever
else uses its compiled model.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from scipy.linalg import solve_triangular
from scipy.optimize import OptimizeResult, minimize

from judgebayes.bayes.engine.model import CompiledModel
from judgebayes.errors import JudgeBayesWarning

__all__ = ["central_hessian", "laplace", "lbfgs_mode"]


def laplace(
    compiled: CompiledModel, arrays: Mapping[str, jax.Array], draws: int, key: jax.Array
) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """The mode and ``draws`` Laplace draws of every latent and deterministic site.

    Call with ``jax.enable_x64(True)`` on. The mode minimises U by L-BFGS (a warning
    where it stops early with a gradient above 1e-3); the draws are
    z = mode + L⁻ᵀe, e ~ N(0, I), with H = LLᵀ (so Cov(z) = H⁻¹), from a NumPy generator
    seeded by ``key``, then constrained.

    Returns
    -------
    point
        Each site's value at the mode.
    samples
        Each site's draws, shaped ``(1, draws, ...)`` (one chain).

    Raises
    ------
    ValueError
        Where H is not positive definite (no proper mode, e.g. a hierarchical scale
        that collapses to zero).
    """
    flat0, value_and_grad, constrain = compiled.flat_potential()
    res = lbfgs_mode(value_and_grad, flat0, arrays)
    if not res.success and np.abs(res.jac).max() > 1e-3:
        warnings.warn(
            f"MAP optimiser stopped early ({res.message}); the largest gradient "
            f"component is {np.abs(res.jac).max():.2g}",
            JudgeBayesWarning,
            stacklevel=4,
        )
    hess = central_hessian(value_and_grad, jnp.asarray(res.x), arrays)
    try:
        chol = np.linalg.cholesky(0.5 * (hess + hess.T))
    except np.linalg.LinAlgError:
        raise ValueError(
            "the log density has no proper mode here (its Hessian is not "
            "positive definite, as for a hierarchical scale that collapses to "
            "zero), so MAP and Laplace are undefined: use method='nuts'"
        ) from None
    # Laplace draws z = mode + L^-T e with H = L L^T, so Cov(z) = H^-1.
    rng = np.random.default_rng(np.asarray(jax.random.key_data(key)).ravel()[-1])
    e = rng.standard_normal((draws, res.x.size))
    z = res.x + solve_triangular(chol, e.T, lower=True, trans="T").T
    both = constrain(jnp.asarray(np.vstack([res.x[None], z])), arrays)
    both = {k: np.asarray(v) for k, v in both.items()}  # slicing a JAX array compiles
    return {k: v[0] for k, v in both.items()}, {k: v[1:][None] for k, v in both.items()}


def lbfgs_mode(
    value_and_grad: Callable, x0: Any, arrays: Mapping[str, jax.Array]
) -> OptimizeResult:
    """The minimum of a potential U by SciPy's L-BFGS-B from ``x0``, as :func:`laplace`
    finds its mode (gradient tolerance 1e-9, at most 10,000 iterations).

    Parameters
    ----------
    value_and_grad
        ``value_and_grad(x, arrays) -> (U(x), ∇U(x))``, jitted.
    x0
        The starting point (a flat vector).
    arrays
        The potential's array arguments.

    Returns
    -------
    scipy.optimize.OptimizeResult
        SciPy's result: ``x`` the mode, ``jac`` the gradient there, ``success``.
    """

    def fun(x: np.ndarray) -> tuple[float, np.ndarray]:
        v, g = value_and_grad(jnp.asarray(x), arrays)
        return float(v), np.asarray(g, dtype=float)

    return minimize(
        fun,
        x0,
        jac=True,
        method="L-BFGS-B",
        options={"maxiter": 10_000, "gtol": 1e-9, "ftol": 1e-15},
    )


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
    symmetrising keeps that bound (``tests/test_map_hessian.py`` checks every entry
    against ``jax.hessian`` and the bound; the measured errors are in
    ``docs/benchmarks.md``). H⁻¹ moves by at most κ(H) times the relative error: far
    below any Laplace Monte Carlo error. Needs x64 (in float32 it is good to ~1e-4 only).

    Cost. 2n calls of the compiled ``value_and_grad`` and nothing compiled, where
    ``jax.hessian`` compiles a forward-over-reverse program and a gradient vmapped over
    the 2n points would compile too (``docs/benchmarks.md``).

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
