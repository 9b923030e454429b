"""Soft-Elo with the temperature's uncertainty carried into the Elo posterior.

Kargi & Salinas (*From Uncertain Judgments to Calibrated Rankings: Conformal Elo Estimation for LLM
Evaluation*, 2026, arXiv:2606.13221) fit the temperature β by maximum likelihood on human non-tie
battles (Eq. 6), turns every judge score difference s into a soft target ỹ = σ(β s) (Eq. 5), and
fits Bradley–Terry on the soft targets (Eq. 1). Its intervals treat β̂ as known; the paper names
this as a limitation. Here:

1. :func:`temperature_model` is the generative story of Eq. 5–6,
   y* ~ Bernoulli(σ(β s)) on human non-ties, with β ~ HalfNormal(scale); NUTS
   gives a posterior for β;
2. for every posterior draw β_k, the soft targets σ(β_k s) are aggregated per
   pair and the Soft-Elo posterior p(θ | β_k) of the generalised BT model
   (:func:`~judgebayes.bayes.bt_models.bt_model`) is approximated by its Laplace
   approximation around the MAP (Eq. 1), all draws solved together by the
   batched Newton of :mod:`judgebayes.core.bootstrap`;
3. one θ draw per β draw gives the *cut* posterior ∫ p(θ | β) p(β | humans) dβ:
   the human labels inform β only, not θ directly (the modular "cut" of Plummer
   2015), as in the paper's two-step protocol.
"""

from __future__ import annotations

from typing import Literal

import arviz as az
import jax.numpy as jnp
import numpy as np
import numpyro
import numpyro.distributions as dist
from scipy.special import expit

from judgebayes.bayes.inference import fit
from judgebayes.core.battles import Battles
from judgebayes.core.bootstrap import solve_batched
from judgebayes.core.bt import bt_objective, fit_bt, theta_to_elo
from judgebayes.errors import DataError

__all__ = ["soft_elo_posterior", "temperature_data", "temperature_model"]


def temperature_model(
    s: jnp.ndarray, prior_scale: float = 2.0, y: jnp.ndarray | None = None
) -> None:
    """y* ~ Bernoulli(σ(β s)) with β ~ HalfNormal(prior_scale) (Kargi & Salinas, 2026, Eq. 5–6).

    Parameters
    ----------
    s
        Judge score differences of human-labelled non-tie battles.
    prior_scale
        Scale of the half-normal prior on β.
    y
        Human labels (1 = A preferred, 0 = B); ``None`` generates.
    """
    beta = numpyro.sample("beta", dist.HalfNormal(prior_scale))
    with numpyro.plate("battle", len(s)):
        numpyro.sample("y", dist.Bernoulli(logits=beta * s), obs=y)


def temperature_data(
    battles: Battles,
    *,
    score: str = "score_diff",
    human: str = "human_label",
    prior_scale: float = 2.0,
) -> dict:
    """Keyword arguments of :func:`temperature_model`: s and y* on the human non-ties."""
    s = np.asarray(battles.column(score), dtype=float)
    y = np.asarray(battles.column(human), dtype=float)
    decisive = np.isin(y, [0.0, 1.0])
    if decisive.sum() < 2:
        raise DataError(
            "need human non-tie labels to fit the temperature β (Kargi & Salinas, 2026, Eq. 6)",
            column=human,
        )
    return {
        "s": jnp.asarray(s[decisive]),
        "prior_scale": float(prior_scale),
        "y": jnp.asarray(y[decisive]),
    }


def soft_elo_posterior(
    battles: Battles,
    *,
    score: str = "score_diff",
    human: str = "human_label",
    lam: float = 0.01,
    beta: Literal["posterior", "fixed"] = "posterior",
    n_draws: int = 1000,
    chains: int = 2,
    seed: int = 0,
    progress: bool = False,
) -> az.InferenceData:
    """Soft-Elo posterior with (or without) the temperature's uncertainty.

    Parameters
    ----------
    battles
        Battles with a judge score difference column and, on some of them, human
        labels. β is fitted on the human non-ties; soft targets are applied to
        every battle.
    score, human
        Column names of s and of the human label.
    lam
        L2 penalty λ of Eq. 1 (prior σ = 1/√(2λ)).
    beta
        ``"posterior"``: propagate the posterior of β (cut posterior);
        ``"fixed"``: use the posterior median of β for every draw (what the
        paper's intervals assume), for comparison.
    n_draws
        Posterior draws returned.
    chains, seed, progress
        NUTS settings for β.

    Returns
    -------
    arviz.InferenceData
        ``posterior`` with ``beta`` (draw), ``theta`` and ``elo`` (draw, model),
        one chain; ``attrs["beta"]`` says which variant was computed.
    """
    if beta not in ("posterior", "fixed"):
        raise ValueError("beta must be 'posterior' or 'fixed'")
    s = np.asarray(battles.column(score), dtype=float)
    draws_per_chain = max(1000, -(-n_draws // chains))
    post = fit(
        temperature_model,
        temperature_data(battles, score=score, human=human),
        chains=chains,
        draws=draws_per_chain,
        warmup=1000,
        seed=seed,
        progress=progress,
    )
    every = post.posterior["beta"].values.reshape(-1)
    betas = every[np.linspace(0, len(every) - 1, n_draws).astype(int)]  # thinned
    if beta == "fixed":
        betas = np.full_like(betas, np.median(betas))

    # Pair statistics at the central β define the pair layout and n; only y moves with β.
    stats = battles.pair_stats(expit(np.median(betas) * s))
    pair_of, sign_a_is_lo = stats.locate(*battles.codes())
    m = stats.n_models
    centre = fit_bt(stats, lam=lam)
    rng = np.random.default_rng(seed)
    thetas = np.empty((len(betas), m))
    for start in range(0, len(betas), 100):
        bk = betas[start : start + 100]
        target = expit(bk[:, None] * s[None, :])
        target = np.where(sign_a_is_lo, target, 1.0 - target)
        y = np.stack([np.bincount(pair_of, t, minlength=stats.n_pairs) for t in target])
        n = np.broadcast_to(stats.n, y.shape)
        modes, _ = solve_batched(stats, lam, centre.theta, np.arange(m), n, y)
        for r, mode in enumerate(modes):
            hess = bt_objective(mode, stats, lam, stats.n, y[r])[2]
            draw = rng.multivariate_normal(mode, np.linalg.inv(hess), method="cholesky")
            thetas[start + r] = draw - draw.mean()  # the identified, zero-sum direction
    idata = az.from_dict(
        posterior={
            "beta": betas[None],
            "theta": thetas[None],
            "elo": np.asarray(theta_to_elo(thetas))[None],
        },
        coords={"model": list(stats.models)},
        dims={"theta": ["model"], "elo": ["model"]},
    )
    idata.posterior.attrs["beta"] = beta
    idata.posterior.attrs["inference"] = "cut: NUTS for beta, Laplace for theta | beta"
    return idata
