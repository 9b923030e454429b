r"""Bayesian judge Consistency (Ramaswamy, Demeure & Rrapaj, *Model Consistency as a Cheap yet
Predictive Proxy for LLM Elo Scores*, EMNLP 2025, arXiv:2509.23510) with uncertainty: two generative
stories.

**Judge discrimination** (:func:`judge_discrimination_model`). For judge k and
an ordered matchup u (model f shown first, model s second) of pair m = {i, j},
each contest ends in (first wins, tie, second wins) with the ordered-logistic
probabilities

    η_ku = ψ_k (θ_f − θ_s) + γ_k + o_u · δ_km,
    P(first wins) = σ(η_ku − κ_k),   P(second wins) = σ(−η_ku − κ_k),
    P(tie) = 1 − P(first wins) − P(second wins),

* θ: the contestants' consensus strengths, a zero-sum Normal(0, σ_θ) *within
  each connected group of contestants* (Ramaswamy et al.'s (2025) 35 contestants come in 7
  unconnected groups of 5, so only within-group differences are identified);
* log ψ ~ ZeroSumNormal(σ_ψ): the judge's discrimination, the slope of its
  ruler against the consensus (geometric mean fixed at 1 so that θ's scale is
  identified; the same convention as :mod:`judgebayes.bayes.multi_judge`).
  σ_ψ is fixed (default 0.5): a sampled σ_ψ made NUTS chains stick on the real
  data (R-hat > 2), and 24 judges pin ψ down without pooling;
* γ_k ~ Normal(0, 1): the judge's position bias on the logit scale (> 0 favours
  the answer shown first; the paper balances both orders to cancel it);
* κ_k = exp(log κ_k), log κ_k ~ Normal(−3, 1.5): the judge's tie threshold;
* δ_km = τ·z_km, z ~ Normal(0, 1), τ ~ HalfNormal(1): the judge's pair-specific
  deviation (o_u = +1 when i is shown first, −1 otherwise).

Counts per (judge, ordered matchup) ~ Multinomial(n_ku, ·). Each judge's
posterior Consistency is Eq. 2 of Ramaswamy et al. (2025) applied to the model's matchup
probabilities: p_km = Σ_u n_ku·(P(i wins) + ½·P(tie)) / n_km (both orders
pooled, Eq. 3), Consistency_k = 1 − 4·Σ_m n_km p_km(1 − p_km) / Σ_m n_km
(Eqs. 1–2). It is the Consistency of the judge's *probabilities*, not of the
observed frequencies: the paper's plug-in p̂(1 − p̂) underestimates p(1 − p) by
Var(score)/n (the factor 1 − 1/n without ties), so on Ramaswamy et al.'s (2025) data (~40
contests per matchup) the plug-in score sits about 0.02 above this posterior,
as it does above ``judge_consistency(..., bias_corrected=True)``.

**Matchup Dirichlet** (:func:`matchup_dirichlet_model`). No shared structure:
for every judge k and matchup m, the (i wins, tie, j wins) probabilities
π_km ~ Dirichlet(a, a, a) and the pooled counts ~ Multinomial(n_km, π_km);
p_km = π_km,1 + ½ π_km,2. Conjugate, so :func:`consistency_posterior` draws
its posterior exactly (no MCMC); the model function is there for
:func:`judgebayes.bayes.inference.fit`, posterior predictive checks and tests.

:func:`compare_judges` turns either posterior into P(judge a is more consistent
than judge b) and an interval for the difference.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import arviz as az
import jax
import jax.numpy as jnp
import numpy as np
import numpyro
import numpyro.distributions as dist
import pandas as pd
from scipy.linalg import null_space
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from judgebayes.consistency.counts import MatchupCounts, matchup_counts
from judgebayes.core.battles import Battles
from judgebayes.core.results import ResultDisplay
from judgebayes.errors import DataError

__all__ = [
    "JudgeComparison",
    "compare_judges",
    "consistency_posterior",
    "fit_judge_discrimination",
    "judge_discrimination_data",
    "judge_discrimination_model",
    "matchup_dirichlet_data",
    "matchup_dirichlet_model",
]


def _consistency_of(p: jnp.ndarray, n: jnp.ndarray) -> jnp.ndarray:
    """1 − 4·Σ n p(1 − p) / Σ n over the last axis (Ramaswamy et al., 2025, Eqs. 1–2)."""
    return 1.0 - 4.0 * jnp.sum(n * p * (1.0 - p), axis=-1) / jnp.sum(n, axis=-1)


# ------------------------------------------------------------ judge discrimination
def judge_discrimination_model(
    judge: jnp.ndarray,
    first: jnp.ndarray,
    second: jnp.ndarray,
    pair: jnp.ndarray,
    orient: jnp.ndarray,
    n: jnp.ndarray,
    basis: jnp.ndarray,
    n_judges: int,
    n_pairs: int,
    theta_sd: float = 2.0,
    log_psi_sd: float = 0.5,
    counts: jnp.ndarray | None = None,
) -> None:
    """Multi-judge ordered-logit BT with discrimination ψ_k and position bias γ_k.

    See the module docstring for the story. One *cell* is a (judge, ordered
    matchup) with at least one contest.

    Parameters
    ----------
    judge, first, second
        Judge index and model indices (shown first / second) of each cell.
    pair
        Unordered pair index of each cell.
    orient
        +1 when the pair's model i is shown first, −1 otherwise.
    n
        Contests in each cell.
    basis
        ``(n_models, n_free)`` orthonormal basis of the strengths that sum to
        zero within every connected group of contestants (θ = basis @ u).
    n_judges, n_pairs
        Sizes.
    theta_sd
        Prior scale of θ (logit units).
    log_psi_sd
        Prior scale of log ψ.
    counts
        ``(n_cells, 3)`` counts of (first wins, tie, second wins); ``None`` generates.
    """
    u = numpyro.sample(
        "theta_free", dist.Normal(0.0, theta_sd).expand([basis.shape[1]]).to_event(1)
    )
    theta = numpyro.deterministic("theta", basis @ u)
    log_psi = numpyro.sample("log_psi", dist.ZeroSumNormal(log_psi_sd, event_shape=(n_judges,)))
    psi = numpyro.deterministic("psi", jnp.exp(log_psi))
    tau = numpyro.sample("tau", dist.HalfNormal(1.0))
    with numpyro.plate("judges", n_judges):
        gamma = numpyro.sample("gamma", dist.Normal(0.0, 1.0))
        log_kappa = numpyro.sample("log_kappa", dist.Normal(-3.0, 1.5))
        with numpyro.plate("pairs", n_pairs):
            delta_z = numpyro.sample("delta_z", dist.Normal(0.0, 1.0))
    kappa = jnp.exp(log_kappa)
    delta = tau * delta_z.T  # (judge, pair); not stored: τ·delta_z
    eta = psi[judge] * (theta[first] - theta[second]) + gamma[judge] + orient * delta[judge, pair]
    p_first = jax.nn.sigmoid(eta - kappa[judge])
    p_second = jax.nn.sigmoid(-eta - kappa[judge])
    p_tie = jnp.clip(1.0 - p_first - p_second, 1e-12, 1.0)
    probs = jnp.stack([p_first, p_tie, p_second], axis=-1)
    # Consistency of each judge's matchup probabilities (orders pooled by counts).
    score_i = jnp.where(orient > 0, p_first, p_second) + 0.5 * p_tie
    cell_key = judge * n_pairs + pair
    n_km = jax.ops.segment_sum(n, cell_key, num_segments=n_judges * n_pairs)
    w_km = jax.ops.segment_sum(n * score_i, cell_key, num_segments=n_judges * n_pairs)
    p_km = jnp.where(n_km > 0, w_km / jnp.where(n_km > 0, n_km, 1.0), 0.5)
    numpyro.deterministic(
        "consistency",
        _consistency_of(p_km.reshape(n_judges, n_pairs), n_km.reshape(n_judges, n_pairs)),
    )
    with numpyro.plate("cell", n.shape[0]):
        numpyro.sample("counts", dist.Multinomial(total_count=n, probs=probs), obs=counts)


def _group_basis(n_models: int, i: np.ndarray, j: np.ndarray) -> np.ndarray:
    """Orthonormal basis of vectors summing to zero within each connected component."""
    graph = coo_matrix((np.ones(i.size), (i, j)), shape=(n_models, n_models))
    n_comp, label = connected_components(graph, directed=False)
    indicator = np.zeros((n_comp, n_models))
    indicator[label, np.arange(n_models)] = 1.0
    return null_space(indicator)


def judge_discrimination_data(
    data: Battles | MatchupCounts, *, theta_sd: float = 2.0, log_psi_sd: float = 0.5
) -> tuple[dict, dict, dict]:
    """Model data, ArviZ coords and dims for :func:`judge_discrimination_model`.

    Parameters
    ----------
    data
        Judged battles (with ``judge`` and ``position``, see
        :func:`judgebayes.consistency.matchup_counts`) or their counts.
    theta_sd, log_psi_sd
        Prior scales of the strengths and of log ψ.

    Returns
    -------
    (data, coords, dims)
        Keyword arguments of the model and ``coords``/``dims`` for
        :func:`judgebayes.bayes.inference.fit`.
    """
    counts = matchup_counts(data) if isinstance(data, Battles) else data
    n = counts.n
    k, u = np.nonzero(n > 0)
    orient = np.where(counts.first == counts.pair_i[counts.pair], 1.0, -1.0)
    basis = _group_basis(len(counts.models), counts.pair_i, counts.pair_j)
    model_data = {
        "judge": jnp.asarray(k),
        "first": jnp.asarray(counts.first[u]),
        "second": jnp.asarray(counts.second[u]),
        "pair": jnp.asarray(counts.pair[u]),
        "orient": jnp.asarray(orient[u]),
        "n": jnp.asarray(n[k, u]),
        "basis": jnp.asarray(basis),
        "n_judges": counts.n_judges,
        "n_pairs": counts.n_pairs,
        "theta_sd": float(theta_sd),
        "log_psi_sd": float(log_psi_sd),
        "counts": jnp.asarray(counts.counts[k, u]),
    }
    coords = {
        "judge": list(counts.judges),
        "model": list(counts.models),
        "pair": [f"{a} vs {b}" for a, b in counts.pair_names()],
    }
    dims = {
        "theta": ["model"],
        "psi": ["judge"],
        "log_psi": ["judge"],
        "gamma": ["judge"],
        "log_kappa": ["judge"],
        "consistency": ["judge"],
        "delta_z": ["pair", "judge"],
    }
    return model_data, coords, dims


def fit_judge_discrimination(
    data: Battles | MatchupCounts,
    *,
    method: str = "nuts",
    chains: int = 4,
    draws: int = 1000,
    warmup: int = 1000,
    seed: int = 0,
    progress: bool = True,
    target_accept: float = 0.85,
    theta_sd: float = 2.0,
    log_psi_sd: float = 0.5,
) -> az.InferenceData:
    """Fit :func:`judge_discrimination_model` with :func:`judgebayes.bayes.inference.fit`.

    Parameters
    ----------
    data
        Judged battles or their :class:`~judgebayes.consistency.MatchupCounts`.
    method
        ``"nuts"`` (recommended) or ``"advi"``. ``"map"`` is not meaningful
        here: the joint mode of a hierarchical model sits at τ → 0.
    chains, draws, warmup, seed, progress, target_accept
        Passed to :func:`judgebayes.bayes.inference.fit` (its cost on Ramaswamy et al.'s (2025)
        data: ``docs/benchmarks.md``).
    theta_sd, log_psi_sd
        Prior scales.

    Returns
    -------
    arviz.InferenceData
        Posterior of ``psi``, ``gamma``, ``log_kappa``, ``consistency`` (dim
        ``judge``), ``theta`` (``model``), ``tau`` and ``delta_z`` (``pair``,
        ``judge``; δ = τ·delta_z).
    """
    from judgebayes.bayes.inference import fit

    model_data, coords, dims = judge_discrimination_data(
        data, theta_sd=theta_sd, log_psi_sd=log_psi_sd
    )
    return fit(
        judge_discrimination_model,
        model_data,
        method=method,
        chains=chains,
        draws=draws,
        warmup=warmup,
        seed=seed,
        coords=coords,
        dims=dims,
        progress=progress,
        target_accept=target_accept,
    )


# ---------------------------------------------------------------- matchup Dirichlet
def matchup_dirichlet_model(
    n: jnp.ndarray, prior: float = 1.0, counts: jnp.ndarray | None = None
) -> None:
    """Independent Dirichlet–multinomial per (judge, matchup); see the module docstring.

    Parameters
    ----------
    n
        ``(n_judges, n_pairs)`` contests (both orders pooled).
    prior
        Dirichlet concentration a of each outcome (1: uniform on the simplex).
    counts
        ``(n_judges, n_pairs, 3)`` counts of (i wins, tie, j wins); ``None`` generates.
    """
    n_judges, n_pairs = n.shape
    with numpyro.plate("judges", n_judges, dim=-2), numpyro.plate("pairs", n_pairs, dim=-1):
        pi = numpyro.sample("pi", dist.Dirichlet(jnp.full(3, prior)))
        numpyro.sample("counts", dist.Multinomial(total_count=n, probs=pi), obs=counts)
    p = pi[..., 0] + 0.5 * pi[..., 1]
    numpyro.deterministic("consistency", _consistency_of(p, n))


def matchup_dirichlet_data(
    data: Battles | MatchupCounts,
    *,
    prior: float = 1.0,
) -> tuple[dict, dict, dict]:
    """Model data, coords and dims for :func:`matchup_dirichlet_model`."""
    counts = matchup_counts(data) if isinstance(data, Battles) else data
    pooled = counts.pair_outcomes()
    model_data = {
        "n": jnp.asarray(pooled.sum(axis=-1)),
        "prior": float(prior),
        "counts": jnp.asarray(pooled),
    }
    coords = {
        "judge": list(counts.judges),
        "pair": [f"{a} vs {b}" for a, b in counts.pair_names()],
        "outcome": ["i wins", "tie", "j wins"],
    }
    dims = {"pi": ["judge", "pair", "outcome"], "consistency": ["judge"]}
    return model_data, coords, dims


def consistency_posterior(
    data: Battles | MatchupCounts, *, prior: float = 1.0, draws: int = 4000, seed: int = 0
) -> az.InferenceData:
    """Exact posterior draws of every judge's Consistency under the matchup Dirichlet.

    π_km | data ~ Dirichlet(a + counts_km) (conjugacy), p_km = π_km,1 + ½π_km,2,
    Consistency_k = 1 − 4·Σ_m n_km p_km(1 − p_km)/Σ_m n_km (Ramaswamy et al., 2025, Eqs. 1–3).

    Parameters
    ----------
    data
        Judged battles or their counts.
    prior
        Dirichlet concentration a.
    draws
        Posterior draws (one chain).
    seed
        Random seed.

    Returns
    -------
    arviz.InferenceData
        ``posterior.consistency`` with dims (chain, draw, judge).
    """
    if prior <= 0:
        raise DataError("the Dirichlet concentration must be > 0", column="prior", got=prior)
    counts = matchup_counts(data) if isinstance(data, Battles) else data
    pooled = counts.pair_outcomes()
    n = pooled.sum(axis=-1)
    rng = np.random.default_rng(seed)
    # Dirichlet draws as normalised Gammas, one judge at a time to bound memory.
    cons = np.empty((draws, counts.n_judges))
    for k in range(counts.n_judges):
        g = rng.standard_gamma(prior + pooled[k], size=(draws, *pooled[k].shape))
        pi = g / g.sum(axis=-1, keepdims=True)
        p = pi[..., 0] + 0.5 * pi[..., 1]
        cons[:, k] = 1.0 - 4.0 * (n[k] * p * (1 - p)).sum(axis=-1) / n[k].sum()
    idata = az.from_dict(
        posterior={"consistency": cons[None]},
        coords={"judge": list(counts.judges)},
        dims={"consistency": ["judge"]},
    )
    idata.posterior.attrs["inference"] = "exact (conjugate Dirichlet)"
    return idata


# ---------------------------------------------------------------------- comparison
@dataclass(frozen=True, repr=False)
class JudgeComparison(ResultDisplay):
    """Posterior comparison of two judges on one per-judge quantity.

    Attributes
    ----------
    var
        The posterior variable (``"consistency"``, ``"psi"``, ...).
    judge_a, judge_b
        The judges.
    mean_a, mean_b
        Posterior means.
    prob_greater
        P(value_a > value_b | data).
    diff_mean, diff_lo, diff_hi
        Posterior mean and central ``prob`` interval of value_a − value_b.
    prob
        Interval probability.
    """

    var: str
    judge_a: str
    judge_b: str
    mean_a: float
    mean_b: float
    prob_greater: float
    diff_mean: float
    diff_lo: float
    diff_hi: float
    prob: float

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame(
            [
                {
                    "var": self.var,
                    "judge_a": self.judge_a,
                    "judge_b": self.judge_b,
                    "mean_a": self.mean_a,
                    "mean_b": self.mean_b,
                    "prob_a_greater": self.prob_greater,
                    "diff_mean": self.diff_mean,
                    "diff_lo": self.diff_lo,
                    "diff_hi": self.diff_hi,
                }
            ]
        )

    def _headline(self) -> str:
        return str(self)

    def __str__(self) -> str:
        return (
            f"{self.var}: {self.judge_a} {self.mean_a:.3f} vs {self.judge_b} "
            f"{self.mean_b:.3f}; P({self.judge_a} > {self.judge_b}) = "
            f"{self.prob_greater:.3f}; difference {self.diff_mean:+.3f} "
            f"[{self.diff_lo:+.3f}, {self.diff_hi:+.3f}] ({100 * self.prob:g}% interval)"
        )


def compare_judges(
    idata: az.InferenceData,
    judge_a: str,
    judge_b: str,
    *,
    var: str = "consistency",
    prob: float = 0.95,
) -> JudgeComparison:
    """P(judge a's ``var`` exceeds judge b's) and an interval for the difference.

    Parameters
    ----------
    idata
        A posterior with ``var`` over a ``judge`` dimension (from
        :func:`fit_judge_discrimination` or :func:`consistency_posterior`).
    judge_a, judge_b
        Judge names.
    var
        Posterior variable with a ``judge`` dimension.
    prob
        Probability of the central interval.

    Returns
    -------
    JudgeComparison
    """
    post = idata.posterior
    if var not in post:
        raise DataError(
            f"the posterior has no {var!r}", column="var", expected=f"one of {list(post.data_vars)}"
        )
    values = post[var]
    if "judge" not in values.dims:
        raise DataError(f"{var!r} has no 'judge' dimension", column="var")
    judges: Sequence[str] = [str(j) for j in values["judge"].values]
    for name in (judge_a, judge_b):
        if name not in judges:
            raise DataError(
                f"unknown judge {name!r}", column="judge", expected=f"one of {judges[:3]}..."
            )
    a = values.sel(judge=judge_a).values.ravel()
    b = values.sel(judge=judge_b).values.ravel()
    d = a - b
    lo, hi = np.quantile(d, [(1 - prob) / 2, (1 + prob) / 2])
    return JudgeComparison(
        var=var,
        judge_a=judge_a,
        judge_b=judge_b,
        mean_a=float(a.mean()),
        mean_b=float(b.mean()),
        prob_greater=float(np.mean(d > 0)),
        diff_mean=float(d.mean()),
        diff_lo=float(lo),
        diff_hi=float(hi),
        prob=float(prob),
    )
