"""Hierarchical multi-judge Bradley–Terry with judge discrimination and self-preference.

For judge k and a battle between models i and j,

    P(i ≻ j | k) = σ(ψ_k (θ_i − θ_j) + δ_{k,i} − δ_{k,j} + η_k · self_k(i, j)),

* θ ~ ZeroSumNormal(σ_θ): the consensus strengths (Elo = 1500 + 400/ln10 · θ);
* log ψ ~ ZeroSumNormal(σ_ψ): judge discrimination, the slope of judge k's
  ruler against the consensus. ψ_k > 1 is a more decisive (consistent) judge,
  ψ_k < 1 a noisier one; fixing the geometric mean of ψ at 1 removes the
  trade-off between the scale of θ and of ψ;
* δ_{k,·} = τ · z_{k,·}, z_{k,·} ~ ZeroSumNormal(1): judge-specific deviations
  (which models a judge over- or under-rates), partially pooled with scale
  τ ~ HalfNormal(τ_scale) (non-centred);
* η_k ~ Normal(0, σ_η): self-preference, switched on by self_k(i, j) = +1 when
  i is judge k's own model (or family), −1 when j is, 0 otherwise.

The likelihood is the generalised Binomial of :class:`~judgebayes.bayes.bt_models.SoftBinomial`
on per-(judge, pair) sufficient statistics, so ties count ½ as in Kargi & Salinas (*From Uncertain
Judgments to Calibrated Rankings: Conformal Elo Estimation for LLM Evaluation*, 2026,
arXiv:2606.13221), Eq. 1. This is the multi-judge model the design card asks for (judge
discrimination ψ_k as a principled consistency measure, cf. Ramaswamy, Demeure & Rrapaj (*Model
Consistency as a Cheap yet Predictive Proxy for LLM Elo Scores*, EMNLP 2025, arXiv:2509.23510)).
"""

from __future__ import annotations

from collections.abc import Mapping

import jax.numpy as jnp
import numpy as np
import numpyro
import numpyro.distributions as dist

from judgebayes.bayes.bt_models import SoftBinomial
from judgebayes.core.battles import Battles
from judgebayes.core.bt import ELO_BASE, ELO_SCALE
from judgebayes.core.pairs import PairStats

__all__ = ["multi_judge_data", "multi_judge_model"]


def multi_judge_model(
    judge: jnp.ndarray,
    i: jnp.ndarray,
    j: jnp.ndarray,
    n: jnp.ndarray,
    self_pref: jnp.ndarray,
    n_models: int,
    n_judges: int,
    theta_sd: float = 2.0,
    log_psi_sd: float = 0.5,
    tau_scale: float = 0.3,
    eta_sd: float = 1.0,
    y: jnp.ndarray | None = None,
) -> None:
    """The hierarchical multi-judge BT model (see the module docstring).

    Parameters
    ----------
    judge, i, j
        Judge index and model indices (i < j) of each (judge, pair) cell.
    n
        Battle count of each cell.
    self_pref
        +1 / −1 / 0: i / j / neither is the judge's own model.
    n_models, n_judges
        Sizes.
    theta_sd, log_psi_sd, tau_scale, eta_sd
        Prior scales.
    y
        Summed targets oriented to i (ties ½); ``None`` generates.
    """
    theta = numpyro.sample("theta", dist.ZeroSumNormal(theta_sd, event_shape=(n_models,)))
    log_psi = numpyro.sample("log_psi", dist.ZeroSumNormal(log_psi_sd, event_shape=(n_judges,)))
    tau = numpyro.sample("tau", dist.HalfNormal(tau_scale))
    with numpyro.plate("judges", n_judges):
        z = numpyro.sample("z", dist.ZeroSumNormal(1.0, event_shape=(n_models,)))
        eta = numpyro.sample("eta", dist.Normal(0.0, eta_sd))
    psi = numpyro.deterministic("psi", jnp.exp(log_psi))
    delta = numpyro.deterministic("delta", tau * z)
    numpyro.deterministic("elo", ELO_BASE + ELO_SCALE * theta)
    logits = (
        psi[judge] * (theta[i] - theta[j])
        + delta[judge, i]
        - delta[judge, j]
        + eta[judge] * self_pref
    )
    with numpyro.plate("cell", len(n)):
        numpyro.sample("y", SoftBinomial(n, logits), obs=y)


# NUTS target acceptance `fit` uses for this model unless told otherwise: near τ = 0
# the posterior of the deviations narrows sharply, and at 0.8 about one 4 × 1,000-draw
# run in five on an 8-model, 4-judge simulation had a divergent transition.
multi_judge_model.target_accept = 0.95  # type: ignore[attr-defined]


def multi_judge_data(
    battles: Battles,
    *,
    target: str = "judge_label",
    own_model: Mapping[str, str | list[str]] | None = None,
) -> tuple[dict, dict, dict]:
    """Model data, ArviZ coords and dims from battles with a ``judge`` column.

    Parameters
    ----------
    battles
        Battles of several judges.
    target
        The label column (P(A beats B)).
    own_model
        ``{judge: model or [models of its family]}`` for the self-preference term.

    Returns
    -------
    (data, coords, dims)
        Keyword arguments of :func:`multi_judge_model`, and ``coords``/``dims`` for
        :func:`judgebayes.bayes.inference.fit`.
    """
    judges = battles.judges
    if not judges:
        raise ValueError("battles need a 'judge' column for the multi-judge model")
    models = battles.models
    parts = []
    for k, name in enumerate(judges):
        stats: PairStats = battles.for_judge(name).pair_stats(target)
        index = np.array([models.index(m) for m in stats.models])
        own = own_model.get(name, []) if own_model else []
        own_set = {own} if isinstance(own, str) else set(own)
        is_own = np.array([m in own_set for m in models])
        i, j = index[stats.i], index[stats.j]
        parts.append(
            (
                np.full(stats.n_pairs, k),
                i,
                j,
                stats.n,
                stats.y,
                is_own[i].astype(float) - is_own[j].astype(float),
            )
        )
    judge, i, j, n, y, self_pref = (np.concatenate(c) for c in zip(*parts, strict=True))
    data = {
        "judge": jnp.asarray(judge),
        "i": jnp.asarray(i),
        "j": jnp.asarray(j),
        "n": jnp.asarray(n),
        "self_pref": jnp.asarray(self_pref),
        "n_models": len(models),
        "n_judges": len(judges),
        "y": jnp.asarray(y),
    }
    coords = {"model": list(models), "judge": list(judges)}
    dims = {
        "theta": ["model"],
        "elo": ["model"],
        "log_psi": ["judge"],
        "psi": ["judge"],
        "eta": ["judge"],
        "z": ["judge", "model"],
        "delta": ["judge", "model"],
    }
    return data, coords, dims
