"""Latent-class models of judge misclassification: shared, model-specific, hierarchical.

The story of Fiedler (*Bias and Uncertainty in LLM-as-a-Judge Estimation*, 2026, arXiv:2605.06939)
(Eq. 1) as a generative model. For every judged response of base model m on item i,

    Z_mi ~ Bernoulli(θ_m)                              (true correctness)
    Ẑ_mi | Z_mi ~ Binomial(k_mi, q1_m)      if Z_mi = 1  (k_mi judge runs)
                  Binomial(k_mi, 1 − q0_m)  if Z_mi = 0

Z is observed (``human_label``) on calibration items and latent on test items,
where it is summed out: Ẑ ~ θ·Binomial(k, q1) + (1 − θ)·Binomial(k, 1 − q0), so
NUTS runs on continuous parameters only. One observed site, ``judge_label``,
holds every item's judge-positive count (a mixture whose weights are the observed
Z on calibration items and θ on test items); ``human_label`` holds Z on the
calibration items. Their sum per item is the item's log-likelihood for LOO.

Identifiability. (θ, q1, q0) and (1 − θ, 1 − q0, 1 − q1) give test items the same
distribution; the judge is assumed better than chance, J = q0 + q1 − 1 > 0, which
is built into the parametrisation (the HSROC coordinates of diagnostic-accuracy
meta-analysis): with bias a and log diagnostic odds ratio ℓ = log d,

    logit q1 = a + d/2,   logit q0 = d/2 − a,   d = exp(ℓ) > 0  ⇔  J > 0.

Calibration designs (one function each, same data arguments):

* :func:`shared_calibration_model`: (a, ℓ) common to all models of a group
  (the RG shared-calibration assumption);
* :func:`specific_calibration_model`: (a_m, ℓ_m) independent per model;
* :func:`hierarchical_calibration_model`: a_m ~ Normal(μ_a, τ_a),
  ℓ_m ~ Normal(μ_ℓ, τ_ℓ) (non-centred); τ → 0 is shared, τ → ∞ model-specific.

Priors: θ_m ~ Beta(1, 1); a ~ Normal(0, 1.5); ℓ ~ Normal(1, 1) (d ∈ [0.4, 20] at
95%, i.e. J from ≈ 0.1 to ≈ 0.9 when a = 0); τ ~ HalfNormal(1), wide enough for
the spread between base models in Table 6 (|Δℓ| up to ≈ 2.2, biology/Mistral).
``group`` lets many independent analyses (e.g. simulation replications) share one
NUTS run: models in the same group share the shared/hierarchical parameters.

Limitation: Z is independent across models given θ, so the pairing of models on the
same items (correlated correctness) is not used. On the Section 5 simulation
(ΔJ ∈ {0, 0.3}, 100 replications) with latent correctness correlation 0.5, the Δθ
intervals are ≈ 20% wider than the paired-bootstrap PPI++ 2× intervals and
over-cover (0.97–0.98); with uncorrelated models they match PPI++ 2× (width 0.120 vs
0.120, coverage 0.94). The ``paired`` designs of :mod:`judgebayes.calibration.paired`
(registered in :data:`DESIGNS`) model the models' correctness on one item jointly and
recover the pairing.

This module holds the models (their data: :mod:`judgebayes.calibration.rows`);
:mod:`judgebayes.calibration.posterior`
fits them (:func:`~judgebayes.calibration.posterior.fit_calibration`) and
:mod:`judgebayes.calibration.bayes_sweep` runs them on the Section 5 simulations.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

import jax
import jax.numpy as jnp
import numpy as np
import numpyro
import numpyro.distributions as dist
from jax.scipy.special import gammaln
from numpyro.distributions import constraints
from numpyro.distributions.util import promote_shapes
from numpyro.util import not_jax_tracer

from judgebayes.calibration.paired import (
    binomial_sample,
    paired_calibration_model,
    paired_hierarchical_calibration_model,
)
from judgebayes.calibration.rows import (
    A_SD,
    LOG_DOR_MEAN,
    LOG_DOR_SD,
    TAU_SD,
    CalibrationData,
    calibration_data,
)

__all__ = [
    "DESIGNS",
    "CalibrationData",
    "JudgeMixture",
    "calibration_data",
    "hierarchical_calibration_model",
    "shared_calibration_model",
    "specific_calibration_model",
]

_NEVER = -1e30  # log-weight of the mixture component ruled out by an observed Z


@contextlib.contextmanager
def _scaled(weight: Any, sl: slice) -> Any:
    """Rows' log-likelihoods times their multiplicities; weight 0 (an empty cell kept for
    a fixed shape) is masked out, since NumPyro's ``scale`` must be positive."""
    if weight is None:
        yield
        return
    w = jnp.asarray(weight)[sl]
    with numpyro.handlers.mask(mask=w > 0), numpyro.handlers.scale(scale=jnp.where(w > 0, w, 1.0)):
        yield


def _observe(
    theta: Any,
    a: Any,
    log_dor: Any,
    model_idx: Any,
    n_runs: Any,
    n_cal: int,
    human_label: Any,
    judge_label: Any,
    weight: Any,
) -> None:
    """Calibration quantities per model and the likelihood of every item (Z summed out)."""
    d = jnp.exp(log_dor)
    q1 = numpyro.deterministic("q1", jax.nn.sigmoid(a + d / 2))
    q0 = numpyro.deterministic("q0", jax.nn.sigmoid(d / 2 - a))
    numpyro.deterministic("J", q0 + q1 - 1)
    model = jnp.asarray(model_idx)
    n_rows = model.shape[0]
    th = theta[model]
    with _scaled(weight, slice(0, n_cal)), numpyro.plate("cal_row", n_cal):
        z = numpyro.sample("human_label", dist.Bernoulli(probs=th[:n_cal]), obs=human_label)
    z = jnp.asarray(z)
    log_w1 = jnp.concatenate([jnp.where(z == 1, 0.0, _NEVER), jnp.log(th[n_cal:])])
    log_w0 = jnp.concatenate([jnp.where(z == 0, 0.0, _NEVER), jnp.log1p(-th[n_cal:])])
    am, dm = a[model], d[model]
    with _scaled(weight, slice(None)), numpyro.plate("row", n_rows):
        numpyro.sample(
            "judge_label",
            JudgeMixture(log_w1, log_w0, am + dm / 2, am - dm / 2, jnp.asarray(n_runs)),
            obs=judge_label,
        )


class JudgeMixture(dist.Distribution):
    """Judge-positive runs of one item whose true label Z is uncertain.

    log p(y) = logaddexp(log w1 + log Binomial(y; k, q1), log w0 + log Binomial(y; k, 1 − q0))
    with w1 = P(Z = 1) (θ on test items; 1 or 0 on calibration items, where Z is
    observed) and the components given by their logits, logit q1 and logit(1 − q0).
    Written here because NumPyro's mixtures need a support that does not depend on
    the parameters, and Binomial's upper bound k does.
    """

    arg_constraints: ClassVar[dict[str, Any]] = {
        "log_w1": constraints.real,
        "log_w0": constraints.real,
        "logit1": constraints.real,
        "logit0": constraints.real,
    }
    support = constraints.nonnegative_integer

    def __init__(
        self,
        log_w1: Any,
        log_w0: Any,
        logit1: Any,
        logit0: Any,
        total_count: Any,
        *,
        validate_args: bool | None = None,
    ) -> None:
        (self.log_w1, self.log_w0, self.logit1, self.logit0, self.total_count) = promote_shapes(
            log_w1, log_w0, logit1, logit0, total_count
        )
        shape = jax.lax.broadcast_shapes(
            *(jnp.shape(x) for x in (log_w1, log_w0, logit1, logit0, total_count))
        )
        super().__init__(batch_shape=shape, validate_args=validate_args)

    def sample(self, key: jax.Array, sample_shape: tuple[int, ...] = ()) -> jax.Array:
        k1, k2 = jax.random.split(key)
        shape = sample_shape + self.batch_shape
        p1 = jnp.exp(self.log_w1 - jnp.logaddexp(self.log_w1, self.log_w0))
        z = jax.random.uniform(k1, shape) < p1
        logits = jnp.where(z, self.logit1, self.logit0)
        count = self.total_count
        count = (
            np.broadcast_to(np.asarray(count), shape)
            if not_jax_tracer(count)
            else jnp.broadcast_to(count, shape)
        )
        return binomial_sample(k2, count, logits)

    def log_prob(self, value: Any) -> jax.Array:
        k = jnp.asarray(self.total_count, dtype=jnp.result_type(float))
        y = jnp.asarray(value, dtype=k.dtype)
        log_choose = gammaln(k + 1) - gammaln(y + 1) - gammaln(k - y + 1)
        lp1 = y * self.logit1 - k * jax.nn.softplus(self.logit1)
        lp0 = y * self.logit0 - k * jax.nn.softplus(self.logit0)
        return log_choose + jnp.logaddexp(self.log_w1 + lp1, self.log_w0 + lp0)


def _groups(group: Any, n_models: int) -> Any:
    return jnp.zeros(n_models, dtype=jnp.int32) if group is None else jnp.asarray(group)


def shared_calibration_model(
    model_idx: Any,
    n_runs: Any,
    *,
    n_cal: int,
    n_models: int,
    group: Any = None,
    n_groups: int = 1,
    weight: Any = None,
    human_label: Any = None,
    judge_label: Any = None,
) -> None:
    """Shared calibration: one (q0, q1) for every model of a group (RG's assumption).

    Parameters
    ----------
    model_idx
        Model index of every row (item × model); the first ``n_cal`` rows are
        calibration items.
    n_runs
        Judge runs k of every row.
    n_cal, n_models
        Calibration rows and number of models.
    group, n_groups
        Group index of every model (default: one group) and number of groups.
    weight
        Optional row multiplicities (rows that stand for several identical items).
    human_label
        Z of the calibration rows (``None`` generates).
    judge_label
        Judge-positive runs of every row (``None`` generates).
    """
    g = _groups(group, n_models)
    with numpyro.plate("model", n_models):
        theta = numpyro.sample("theta", dist.Beta(1.0, 1.0))
    with numpyro.plate("group", n_groups):
        a = numpyro.sample("a", dist.Normal(0.0, A_SD))
        log_dor = numpyro.sample("log_dor", dist.Normal(LOG_DOR_MEAN, LOG_DOR_SD))
    _observe(theta, a[g], log_dor[g], model_idx, n_runs, n_cal, human_label, judge_label, weight)


def specific_calibration_model(
    model_idx: Any,
    n_runs: Any,
    *,
    n_cal: int,
    n_models: int,
    group: Any = None,
    n_groups: int = 1,
    weight: Any = None,
    human_label: Any = None,
    judge_label: Any = None,
) -> None:
    """Model-specific calibration: independent (q0_m, q1_m) per model (RG 2×, PPI++).

    Same arguments as :func:`shared_calibration_model` (``group`` is unused).
    """
    with numpyro.plate("model", n_models):
        theta = numpyro.sample("theta", dist.Beta(1.0, 1.0))
        a = numpyro.sample("a", dist.Normal(0.0, A_SD))
        log_dor = numpyro.sample("log_dor", dist.Normal(LOG_DOR_MEAN, LOG_DOR_SD))
    _observe(theta, a, log_dor, model_idx, n_runs, n_cal, human_label, judge_label, weight)


def hierarchical_calibration_model(
    model_idx: Any,
    n_runs: Any,
    *,
    n_cal: int,
    n_models: int,
    group: Any = None,
    n_groups: int = 1,
    weight: Any = None,
    human_label: Any = None,
    judge_label: Any = None,
) -> None:
    """Partially pooled calibration: a_m ~ N(μ_a, τ_a), ℓ_m ~ N(μ_ℓ, τ_ℓ) within a group.

    Same arguments as :func:`shared_calibration_model`. Non-centred; the data
    choose τ between 0 (shared) and ∞ (model-specific).
    """
    g = _groups(group, n_models)
    with numpyro.plate("group", n_groups):
        mu_a = numpyro.sample("mu_a", dist.Normal(0.0, A_SD))
        mu_l = numpyro.sample("mu_log_dor", dist.Normal(LOG_DOR_MEAN, LOG_DOR_SD))
        tau_a = numpyro.sample("tau_a", dist.HalfNormal(TAU_SD))
        tau_l = numpyro.sample("tau_log_dor", dist.HalfNormal(TAU_SD))
    with numpyro.plate("model", n_models):
        theta = numpyro.sample("theta", dist.Beta(1.0, 1.0))
        a_raw = numpyro.sample("a_raw", dist.Normal(0.0, 1.0))
        l_raw = numpyro.sample("log_dor_raw", dist.Normal(0.0, 1.0))
    a = numpyro.deterministic("a", mu_a[g] + tau_a[g] * a_raw)
    log_dor = numpyro.deterministic("log_dor", mu_l[g] + tau_l[g] * l_raw)
    _observe(theta, a, log_dor, model_idx, n_runs, n_cal, human_label, judge_label, weight)


DESIGNS: Mapping[str, Callable[..., None]] = {
    "shared": shared_calibration_model,
    "model_specific": specific_calibration_model,
    "hierarchical": hierarchical_calibration_model,
    "paired": paired_calibration_model,
    "paired_hierarchical": paired_hierarchical_calibration_model,
}
"""The Bayesian calibration designs by name: ``shared``, ``model_specific``, ``hierarchical``
(one row per model and item, :func:`calibration_data`) and ``paired``,
``paired_hierarchical`` (one row per item, :func:`~judgebayes.calibration.paired.paired_data`)."""
