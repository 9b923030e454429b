"""The (adaptive) online Elo recursion as a differentiable ``jax.lax.scan``.

Zhang, Wang, Wu, Yu, Wang, Bao & Tang (*UDA: Unsupervised Debiasing Alignment for Pair-wise
LLM-as-a-Judge*, 2025, arXiv:2508.09724), Algorithm 2: for each battle of judge k, in order,

    p̂_ij = σ((R_i − R_j)·ln 10 / scale),
    R_i ← R_i + K_ij (s_i − p̂_ij),
    R_j ← R_j + K_ij (s_j − (1 − p̂_ij)) = R_j − K_ij (s_i − p̂_ij)   (s_j = 1 − s_i).

With K_ij = K and s_i = r_ij it is the baseline of Eq. 1. The scan carries the rating
vector; gradients with respect to every K_ij and s_i flow through it, which is what
training the UDA adapter against the consensus loss (Eq. 3) needs. A battle with
K_ij = 0 changes nothing: that is how judges with fewer battles are padded when
judges are vectorised (:func:`elo_scan_judges`). The plain-Python twin is
:func:`judgebayes.consensus.elo.elo_loop`.
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp

__all__ = ["elo_scan", "elo_scan_judges", "elo_trajectory"]


def elo_scan(
    i: jax.Array,
    j: jax.Array,
    k: jax.Array,
    s: jax.Array,
    n_models: int,
    *,
    scale: float = 400.0,
    initial: float = 1200.0,
) -> jax.Array:
    """Run Algorithm 2 of Zhang et al. (2025) over one judge's battles (Eq. 1 when K, s are fixed,
    hard).

    Parameters
    ----------
    i, j
        Integer model indices of each battle, shape ``(L,)``, in playing order.
    k
        K-factor of each battle, ``(L,)`` (0 for padding).
    s
        Soft label s_i of each battle (the verdict r_ij for the baseline), ``(L,)``.
    n_models
        Number of models.
    scale, initial
        Logistic scale and the starting rating of every model.

    Returns
    -------
    jax.Array
        Final ratings ``(n_models,)``; :func:`elo_trajectory` also returns the ratings
        after every battle.
    """
    return _scan(i, j, k, s, n_models, scale, initial, keep=False)[0]


def elo_trajectory(
    i: jax.Array,
    j: jax.Array,
    k: jax.Array,
    s: jax.Array,
    n_models: int,
    *,
    scale: float = 400.0,
    initial: float = 1200.0,
) -> tuple[jax.Array, jax.Array]:
    """:func:`elo_scan` with the ratings after every battle.

    Returns
    -------
    final
        Final ratings ``(n_models,)``.
    path
        The ratings after each battle, ``(L, n_models)``.
    """
    return _scan(i, j, k, s, n_models, scale, initial, keep=True)


def _scan(
    i: jax.Array,
    j: jax.Array,
    k: jax.Array,
    s: jax.Array,
    n_models: int,
    scale: float,
    initial: float,
    *,
    keep: bool,
) -> tuple[jax.Array, jax.Array | None]:
    """Algorithm 2's recursion as a ``lax.scan``; the path of ratings where ``keep``."""
    dtype = jnp.result_type(k, s, float)
    start = jnp.full((n_models,), initial, dtype=dtype)
    c = math.log(10.0) / scale
    # Battle b as a signed indicator o_b = e_i − e_j: R·o_b = R_i − R_j and R + Δ·o_b is the
    # pair of updates. Dense O(n_models) steps vectorise over judges without scatters
    # (faster than ``.at[].add`` under ``vmap`` on CPU, docs/benchmarks.md); fine for arenas
    # of ≲ 1,000 models.
    sign = jax.nn.one_hot(jnp.asarray(i), n_models, dtype=dtype) - jax.nn.one_hot(
        jnp.asarray(j), n_models, dtype=dtype
    )

    def step(ratings: jax.Array, battle: tuple) -> tuple[jax.Array, jax.Array | None]:
        o, kk, ss = battle
        delta = kk * (ss - jax.nn.sigmoid((ratings @ o) * c))
        ratings = ratings + delta * o
        return ratings, (ratings if keep else None)

    return jax.lax.scan(step, start, (sign, jnp.asarray(k, dtype), jnp.asarray(s, dtype)))


def elo_scan_judges(
    i: jax.Array,
    j: jax.Array,
    k: jax.Array,
    s: jax.Array,
    n_models: int,
    *,
    scale: float = 400.0,
    initial: float = 1200.0,
) -> jax.Array:
    """:func:`elo_scan` for every judge at once: inputs ``(n_judges, L)``, output
    ``(n_judges, n_models)`` (vectorised with ``jax.vmap``; pad with K = 0)."""
    return jax.vmap(
        lambda a, b, kk, ss: elo_scan(a, b, kk, ss, n_models, scale=scale, initial=initial)
    )(i, j, k, s)
