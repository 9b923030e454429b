"""Latent-class models of judge misclassification: shared, model-specific, hierarchical.

The story of seed 001 (Eq. 1) as a generative model. For every judged response of
base model m on item i,

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
0.120, coverage 0.94). A joint latent class over (Z_A, Z_B) would recover the pairing.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import arviz as az
import jax
import jax.numpy as jnp
import numpy as np
import numpyro
import numpyro.distributions as dist
import pandas as pd
import xarray as xr
from jax.scipy.special import gammaln
from numpyro.distributions import constraints
from numpyro.distributions.util import promote_shapes
from tqdm.auto import tqdm

from judgebayes.bayes.inference import fit, ppc
from judgebayes.calibration.estimators import JudgedItems
from judgebayes.calibration.sweep import Sweep, _summarise, pair_cell_probs
from judgebayes.errors import DataError

__all__ = ["DESIGNS", "BayesCalibration", "CalibrationData", "JudgeMixture",
           "PosteriorDifference",
           "calibration_data", "fit_calibration", "hierarchical_calibration_model",
           "shared_calibration_model", "specific_calibration_model", "sweep_bayes"]

A_SD, LOG_DOR_MEAN, LOG_DOR_SD, TAU_SD = 1.5, 1.0, 1.0, 1.0
_NEVER = -1e30  # log-weight of the mixture component ruled out by an observed Z


def _scaled(weight: Any, sl: slice) -> contextlib.AbstractContextManager:
    if weight is None:
        return contextlib.nullcontext()
    return numpyro.handlers.scale(scale=jnp.asarray(weight)[sl])


def _observe(theta: Any, a: Any, log_dor: Any, model_idx: Any, n_runs: Any, n_cal: int,
             human_label: Any, judge_label: Any, weight: Any) -> None:
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
        numpyro.sample("judge_label", JudgeMixture(log_w1, log_w0, am + dm / 2, am - dm / 2,
                                                   jnp.asarray(n_runs)), obs=judge_label)


class JudgeMixture(dist.Distribution):
    """Judge-positive runs of one item whose true label Z is uncertain.

    log p(y) = logaddexp(log w1 + log Binomial(y; k, q1), log w0 + log Binomial(y; k, 1 − q0))
    with w1 = P(Z = 1) (θ on test items; 1 or 0 on calibration items, where Z is
    observed) and the components given by their logits, logit q1 and logit(1 − q0).
    Written here because NumPyro's mixtures need a support that does not depend on
    the parameters, and Binomial's upper bound k does.
    """

    arg_constraints: ClassVar[dict[str, Any]] = {
        "log_w1": constraints.real, "log_w0": constraints.real, "logit1": constraints.real,
        "logit0": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, log_w1: Any, log_w0: Any, logit1: Any, logit0: Any, total_count: Any,
                 *, validate_args: bool | None = None) -> None:
        (self.log_w1, self.log_w0, self.logit1, self.logit0,
         self.total_count) = promote_shapes(log_w1, log_w0, logit1, logit0, total_count)
        shape = jax.lax.broadcast_shapes(*(jnp.shape(x) for x in (
            log_w1, log_w0, logit1, logit0, total_count)))
        super().__init__(batch_shape=shape, validate_args=validate_args)

    def sample(self, key: jax.Array, sample_shape: tuple[int, ...] = ()) -> jax.Array:
        k1, k2 = jax.random.split(key)
        shape = sample_shape + self.batch_shape
        p1 = jnp.exp(self.log_w1 - jnp.logaddexp(self.log_w1, self.log_w0))
        z = jax.random.uniform(k1, shape) < p1
        logits = jnp.where(z, self.logit1, self.logit0)
        count = jnp.broadcast_to(jnp.asarray(self.total_count), shape)
        return dist.Binomial(count, logits=logits).sample(k2)

    def log_prob(self, value: Any) -> jax.Array:
        k = jnp.asarray(self.total_count, dtype=jnp.result_type(float))
        y = jnp.asarray(value, dtype=k.dtype)
        log_choose = gammaln(k + 1) - gammaln(y + 1) - gammaln(k - y + 1)
        lp1 = y * self.logit1 - k * jax.nn.softplus(self.logit1)
        lp0 = y * self.logit0 - k * jax.nn.softplus(self.logit0)
        return log_choose + jnp.logaddexp(self.log_w1 + lp1, self.log_w0 + lp0)


def _groups(group: Any, n_models: int) -> Any:
    return jnp.zeros(n_models, dtype=jnp.int32) if group is None else jnp.asarray(group)


def shared_calibration_model(model_idx: Any, n_runs: Any, *, n_cal: int, n_models: int,
                             group: Any = None, n_groups: int = 1, weight: Any = None,
                             human_label: Any = None, judge_label: Any = None) -> None:
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


def specific_calibration_model(model_idx: Any, n_runs: Any, *, n_cal: int, n_models: int,
                               group: Any = None, n_groups: int = 1, weight: Any = None,
                               human_label: Any = None, judge_label: Any = None) -> None:
    """Model-specific calibration: independent (q0_m, q1_m) per model (RG 2×, PPI++).

    Same arguments as :func:`shared_calibration_model` (``group`` is unused).
    """
    with numpyro.plate("model", n_models):
        theta = numpyro.sample("theta", dist.Beta(1.0, 1.0))
        a = numpyro.sample("a", dist.Normal(0.0, A_SD))
        log_dor = numpyro.sample("log_dor", dist.Normal(LOG_DOR_MEAN, LOG_DOR_SD))
    _observe(theta, a, log_dor, model_idx, n_runs, n_cal, human_label, judge_label, weight)


def hierarchical_calibration_model(model_idx: Any, n_runs: Any, *, n_cal: int, n_models: int,
                                   group: Any = None, n_groups: int = 1, weight: Any = None,
                                   human_label: Any = None, judge_label: Any = None) -> None:
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
}


# ----------------------------------------------------------------------- data
@dataclass(frozen=True)
class CalibrationData:
    """Arguments of the design models for one table of judged items.

    ``data`` holds the keyword arguments (calibration rows first); ``coords`` and
    :meth:`dims` name the ArviZ dimensions (``model``, ``group``, ``row``,
    ``cal_row``); ``item_ids`` the item of every row.
    """

    data: Mapping[str, Any]
    models: tuple[str, ...]
    n_cal: int
    item_ids: np.ndarray

    @property
    def coords(self) -> dict[str, Any]:
        n_rows = len(self.data["model_idx"])
        return {"model": list(self.models), "group": ["all"], "row": np.arange(n_rows),
                "cal_row": np.arange(self.n_cal)}

    def dims(self, design: str) -> dict[str, list[str]]:
        """ArviZ dims of every site of ``design``."""
        return {**_design_dims(design), "human_label": ["cal_row"], "judge_label": ["row"]}


def _design_dims(design: str) -> dict[str, list[str]]:
    """ArviZ dims of the parameters of ``design`` (``model`` and ``group``)."""
    out = {k: ["model"] for k in ("theta", "q0", "q1", "J")}
    if design == "shared":
        out.update(a=["group"], log_dor=["group"])
    elif design == "model_specific":
        out.update(a=["model"], log_dor=["model"])
    elif design == "hierarchical":
        out.update({k: ["model"] for k in ("a", "log_dor", "a_raw", "log_dor_raw")})
        out.update({k: ["group"] for k in ("mu_a", "mu_log_dor", "tau_a", "tau_log_dor")})
    else:
        raise ValueError(f"unknown design {design!r}; expected one of {list(DESIGNS)}")
    return out


def calibration_data(items: JudgedItems | pd.DataFrame) -> CalibrationData:
    """Model arguments from judged items: one row per (model, item), runs kept as counts."""
    if not isinstance(items, JudgedItems):
        items = JudgedItems(items)
    f = items.frame
    cal = f[f["split"] == "calibration"]
    if cal.empty:
        raise DataError("no item has a human label, so the judge cannot be calibrated",
                        column="human_label", expected="human labels on a calibration subset")
    rows = pd.concat([cal, f[f["split"] == "test"]], ignore_index=True)
    models = items.models
    data = {"model_idx": pd.Categorical(rows["model"], categories=models).codes.astype(np.int32),
            "n_runs": rows["n_runs"].to_numpy(np.int32), "n_cal": len(cal),
            "n_models": len(models),
            "human_label": cal["human_label"].to_numpy().astype(np.int32),
            "judge_label": rows["judge_pos"].to_numpy(np.int32)}
    return CalibrationData(data, models, len(cal), rows["item_id"].to_numpy())


def _cells(data: Mapping[str, Any]) -> tuple[dict[str, Any], np.ndarray]:
    """Identical rows merged into weighted cells (calibration cells first).

    Returns the weighted model arguments and, for every row, its cell. The
    likelihood of the cells with multiplicities equals that of the rows, so NUTS
    costs O(cells), not O(items).
    """
    n_rows, n_cal = len(data["model_idx"]), data["n_cal"]
    human = np.full(n_rows, -1)
    human[:n_cal] = data["human_label"]
    key = pd.DataFrame({"test": np.arange(n_rows) >= n_cal, "model_idx": data["model_idx"],
                        "human": human, "n_runs": data["n_runs"], "y": data["judge_label"]})
    cols = list(key.columns)
    cell = key.groupby(cols, sort=True).ngroup().to_numpy()
    uniq = key.drop_duplicates().sort_values(cols, ignore_index=True)
    n_cal_cells = int((~uniq["test"]).sum())
    cells = {k: v for k, v in data.items() if k not in ("human_label", "judge_label")}
    cells.update(model_idx=uniq["model_idx"].to_numpy(np.int32),
                 n_runs=uniq["n_runs"].to_numpy(np.int32), n_cal=n_cal_cells,
                 human_label=uniq["human"].to_numpy(np.int32)[:n_cal_cells],
                 judge_label=uniq["y"].to_numpy(np.int32),
                 weight=np.bincount(cell, minlength=len(uniq)).astype(float))
    return cells, cell


def _item_loglik(idata: az.InferenceData, design: str, cells: Mapping[str, Any],
                 cell: np.ndarray, data: CalibrationData) -> az.InferenceData:
    """Replace the cell log-likelihoods by per-item ones, plus their sum ``item`` (for LOO)."""
    from numpyro.infer import log_likelihood

    post = idata.posterior
    shape = (post.sizes["chain"], post.sizes["draw"])
    samples = {k: jnp.asarray(post[k].values.reshape(-1, *post[k].shape[2:]))
               for k in post.data_vars}
    free = {k: v for k, v in cells.items() if k != "weight"}
    ll = {k: np.asarray(v) for k, v in log_likelihood(DESIGNS[design], samples, **free).items()}
    judge = ll["judge_label"][:, cell].reshape(*shape, -1)
    human = ll["human_label"][:, cell[:data.n_cal]].reshape(*shape, -1)
    item = judge.copy()
    item[..., :data.n_cal] += human
    coords = {"chain": post["chain"].values, "draw": post["draw"].values,
              "row": np.arange(judge.shape[-1]), "cal_row": np.arange(data.n_cal)}
    dims = ("chain", "draw")
    del idata.log_likelihood
    del idata.observed_data
    idata.add_groups(
        log_likelihood=xr.Dataset({"judge_label": ((*dims, "row"), judge),
                                   "human_label": ((*dims, "cal_row"), human),
                                   "item": ((*dims, "row"), item)}, coords=coords),
        observed_data=xr.Dataset({"judge_label": ("row", np.asarray(data.data["judge_label"])),
                                  "human_label": ("cal_row", np.asarray(
                                      data.data["human_label"]))},
                                 coords={"row": coords["row"], "cal_row": coords["cal_row"]}))
    return idata


# -------------------------------------------------------------------- results
@dataclass(frozen=True)
class PosteriorDifference:
    """Posterior of a difference between two models (Δθ or ΔJ) under one design.

    ``estimate`` is the posterior median, ``se`` the posterior standard deviation,
    ``ci`` the equal-tailed ``1 − alpha`` credible interval, ``prob_positive`` the
    posterior probability that the difference is positive.
    """

    quantity: str
    design: str
    estimate: float
    se: float
    ci: tuple[float, float]
    prob_positive: float
    alpha: float

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame([{"quantity": self.quantity, "design": self.design,
                              "estimate": self.estimate, "se": self.se, "lo": self.ci[0],
                              "hi": self.ci[1], "prob_positive": self.prob_positive}])

    def __str__(self) -> str:
        return (f"{self.quantity} ({self.design}): {self.estimate:+.3f} "
                f"[{self.ci[0]:+.3f}, {self.ci[1]:+.3f}], P(> 0) = {self.prob_positive:.3f}")


def _interval(x: np.ndarray, alpha: float) -> tuple[float, float, float]:
    lo, med, hi = np.quantile(x, [alpha / 2, 0.5, 1 - alpha / 2])
    return float(med), float(lo), float(hi)


@dataclass(frozen=True)
class BayesCalibration:
    """Posteriors of the three calibration designs fitted to the same items.

    ``fits[design]`` is an :class:`arviz.InferenceData` with ``theta``, ``q0``,
    ``q1``, ``J`` per model and ``log_likelihood["item"]`` (one value per judged
    item) for LOO.
    """

    data: CalibrationData
    fits: Mapping[str, az.InferenceData]
    alpha: float = 0.05

    @property
    def models(self) -> tuple[str, ...]:
        return self.data.models

    def loo(self) -> pd.DataFrame:
        """PSIS-LOO comparison of the designs (:func:`arviz.compare` on per-item log p)."""
        return az.compare(dict(self.fits), ic="loo", var_name="item")

    def _draws(self, design: str, quantity: str) -> xr.DataArray:
        if design not in self.fits:
            raise DataError(f"design {design!r} was not fitted", expected=str(list(self.fits)))
        return self.fits[design].posterior[quantity]

    def difference(self, a: str, b: str, *, design: str = "hierarchical",
                   quantity: str = "theta") -> PosteriorDifference:
        """Posterior of ``quantity[a] − quantity[b]`` (``"theta"`` or ``"J"``)."""
        for m in (a, b):
            if m not in self.models:
                raise DataError(f"unknown model {m!r}", column="model",
                                expected=f"one of {list(self.models)}")
        x = self._draws(design, quantity)
        d = (x.sel(model=a) - x.sel(model=b)).values.ravel()
        med, lo, hi = _interval(d, self.alpha)
        return PosteriorDifference(f"{quantity}[{a}] - {quantity}[{b}]", design, med,
                                   float(d.std(ddof=1)), (lo, hi), float((d > 0).mean()),
                                   self.alpha)

    def summary(self, a: str | None = None, b: str | None = None) -> pd.DataFrame:
        """Posterior medians, sds and intervals of θ, q0, q1, J per model, Δθ and ΔJ."""
        a = a if a is not None else self.models[0]
        b = b if b is not None else self.models[-1]
        rows = []
        for design in self.fits:
            for q in ("theta", "q0", "q1", "J"):
                x = self._draws(design, q)
                for m in self.models:
                    v = x.sel(model=m).values.ravel()
                    med, lo, hi = _interval(v, self.alpha)
                    rows.append({"design": design, "quantity": f"{q}[{m}]", "estimate": med,
                                 "se": float(v.std(ddof=1)), "lo": lo, "hi": hi})
            if a != b:
                for q in ("theta", "J"):
                    rows.append(self.difference(a, b, design=design, quantity=q).to_frame()
                                .drop(columns="prob_positive").iloc[0].to_dict())
        return pd.DataFrame(rows)

    def ppc(self, design: str = "hierarchical", *, seed: int = 0,
            max_draws: int = 500) -> pd.DataFrame:
        """Posterior predictive check of judge-positive rates per model.

        Statistics: the judge-positive rate on test items (p of Eq. 1), and on
        calibration items with Z = 1 (q̂1) and Z = 0 (1 − q̂0). ``p_value`` is the
        two-sided posterior predictive p-value; a shared design that ignores a real
        ΔJ shows up as small p-values of the calibration rates.
        """
        d = self.data.data
        n_cal, m = self.data.n_cal, len(self.models)
        model, runs = np.asarray(d["model_idx"]), np.asarray(d["n_runs"], float)
        z = np.asarray(d["human_label"])
        masks = [np.arange(len(model)) >= n_cal,
                 np.concatenate([z == 1, np.zeros(len(model) - n_cal, bool)]),
                 np.concatenate([z == 0, np.zeros(len(model) - n_cal, bool)])]
        names = ("test positive rate", "calibration rate | Z=1 (q1)",
                 "calibration rate | Z=0 (1-q0)")

        def stat(y: np.ndarray) -> np.ndarray:
            y = np.asarray(y, float)
            return np.concatenate([np.bincount(model[k], y[k], m) / np.bincount(
                model[k], runs[k], m) for k in masks])

        out = ppc(DESIGNS[design], dict(d), self.fits[design], stat=stat, site="judge_label",
                  seed=seed, max_draws=max_draws)
        rep, obs = out["replicated"].values, out["observed"].values
        rows = []
        for s, name in enumerate(names):
            for k, mod in enumerate(self.models):
                j = s * m + k
                r = rep[:, j]
                if not np.isfinite(obs[j]):
                    continue
                p = min(1.0, 2 * min((r >= obs[j]).mean(), (r <= obs[j]).mean()))
                rows.append({"design": design, "model": mod, "statistic": name,
                             "observed": obs[j], "replicated": r.mean(),
                             "lo": np.quantile(r, self.alpha / 2),
                             "hi": np.quantile(r, 1 - self.alpha / 2), "p_value": p})
        return pd.DataFrame(rows)

    def __str__(self) -> str:
        s = self.summary()
        lines = ["Posterior medians and "
                 f"{100 * (1 - self.alpha):g}% intervals by calibration design:"]
        wide = s.assign(text=[f"{e:+.3f} [{lo:+.3f}, {hi:+.3f}]" if "-" in q else
                              f"{e:.3f} [{lo:.3f}, {hi:.3f}]"
                              for q, e, lo, hi in zip(s["quantity"], s["estimate"], s["lo"],
                                                      s["hi"], strict=True)])
        lines.append(wide.pivot(index="quantity", columns="design", values="text")
                     .reindex(columns=list(self.fits)).to_string())
        if len(self.fits) > 1:
            loo = self.loo()[["rank", "elpd_loo", "p_loo", "elpd_diff", "dse", "weight"]]
            lines += ["", "PSIS-LOO (per judged item):", loo.to_string(float_format="%.2f")]
        return "\n".join(lines)


def fit_calibration(items: JudgedItems | pd.DataFrame | CalibrationData, *,
                    designs: Sequence[str] = tuple(DESIGNS), method: str = "nuts",
                    chains: int = 4, draws: int = 1000, warmup: int = 1000, seed: int = 0,
                    target_accept: float = 0.9, alpha: float = 0.05,
                    progress: bool = True) -> BayesCalibration:
    """Fit the shared, model-specific and hierarchical designs to the same items.

    Parameters
    ----------
    items
        Judged items (or prepared :class:`CalibrationData`).
    designs
        Any of ``"shared"``, ``"model_specific"``, ``"hierarchical"``.
    method, chains, draws, warmup, seed, target_accept, progress
        Passed to :func:`judgebayes.bayes.inference.fit`.
    alpha
        Credible intervals have level 1 − alpha.
    """
    data = items if isinstance(items, CalibrationData) else calibration_data(items)
    cells, cell = _cells(data.data)
    fits = {}
    for design in designs:
        if design not in DESIGNS:
            raise ValueError(f"unknown design {design!r}; expected one of {list(DESIGNS)}")
        dims = {k: v for k, v in data.dims(design).items()
                if k not in ("judge_label", "human_label")}
        idata = fit(DESIGNS[design], cells, method=method, chains=chains, draws=draws,
                    warmup=warmup, seed=seed, coords={k: data.coords[k] for k in
                                                      ("model", "group")},
                    dims=dims, progress=progress, target_accept=target_accept)
        fits[design] = _item_loglik(idata, design, cells, cell, data)
    return BayesCalibration(data, fits, alpha)


# ---------------------------------------------------------------------- sweep
def _sweep_rows(cal: np.ndarray, test: np.ndarray) -> dict[str, Any]:
    """Weighted rows of the two-model cell counts of ``r`` replications."""
    r = len(cal)
    c = cal.reshape(r, 2, 2, 2, 2)  # z_a, h_a, z_b, h_b
    t = test.reshape(r, 2, 2)  # h_a, h_b
    cal_m = np.stack([c.sum(axis=(3, 4)), c.sum(axis=(1, 2))], axis=1)  # (r, model, z, h)
    test_m = np.stack([t.sum(axis=2), t.sum(axis=1)], axis=1)  # (r, model, h)
    rep, mod, z, h = np.indices(cal_m.shape).reshape(4, -1)
    w_cal = cal_m.ravel()
    rep2, mod2, h2 = np.indices(test_m.shape).reshape(3, -1)
    w_test = test_m.ravel()
    keep, keep2 = w_cal > 0, w_test > 0
    model = np.concatenate([2 * rep[keep] + mod[keep], 2 * rep2[keep2] + mod2[keep2]])
    return {"model_idx": model.astype(np.int32), "n_runs": np.ones(len(model), np.int32),
            "n_cal": int(keep.sum()), "n_models": 2 * r,
            "group": np.repeat(np.arange(r), 2).astype(np.int32), "n_groups": r,
            "weight": np.concatenate([w_cal[keep], w_test[keep2]]).astype(float),
            "human_label": z[keep].astype(np.int32),
            "judge_label": np.concatenate([h[keep], h2[keep2]]).astype(np.int32)}


def sweep_bayes(*, delta_j_values: Sequence[float] = (0.0, 0.15, 0.3),
                j_a_values: Sequence[float] = (), fixed_delta_j: float = 0.05,
                fixed_j_a: float = 0.3, theta_a: float = 0.70, delta_theta: float = 0.05,
                n_cal: int = 400, n_test: int = 800, corr: float = 0.5,
                designs: Sequence[str] = tuple(DESIGNS), n_reps: int = 50, chains: int = 2,
                draws: int = 500, warmup: int = 500, alpha: float = 0.05, seed: int = 0,
                progress: bool = True) -> Sweep:
    """Coverage and bias of the posterior of Δθ = θ_B − θ_A on the Section 5 simulations.

    Same simulation as :func:`judgebayes.calibration.sweep.simulate_sweep`. All
    ``n_reps`` replications of a sweep point are fitted in *one* NUTS run: each
    replication is a group of two models with its own parameters, and rows stand
    for identical items through ``weight`` (multiplicities), so the likelihood costs
    O(cells), not O(items). Point estimate: posterior median; interval:
    equal-tailed ``1 − alpha`` credible interval.

    Returns
    -------
    Sweep
        ``estimator`` is ``"bayes_<design>"``; ``n_failed`` counts divergent
        transitions of the joint run (not replications).
    """
    points = ([("J_A", float(j), float(j), float(fixed_delta_j)) for j in j_a_values]
              + [("delta_J", float(d), float(fixed_j_a), float(d)) for d in delta_j_values])
    theta = (theta_a, theta_a + delta_theta)
    rngs = np.random.default_rng(seed).spawn(len(points))
    rows = []
    with tqdm(total=len(points) * len(designs), desc="bayes sweep", unit="fit",
              disable=not progress) as bar:
        for (sweep, x, ja, dj), rng in zip(points, rngs, strict=True):
            q = ((1 + ja) / 2, (1 + ja + dj) / 2)
            pcal, ptest = pair_cell_probs(theta, q, q, corr)
            data = _sweep_rows(rng.multinomial(n_cal, pcal, size=n_reps),
                               rng.multinomial(n_test, ptest, size=n_reps))
            for design in designs:
                idata = fit(DESIGNS[design], data, method="nuts", chains=chains, draws=draws,
                            warmup=warmup, seed=int(rng.integers(2**31)), progress=False,
                            target_accept=0.9, dims=_design_dims(design),
                            coords={"model": np.arange(2 * n_reps),
                                    "group": np.arange(n_reps)})
                th = idata.posterior["theta"].values.reshape(-1, 2 * n_reps)
                d = th[:, 1::2] - th[:, 0::2]
                lo, med, hi = np.quantile(d, [alpha / 2, 0.5, 1 - alpha / 2], axis=0)
                summary = _summarise(med, lo, hi, np.zeros(n_reps, bool), delta_theta)
                summary["n_failed"] = int(idata.sample_stats["diverging"].sum())
                rows.append({"sweep": sweep, "x": x, "J_A": ja, "J_B": ja + dj,
                             "estimator": f"bayes_{design}", **summary})
                bar.update(1)
    settings = {"theta_a": theta_a, "delta_theta": delta_theta, "n_cal": n_cal,
                "n_test": n_test, "corr": corr, "shared_from": "none", "n_reps": n_reps,
                "n_boot": chains * draws, "alpha": alpha, "seed": seed,
                "fixed_delta_j": fixed_delta_j, "fixed_j_a": fixed_j_a}
    return Sweep(pd.DataFrame(rows), settings)
