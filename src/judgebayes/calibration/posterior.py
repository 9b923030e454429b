"""Posteriors of the calibration designs: fitting, LOO, posterior predictive checks.

:func:`fit_calibration` fits the shared, model-specific and hierarchical designs of
:mod:`judgebayes.calibration.designs` to the same judged items with NUTS. Identical
rows are merged into weighted cells for sampling (O(cells), not O(items)); the
per-item log-likelihoods are then restored so that PSIS-LOO compares the designs
item by item. :class:`BayesCalibration` holds the fits (per-model θ, q0, q1, J;
differences Δθ and ΔJ as :class:`PosteriorDifference`; LOO; PPC).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import arviz as az
import jax.numpy as jnp
import numpy as np
import pandas as pd
import xarray as xr

from judgebayes.bayes.inference import fit, ppc
from judgebayes.calibration.designs import DESIGNS, CalibrationData, _cells, calibration_data
from judgebayes.calibration.items import JudgedItems
from judgebayes.core.results import ResultDisplay
from judgebayes.errors import DataError

__all__ = ["BayesCalibration", "PosteriorDifference", "fit_calibration"]


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



@dataclass(frozen=True, repr=False)
class PosteriorDifference(ResultDisplay):
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

    def _headline(self) -> str:
        return (f"{self.quantity} under the {self.design} design; posterior median "
                f"{self.estimate:+.3f} ± {self.se:.3f} [{self.ci[0]:+.3f}, {self.ci[1]:+.3f}], "
                f"P(> 0) = {self.prob_positive:.3f}")

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


@dataclass(frozen=True, repr=False)
class BayesCalibration(ResultDisplay):
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

    def _headline(self) -> str:
        n_cal, n_rows = self.data.n_cal, len(self.data.item_ids)
        design = "hierarchical" if "hierarchical" in self.fits else next(iter(self.fits), None)
        head = (f"{len(self.models)} models, {n_rows:,} judged items ({n_cal:,} labelled), "
                f"{len(self.fits)} designs ({', '.join(self.fits)})")
        if design is None:
            return head
        post = self.fits[design].posterior
        theta = post["theta"].median(("chain", "draw")).values
        shown = ", ".join(f"{m} {t:.3f}" for m, t in zip(self.models[:4], theta, strict=False))
        return (f"{head}, {post.sizes['chain']} × {post.sizes['draw']:,} draws; θ ({design}) "
                f"{shown}" + (", …" if len(self.models) > 4 else ""))

    def to_frame(self) -> pd.DataFrame:
        """:meth:`summary`: posterior medians and intervals per design and quantity."""
        return self.summary()

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
