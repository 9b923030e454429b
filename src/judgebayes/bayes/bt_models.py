r"""Bradley–Terry generative models on pair sufficient statistics.

:func:`bt_model`
    θ ~ ZeroSumNormal(σ) (a Normal(0, σ) prior restricted to Σθ = 0) and, for
    every model pair p = (i, j) with total weight n_p, the summed target
    y_p ~ :class:`SoftBinomial`\ (n_p, σ(θ_i − θ_j)). With hard labels and ties
    counted as ½, or with soft targets, y_p need not be an integer: the
    likelihood is then the *generalised* likelihood
    Σ_p y_p log σ(d_p) + (n_p − y_p) log σ(−d_p) of seed 000, Eq. 1 (a Binomial
    kernel; a "generalised posterior" in the sense of Bissiri et al. 2016). With
    σ = 1/√(2λ) the log prior is −λ‖θ‖², so the posterior mode is the penalised
    MLE of Eq. 1 (tested): that MLE already satisfies Σθ = 0, and the zero-sum
    prior removes the one direction (a common shift) the data cannot identify,
    which would otherwise dominate every Elo's posterior and stall NUTS.

:func:`davidson_model`
    Ties modelled explicitly (Davidson 1970): per pair the counts of
    (i wins, tie, j wins) ~ Multinomial(n_p, π) with
    π ∝ (e^{θ_i}, ν·e^{(θ_i+θ_j)/2}, e^{θ_j}).
"""

from __future__ import annotations

from typing import ClassVar

import jax
import jax.numpy as jnp
import numpy as np
import numpyro
import numpyro.distributions as dist
from numpyro.distributions import constraints

from judgebayes.core.bt import ELO_BASE, ELO_SCALE
from judgebayes.core.pairs import PairStats

__all__ = ["SoftBinomial", "bt_data", "bt_model", "davidson_data", "davidson_model",
           "prior_sd_from_lam"]


class SoftBinomial(dist.Distribution):
    """Binomial kernel extended to real-valued success totals y ∈ [0, n].

    log p(y) = y·log σ(d) + (n − y)·log σ(−d): the (generalised) log-likelihood of
    seed 000, Eq. 1 for a pair with total weight n and summed soft target y. For
    integer y it is the Binomial log-pmf without the binomial coefficient (a
    constant); sampling draws Binomial counts. Written here because NumPyro's
    Binomial rejects non-integer values.
    """

    arg_constraints: ClassVar[dict] = {"total_count": constraints.nonnegative,
                                       "logits": constraints.real}
    pytree_data_fields = ("total_count", "logits")

    def __init__(self, total_count: jnp.ndarray, logits: jnp.ndarray, *,
                 validate_args: bool | None = None) -> None:
        self.total_count, self.logits = jnp.broadcast_arrays(
            jnp.asarray(total_count, dtype=jnp.result_type(float)), logits)
        super().__init__(batch_shape=jnp.shape(self.logits), validate_args=validate_args)

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self) -> constraints.Constraint:
        return constraints.interval(0.0, self.total_count)

    def log_prob(self, value: jnp.ndarray) -> jnp.ndarray:
        # Equal to y·log σ(d) + (n − y)·log σ(−d), since log σ(d) = d + log σ(−d), with
        # one log-sigmoid instead of two: half the transcendental work in every gradient.
        return value * self.logits + self.total_count * jax.nn.log_sigmoid(-self.logits)

    def sample(self, key: jax.Array, sample_shape: tuple = ()) -> jnp.ndarray:
        return dist.Binomial(jnp.round(self.total_count).astype(jnp.result_type(int)),
                             logits=self.logits).sample(key, sample_shape).astype(float)

    @property
    def mean(self) -> jnp.ndarray:
        return self.total_count * jax.nn.sigmoid(self.logits)


def prior_sd_from_lam(lam: float) -> float:
    """σ = 1/√(2λ): the Normal prior whose log density is −λθ² (+ const)."""
    if lam <= 0:
        raise ValueError("lam must be > 0 for a proper prior")
    return float(1.0 / np.sqrt(2.0 * lam))


def bt_model(i: jnp.ndarray, j: jnp.ndarray, n: jnp.ndarray, n_models: int,
             prior_sd: float = 7.0710678, y: jnp.ndarray | None = None) -> None:
    """Bradley–Terry on pair statistics (see the module docstring).

    Parameters
    ----------
    i, j
        Model indices of each pair.
    n
        Total battle weight of each pair.
    n_models
        Number of models.
    prior_sd
        σ of the zero-sum Normal prior on θ (default 1/√(2·0.01), seed 000's λ).
    y
        Summed target of each pair oriented to ``i`` (``None`` generates).
    """
    theta = numpyro.sample("theta", dist.ZeroSumNormal(prior_sd, event_shape=(n_models,)))
    numpyro.deterministic("elo", ELO_BASE + ELO_SCALE * theta)
    with numpyro.plate("pair", len(n)):
        numpyro.sample("y", SoftBinomial(n, theta[i] - theta[j]), obs=y)


def bt_data(stats: PairStats, lam: float = 0.01) -> dict:
    """Keyword arguments of :func:`bt_model` from pair statistics."""
    return {"i": jnp.asarray(stats.i), "j": jnp.asarray(stats.j), "n": jnp.asarray(stats.n),
            "n_models": stats.n_models, "prior_sd": prior_sd_from_lam(lam),
            "y": jnp.asarray(stats.y)}


def davidson_model(i: jnp.ndarray, j: jnp.ndarray, n: jnp.ndarray, n_models: int,
                   prior_sd: float = 7.0710678, counts: jnp.ndarray | None = None) -> None:
    """Davidson tie model: per pair (i wins, tie, j wins) counts ~ Multinomial.

    Parameters
    ----------
    i, j, n, n_models, prior_sd
        As for :func:`bt_model` (``n`` must be integer counts).
    counts
        Array ``(n_pairs, 3)`` of (i wins, ties, j wins); ``None`` generates.
    """
    theta = numpyro.sample("theta", dist.ZeroSumNormal(prior_sd, event_shape=(n_models,)))
    log_nu = numpyro.sample("log_nu", dist.Normal(0.0, 2.0))
    numpyro.deterministic("elo", ELO_BASE + ELO_SCALE * theta)
    numpyro.deterministic("nu", jnp.exp(log_nu))
    ti, tj = theta[i], theta[j]
    logits = jnp.stack([ti, log_nu + 0.5 * (ti + tj), tj], axis=-1)
    with numpyro.plate("pair", len(n)):
        numpyro.sample("counts", dist.Multinomial(total_count=n, logits=logits), obs=counts)


def davidson_data(stats: PairStats, lam: float = 0.01) -> dict:
    """Keyword arguments of :func:`davidson_model` from hard-label pair statistics."""
    if np.any(stats.cell_weight != 1) or not np.all(np.isin(stats.cell_target, [0, 0.5, 1])):
        raise ValueError("the Davidson model needs unweighted hard labels (1 / 0.5 / 0)")
    counts = np.zeros((stats.n_pairs, 3))
    col = (2 - 2 * stats.cell_target).astype(int)  # 1 -> 0 (i wins), 0.5 -> 1, 0 -> 2
    np.add.at(counts, (stats.cell_pair, col), stats.cell_count)
    return {"i": jnp.asarray(stats.i), "j": jnp.asarray(stats.j),
            "n": jnp.asarray(counts.sum(axis=1)), "n_models": stats.n_models,
            "prior_sd": prior_sd_from_lam(lam), "counts": jnp.asarray(counts)}
