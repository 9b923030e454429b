r"""Bradley–Terry generative models on pair sufficient statistics.

:func:`bt_model`
    θ ~ ZeroSumNormal(σ) (a Normal(0, σ) prior restricted to Σθ = 0) and, for
    every model pair p = (i, j) with total weight n_p, the summed target
    y_p ~ :class:`SoftBinomial`\ (n_p, σ(θ_i − θ_j)). With hard labels and ties
    counted as ½, or with soft targets, y_p need not be an integer: the
    likelihood is then the *generalised* likelihood
    Σ_p y_p log σ(d_p) + (n_p − y_p) log σ(−d_p) of Kargi & Salinas (*From Uncertain Judgments to
    Calibrated Rankings: Conformal Elo Estimation for LLM Evaluation*, 2026, arXiv:2606.13221), Eq.
    1 (a Binomial kernel; a "generalised posterior" in the sense of Bissiri et al. 2016). With σ =
    1/√(2λ) the log prior is −λ‖θ‖², so the posterior mode is the penalised MLE of Eq. 1 (tested):
    that MLE already satisfies Σθ = 0, and the zero-sum prior removes the one direction (a common
    shift) the data cannot identify, which would otherwise dominate every Elo's posterior and stall
    NUTS.

:func:`davidson_model`
    Ties modelled explicitly (Davidson 1970): per pair the counts of
    (i wins, tie, j wins) ~ Multinomial(n_p, π) with
    π ∝ (e^{θ_i}, ν·e^{(θ_i+θ_j)/2}, e^{θ_j}).

The leaderboard's variants of :func:`bt_model` (the same likelihood, one more term in
the logit; built by ``jb.models.bt(..., prompt_effects=True | features= | by=)``):

:func:`bt_prompt_model`
    A prompt random effect: the battles of one prompt and pair share ε_g ~ Normal(0, σ²)
    in their logit θ_i − θ_j + ε_g (σ ~ HalfNormal(1), non-centred), so several judges and
    both orders of one prompt are correlated as in
    :func:`judgebayes.simulate_prompts` (there ε = u_i − u_j, σ = √2·σ_u). θ is then the
    strength on a typical prompt, larger in magnitude than the pooled board's.
:func:`bt_covariate_model`
    Style control on the battles: logit θ_A − θ_B + xβ with β ~ Normal(0, 1/√(2λ_β)),
    the density whose mode :func:`judgebayes.style_bt` finds.
:func:`bt_category_model`
    Category boards: strengths θ + δ_c in category c, δ_c ~ Normal(0, τ²) elementwise,
    τ ~ HalfNormal(1) (non-centred): the density of :func:`judgebayes.category_bt`, whose
    MAP fixes τ by empirical Bayes where NUTS integrates it.
"""

from __future__ import annotations

from typing import ClassVar

import jax
import jax.numpy as jnp
import numpy as np
import numpyro
import numpyro.distributions as dist
from jax.custom_derivatives import SymbolicZero
from numpyro.distributions import constraints

from judgebayes.core.bt import ELO_BASE, ELO_SCALE
from judgebayes.core.pairs import PairStats

__all__ = [
    "DENSE_PAIRS_RATIO",
    "SoftBinomial",
    "bt_category_model",
    "bt_covariate_model",
    "bt_data",
    "bt_model",
    "bt_prompt_model",
    "davidson_data",
    "davidson_model",
    "pair_difference",
    "prior_sd_from_lam",
    "soft_binomial_logpdf",
]


@jax.custom_jvp
def soft_binomial_logpdf(y: jnp.ndarray, n: jnp.ndarray, d: jnp.ndarray) -> jnp.ndarray:
    r"""y·d − n·softplus(d) = y·log σ(d) + (n − y)·log σ(−d), elementwise (Kargi & Salinas, 2026,
    Eq. 1).

    The identity uses log σ(d) = d + log σ(−d); softplus(d) = log(1 + e^d) is evaluated as
    max(d, 0) + log1p(e^{−|d|}), as ``jnp.logaddexp(d, 0)`` evaluates it. Its derivatives
    are written out (a ``jax.custom_jvp``) so that they reuse the one e^{−|d|} of the value:
    ∂/∂d = y − n·σ(d) with σ(d) = 1/(1 + e^{−|d|}) for d ≥ 0 and e^{−|d|}/(1 + e^{−|d|})
    below, ∂/∂y = d, ∂/∂n = −softplus(d). Autodiff of ``jax.nn.log_sigmoid`` evaluates the
    exponential a second time (inside ``logaddexp``'s derivative): this rule makes the
    potential's value and gradient cheaper (``docs/benchmarks.md``). The rule is itself
    differentiable (second derivatives, e.g. the Laplace Hessian, are autodiff of it);
    ``tests/test_bt_gradient.py`` checks it against autodiff of Eq. 1 as written.

    Parameters
    ----------
    y
        Summed (soft) target of each pair, in [0, n].
    n
        Total weight of each pair.
    d
        Logit θ_i − θ_j of each pair.

    Returns
    -------
    jnp.ndarray
        The log density, broadcast over ``y``, ``n`` and ``d``.
    """
    return _soft_binomial_parts(y, n, d)[0]


def _soft_binomial_parts(y: jnp.ndarray, n: jnp.ndarray, d: jnp.ndarray) -> tuple:
    """The value, softplus(d) and e^{−|d|} of :func:`soft_binomial_logpdf`."""
    e = jnp.exp(-jnp.abs(d))
    softplus = jnp.maximum(d, 0.0) + jnp.log1p(e)
    return y * d - n * softplus, softplus, e


def _soft_binomial_jvp(primals: tuple, tangents: tuple) -> tuple:
    """JVP of :func:`soft_binomial_logpdf`; tangents that are symbolic zeros
    (``n`` and ``y`` are data) cost nothing."""
    y, n, d = primals
    ty, tn, td = tangents
    out, softplus, e = _soft_binomial_parts(y, n, d)
    terms = []
    if not isinstance(td, SymbolicZero):
        sigmoid = jnp.where(d >= 0, 1.0, e) / (1.0 + e)
        terms.append((y - n * sigmoid) * td)
    if not isinstance(ty, SymbolicZero):
        terms.append(ty * d)
    if not isinstance(tn, SymbolicZero):
        terms.append(-tn * softplus)
    tangent = sum(terms[1:], terms[0]) if terms else jnp.zeros_like(out)
    return out, jnp.broadcast_to(tangent, out.shape).astype(out.dtype)


soft_binomial_logpdf.defjvp(_soft_binomial_jvp, symbolic_zeros=True)


class SoftBinomial(dist.Distribution):
    """Binomial kernel extended to real-valued success totals y ∈ [0, n].

    log p(y) = y·log σ(d) + (n − y)·log σ(−d): the (generalised) log-likelihood of
    Kargi & Salinas (2026), Eq. 1 for a pair with total weight n and summed soft target y. For
    integer y it is the Binomial log-pmf without the binomial coefficient (a
    constant); sampling draws Binomial counts. Written here because NumPyro's
    Binomial rejects non-integer values.
    """

    arg_constraints: ClassVar[dict] = {
        "total_count": constraints.nonnegative,
        "logits": constraints.real,
    }
    pytree_data_fields = ("total_count", "logits")

    def __init__(
        self, total_count: jnp.ndarray, logits: jnp.ndarray, *, validate_args: bool | None = None
    ) -> None:
        self.total_count, self.logits = jnp.broadcast_arrays(
            jnp.asarray(total_count, dtype=jnp.result_type(float)), logits
        )
        super().__init__(batch_shape=jnp.shape(self.logits), validate_args=validate_args)

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self) -> constraints.Constraint:
        return constraints.interval(0.0, self.total_count)

    def log_prob(self, value: jnp.ndarray) -> jnp.ndarray:
        # y·d − n·softplus(d), equal to y·log σ(d) + (n − y)·log σ(−d): one exponential
        # and one log1p per pair, shared by the value and its gradient.
        return soft_binomial_logpdf(value, self.total_count, self.logits)

    def sample(self, key: jax.Array, sample_shape: tuple = ()) -> jnp.ndarray:
        return (
            dist.Binomial(
                jnp.round(self.total_count).astype(jnp.result_type(int)), logits=self.logits
            )
            .sample(key, sample_shape)
            .astype(float)
        )

    @property
    def mean(self) -> jnp.ndarray:
        return self.total_count * jax.nn.sigmoid(self.logits)


#: :func:`pair_difference` forms all M² differences when M² is at most this many times
#: the number of pairs (near-complete designs), and gathers the pairs' ends otherwise.
DENSE_PAIRS_RATIO = 4


def pair_difference(theta: jnp.ndarray, i: jnp.ndarray, j: jnp.ndarray) -> jnp.ndarray:
    """θ_i − θ_j of every pair (along the last axis of ``theta``).

    The same values as ``theta[..., i] - theta[..., j]``, computed so that the gradient
    (the transpose, Σ over pairs of ±cotangent at i and j) is cheap on a CPU. Where
    the design is near-complete (M² ≤ :data:`DENSE_PAIRS_RATIO` × pairs), the M × M
    differences are formed and the pairs gathered from them at ``i·M + j``: the
    gradient is then one scatter-add of P cotangents into M × M, to distinct
    consecutive cells for sorted pairs, and row minus column sums. Otherwise both ends
    are gathered at once and split (``lax.split``): one scatter-add of the 2P signed
    cotangents. Indexing ``theta[i] - theta[j]`` transposes to two scatter-adds, and
    for pairs sorted by ``i`` (as :class:`~judgebayes.core.pairs.PairStats` sorts
    them) consecutive updates of the first hit the same cell, a chain of dependent
    additions. The dense form is the fastest of the three up to M² ≈ 4–5 P and slower
    beyond, hence :data:`DENSE_PAIRS_RATIO` (timings in ``docs/benchmarks.md``).

    Parameters
    ----------
    theta
        Strengths, models along the last axis.
    i, j
        Model indices of each pair (1-D, the same length).

    Returns
    -------
    jnp.ndarray
        ``theta[..., i] - theta[..., j]``.
    """
    m, p = jnp.shape(theta)[-1], jnp.shape(i)[0]
    if m * m <= DENSE_PAIRS_RATIO * p:
        i, j = (jnp.where(k < 0, k + m, k) for k in (i, j))  # Python-style negatives
        diffs = theta[..., :, None] - theta[..., None, :]
        return diffs.reshape(*jnp.shape(theta)[:-1], m * m)[..., i * m + j]
    both = theta[..., jnp.concatenate([i, j])]
    theta_i, theta_j = jax.lax.split(both, (p, jnp.shape(j)[0]), axis=-1)
    return theta_i - theta_j


def prior_sd_from_lam(lam: float) -> float:
    """σ = 1/√(2λ): the Normal prior whose log density is −λθ² (+ const)."""
    if lam <= 0:
        raise ValueError("lam must be > 0 for a proper prior")
    return float(1.0 / np.sqrt(2.0 * lam))


def _strengths(n_models: int, prior_sd: float) -> jnp.ndarray:
    """The strengths of every model here: θ ~ ZeroSumNormal(``prior_sd``), with the Elo
    1500 + (400 / ln 10)·θ recorded as the deterministic site ``elo``."""
    theta = numpyro.sample("theta", dist.ZeroSumNormal(prior_sd, event_shape=(n_models,)))
    numpyro.deterministic("elo", ELO_BASE + ELO_SCALE * theta)
    return theta


def bt_model(
    i: jnp.ndarray,
    j: jnp.ndarray,
    n: jnp.ndarray,
    n_models: int,
    prior_sd: float = 7.0710678,
    y: jnp.ndarray | None = None,
) -> None:
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
        σ of the zero-sum Normal prior on θ (default 1/√(2·0.01), Kargi & Salinas's (2026) λ).
    y
        Summed target of each pair oriented to ``i`` (``None`` generates).
    """
    theta = _strengths(n_models, prior_sd)
    with numpyro.plate("pair", len(n)):
        numpyro.sample("y", SoftBinomial(n, pair_difference(theta, i, j)), obs=y)


def bt_data(stats: PairStats, lam: float = 0.01) -> dict:
    """Keyword arguments of :func:`bt_model` from pair statistics."""
    return {
        "i": jnp.asarray(stats.i),
        "j": jnp.asarray(stats.j),
        "n": jnp.asarray(stats.n),
        "n_models": stats.n_models,
        "prior_sd": prior_sd_from_lam(lam),
        "y": jnp.asarray(stats.y),
    }


def davidson_model(
    i: jnp.ndarray,
    j: jnp.ndarray,
    n: jnp.ndarray,
    n_models: int,
    prior_sd: float = 7.0710678,
    counts: jnp.ndarray | None = None,
) -> None:
    """Davidson tie model: per pair (i wins, tie, j wins) counts ~ Multinomial.

    Parameters
    ----------
    i, j, n, n_models, prior_sd
        As for :func:`bt_model` (``n`` must be integer counts).
    counts
        Array ``(n_pairs, 3)`` of (i wins, ties, j wins); ``None`` generates.
    """
    theta = _strengths(n_models, prior_sd)
    log_nu = numpyro.sample("log_nu", dist.Normal(0.0, 2.0))
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
    return {
        "i": jnp.asarray(stats.i),
        "j": jnp.asarray(stats.j),
        "n": jnp.asarray(counts.sum(axis=1)),
        "n_models": stats.n_models,
        "prior_sd": prior_sd_from_lam(lam),
        "counts": jnp.asarray(counts),
    }


def bt_prompt_model(
    i: jnp.ndarray,
    j: jnp.ndarray,
    group_pair: jnp.ndarray,
    n: jnp.ndarray,
    n_models: int,
    prior_sd: float = 7.0710678,
    y: jnp.ndarray | None = None,
) -> None:
    """Bradley–Terry with a prompt random effect (module docstring).

    Parameters
    ----------
    i, j
        Model indices of each pair.
    group_pair
        The pair of each (prompt, pair) group.
    n
        Total battle weight of each group.
    n_models, prior_sd
        As for :func:`bt_model`.
    y
        Summed target of each group oriented to its pair's ``i`` (``None`` generates).
    """
    theta = _strengths(n_models, prior_sd)
    sigma = numpyro.sample("sigma_prompt", dist.HalfNormal(1.0))
    with numpyro.plate("group", len(n)):
        z = numpyro.sample("z_prompt", dist.Normal(0.0, 1.0))
        d = pair_difference(theta, i, j)[group_pair] + sigma * z
        numpyro.sample("y", SoftBinomial(n, d), obs=y)


def bt_covariate_model(
    a: jnp.ndarray,
    b: jnp.ndarray,
    n: jnp.ndarray,
    x: jnp.ndarray,
    n_models: int,
    prior_sd: float = 7.0710678,
    prior_sd_beta: float = 7.0710678,
    y: jnp.ndarray | None = None,
) -> None:
    """Bradley–Terry with battle covariates (style control; module docstring).

    Parameters
    ----------
    a, b
        Model indices of each battle.
    n
        Weight of each battle.
    x
        Covariates of each battle, shape ``(n_battles, n_features)``.
    n_models, prior_sd
        As for :func:`bt_model`.
    prior_sd_beta
        σ of the Normal prior on each coefficient, 1/√(2λ_β).
    y
        Target times weight of each battle (``None`` generates).
    """
    theta = _strengths(n_models, prior_sd)
    beta = numpyro.sample("beta", dist.Normal(0.0, prior_sd_beta).expand([x.shape[1]]).to_event(1))
    with numpyro.plate("battle", len(n)):
        d = pair_difference(theta, a, b) + x @ beta
        numpyro.sample("y", SoftBinomial(n, d), obs=y)


def bt_category_model(
    i: jnp.ndarray,
    j: jnp.ndarray,
    category: jnp.ndarray,
    n: jnp.ndarray,
    n_models: int,
    n_categories: int,
    prior_sd: float = 7.0710678,
    y: jnp.ndarray | None = None,
) -> None:
    """Bradley–Terry with partially pooled category offsets (module docstring).

    Parameters
    ----------
    i, j
        Model indices of each (category, pair) group.
    category
        Category index of each group.
    n
        Total battle weight of each group.
    n_models, n_categories
        Sizes.
    prior_sd
        σ of the zero-sum Normal prior on the overall θ.
    y
        Summed target of each group oriented to ``i`` (``None`` generates).
    """
    theta = _strengths(n_models, prior_sd)
    tau = numpyro.sample("tau", dist.HalfNormal(1.0))
    raw = numpyro.sample(
        "delta_raw", dist.Normal(0.0, 1.0).expand([n_categories, n_models]).to_event(2)
    )
    strength = theta + tau * raw
    numpyro.deterministic("elo_category", ELO_BASE + ELO_SCALE * strength)
    with numpyro.plate("group", len(n)):
        d = strength[category, i] - strength[category, j]
        numpyro.sample("y", SoftBinomial(n, d), obs=y)
