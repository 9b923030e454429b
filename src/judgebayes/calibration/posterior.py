"""Posteriors of the calibration designs: fitting, LOO, posterior predictive checks.

:func:`fit_calibration` fits the designs of :mod:`judgebayes.calibration.designs`
(shared, model-specific, hierarchical: one row per model and item) and of
:mod:`judgebayes.calibration.paired` (paired, paired_hierarchical: the models'
correctness on one item jointly) to the same judged items with NUTS (or MAP). Identical
rows are merged into weighted cells for sampling (O(cells), not O(items)); the per-item
log-likelihoods are then restored so that PSIS-LOO compares the designs item by item:
``log_likelihood["question"]`` (dimension ``item_id``) holds one value per item, the sum over the
models' rows of that item for the row designs, the joint term for the paired ones, so
that every design is scored on the same observations.
:class:`BayesCalibration` holds the fits (per-model θ, q0, q1, J; differences Δθ and
ΔJ as :class:`PosteriorDifference`; LOO; PPC).
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import arviz as az
import numpy as np
import pandas as pd
import scipy.sparse
import xarray as xr

from judgebayes.bayes.inference import SamplerWarning, fit
from judgebayes.bayes.predictive import posterior_predictive
from judgebayes.calibration.designs import DESIGNS
from judgebayes.calibration.items import JudgedItems
from judgebayes.calibration.paired import (
    MAX_MODELS,
    PAIRED_DESIGNS,
    PairedData,
    item_index,
    paired_cells,
    paired_data,
)
from judgebayes.calibration.rows import CalibrationData, calibration_data, row_cells
from judgebayes.core.results import ResultDisplay
from judgebayes.errors import DataError

__all__ = ["DEFAULT_DESIGNS", "BayesCalibration", "PosteriorDifference", "fit_calibration"]

DEFAULT_DESIGNS = ("shared", "model_specific", "hierarchical", "paired")
"""Designs :func:`fit_calibration` fits by default (``paired`` only up to
:data:`~judgebayes.calibration.paired.MAX_MODELS` models)."""


_DENSE_SETS = 2**24
"""Largest items × cells count matrix :func:`_question_of_cells` makes dense to find the
items' distinct sets of cells."""


def _cell_loglik(idata: az.InferenceData) -> tuple[dict[str, np.ndarray], tuple[int, int]]:
    """Log-likelihood of every cell at every draw, per observed site, shaped
    ``(chain, draw, cell)``: the values :func:`~judgebayes.bayes.inference.fit` already
    computed (one compiled, vectorised kernel).

    They are the cells' own (unweighted) log-likelihoods: NumPyro's ``log_likelihood``
    ignores the ``scale`` handler that applies the multiplicities, and only cells of
    weight 0 (which no item maps to) are masked to 0. After NUTS they equal, bit for
    bit, what NumPyro's ``log_likelihood`` recomputes from the posterior draws
    (``tests/_calibration_fixtures.py``); after MAP they are float64 (``fit`` evaluates
    them with x64 on).
    """
    ll = idata.log_likelihood
    shape = (ll.sizes["chain"], ll.sizes["draw"])
    return {k: ll[k].values.reshape(*shape, -1) for k in ("judge_label", "human_label")}, shape


def _replace_loglik(
    idata: az.InferenceData,
    loglik: xr.Dataset,
    observed: xr.Dataset,
) -> az.InferenceData:
    del idata.log_likelihood
    del idata.observed_data
    idata.add_groups(log_likelihood=loglik, observed_data=observed)
    return idata


def _question_of_cells(
    cell: np.ndarray, item_of_row: np.ndarray, n_items: int, n_cells: int
) -> tuple[scipy.sparse.csr_matrix, np.ndarray]:
    """The distinct sets of cells the items' rows fall in, and each item's set.

    Returns ``sets`` (cells × sets: how many of a set's rows fall in each cell) and
    ``of_item`` (each item's set), so that the items' log-likelihoods are
    ``(cell_loglik @ sets)[..., of_item]``: a product over a few sets instead of one
    over every row (with more than :data:`_DENSE_SETS` items × cells, each item is its
    own set).
    """
    counts = scipy.sparse.csr_matrix(
        (np.ones(len(cell)), (item_of_row, cell)), shape=(n_items, n_cells)
    )
    if n_items * n_cells > _DENSE_SETS:  # many cells: one set per item
        return counts.T.tocsr(), np.arange(n_items)
    sets, of_item = np.unique(counts.toarray(), axis=0, return_inverse=True)
    return scipy.sparse.csr_matrix(sets.T), of_item.ravel()


def _item_loglik(
    idata: az.InferenceData,
    design: str,
    cells: Mapping[str, Any],
    cell: np.ndarray,
    data: CalibrationData,
    pdata: PairedData,
) -> az.InferenceData:
    """Per-row log-likelihoods (``item``: one value per judged row) and their sums per
    question (``question``), in place of the cell log-likelihoods.

    Rows in one cell share their values, so the sums are formed per cell (and per
    distinct set of cells of an item) and then indexed to rows and items: the same
    numbers as recomputing the likelihood of every row from the draws
    (``tests/_calibration_fixtures.py`` does, and ``tests/test_calibration_loglik.py``
    compares).
    """
    ll, shape = _cell_loglik(idata)
    judge_c, human_c = ll["judge_label"], ll["human_label"]
    item_c = judge_c.copy()  # calibration cells first: they hold the calibration rows
    item_c[..., : human_c.shape[-1]] += human_c
    # np.take, not [..., cell]: fancy indexing of the last axis returns a transposed
    # (non-contiguous) array, whose float32 sums over rows numpy then accumulates
    # naively instead of pairwise.
    judge = np.take(judge_c, cell, axis=-1)
    human = np.take(human_c, cell[: data.n_cal], axis=-1)
    item = np.take(item_c, cell, axis=-1)
    combos, of_item = _question_of_cells(
        cell, pdata.item_of_row, len(pdata.item_ids), item_c.shape[-1]
    )
    per_set = np.asarray(item_c.reshape(-1, item_c.shape[-1]) @ combos)
    question = np.take(per_set, of_item, axis=-1).reshape(*shape, -1)
    return _row_dataset(idata, judge, human, item, question, data, pdata)


def _row_dataset(
    idata: az.InferenceData,
    judge: np.ndarray,
    human: np.ndarray,
    item: np.ndarray,
    question: np.ndarray,
    data: CalibrationData,
    pdata: PairedData,
) -> az.InferenceData:
    """``idata`` with a row design's per-row and per-question log-likelihoods."""
    post = idata.posterior
    coords = {
        "chain": post["chain"].values,
        "draw": post["draw"].values,
        "row": np.arange(judge.shape[-1]),
        "cal_row": np.arange(data.n_cal),
        "item_id": pdata.item_ids,
    }
    dims = ("chain", "draw")
    loglik = xr.Dataset(
        {
            "judge_label": ((*dims, "row"), judge),
            "human_label": ((*dims, "cal_row"), human),
            "item": ((*dims, "row"), item),
            "question": ((*dims, "item_id"), question),
        },
        coords=coords,
    )
    observed = xr.Dataset(
        {
            "judge_label": ("row", np.asarray(data.data["judge_label"])),
            "human_label": ("cal_row", np.asarray(data.data["human_label"])),
        },
        coords={"row": coords["row"], "cal_row": coords["cal_row"]},
    )
    return _replace_loglik(idata, loglik, observed)


def _paired_loglik(
    idata: az.InferenceData,
    design: str,
    cells: Mapping[str, Any],
    cell: np.ndarray,
    pdata: PairedData,
) -> az.InferenceData:
    """Per-question log-likelihoods of a paired design (``question`` = both sites), from
    the cell log-likelihoods of the fit."""
    ll, _ = _cell_loglik(idata)
    judge_c, human_c = ll["judge_label"], ll["human_label"]
    return _paired_dataset(
        idata,
        np.take(judge_c, cell, axis=-1),
        np.take(human_c, cell, axis=-1),
        np.take(judge_c + human_c, cell, axis=-1),
        pdata,
    )


def _paired_dataset(
    idata: az.InferenceData,
    judge: np.ndarray,
    human: np.ndarray,
    question: np.ndarray,
    pdata: PairedData,
) -> az.InferenceData:
    post = idata.posterior
    dims = ("chain", "draw", "item_id")
    coords = {"chain": post["chain"].values, "draw": post["draw"].values, "item_id": pdata.item_ids}
    loglik = xr.Dataset(
        {"judge_label": (dims, judge), "human_label": (dims, human), "question": (dims, question)},
        coords=coords,
    )
    observed = xr.Dataset(
        {
            k: (("item_id", "model"), np.asarray(pdata.data[k]))
            for k in ("judge_label", "human_label")
        },
        coords={"item_id": pdata.item_ids, "model": list(pdata.models)},
    )
    return _replace_loglik(idata, loglik, observed)


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
        return (
            f"{self.quantity} under the {self.design} design; posterior median "
            f"{self.estimate:+.3f} ± {self.se:.3f} [{self.ci[0]:+.3f}, {self.ci[1]:+.3f}], "
            f"P(> 0) = {self.prob_positive:.3f}"
        )

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame(
            [
                {
                    "quantity": self.quantity,
                    "design": self.design,
                    "estimate": self.estimate,
                    "se": self.se,
                    "lo": self.ci[0],
                    "hi": self.ci[1],
                    "prob_positive": self.prob_positive,
                }
            ]
        )

    def __str__(self) -> str:
        return (
            f"{self.quantity} ({self.design}): {self.estimate:+.3f} "
            f"[{self.ci[0]:+.3f}, {self.ci[1]:+.3f}], P(> 0) = {self.prob_positive:.3f}"
        )


def _interval(x: np.ndarray, alpha: float) -> tuple[float, float, float]:
    lo, med, hi = np.quantile(x, [alpha / 2, 0.5, 1 - alpha / 2])
    return float(med), float(lo), float(hi)


def _draws_subset(idata: az.InferenceData, size: int, seed: int) -> az.InferenceData:
    """``size`` posterior draws of a fit picked at random (``seed``), as one chain."""
    post = idata.posterior.stack(sample=("chain", "draw"))
    n = post.sizes["sample"]
    keep = np.sort(np.random.default_rng(seed).choice(n, size=min(size, n), replace=False))
    return az.from_dict(
        posterior={
            k: post[k].isel(sample=keep).transpose("sample", ...).values[None]
            for k in post.data_vars
        }
    )


@dataclass(frozen=True, repr=False)
class BayesCalibration(ResultDisplay):
    """Posteriors of calibration designs fitted to the same items.

    ``fits[design]`` is an :class:`arviz.InferenceData` with ``theta``, ``q0``,
    ``q1``, ``J`` per model and ``log_likelihood["question"]`` (one value per item,
    every model's answer to it) for LOO; the row designs also hold
    ``log_likelihood["item"]`` (one value per judged (model, item) row), the paired
    designs ``pi`` (pattern probabilities) and, for two models, ``log_odds_ratio``.
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
        head = (
            f"{len(self.models)} models, {n_rows:,} judged items ({n_cal:,} labelled), "
            f"{len(self.fits)} designs ({', '.join(self.fits)})"
        )
        if design is None:
            return head
        post = self.fits[design].posterior
        theta = post["theta"].median(("chain", "draw")).values
        shown = ", ".join(f"{m} {t:.3f}" for m, t in zip(self.models[:4], theta, strict=False))
        return (
            f"{head}, {post.sizes['chain']} × {post.sizes['draw']:,} draws; θ ({design}) "
            f"{shown}" + (", …" if len(self.models) > 4 else "")
        )

    def to_frame(self) -> pd.DataFrame:
        """:meth:`summary`: posterior medians and intervals per design and quantity."""
        return self.summary()

    def loo(self) -> pd.DataFrame:
        """PSIS-LOO comparison of the designs (:func:`arviz.compare`), one term per question.

        The unit left out is an item with every model's answer to it (the paired
        designs model them jointly; the row designs' rows are summed per item).
        """
        return az.compare(dict(self.fits), ic="loo", var_name="question")

    def _draws(self, design: str, quantity: str) -> xr.DataArray:
        if design not in self.fits:
            raise DataError(f"design {design!r} was not fitted", expected=str(list(self.fits)))
        return self.fits[design].posterior[quantity]

    def difference(
        self, a: str, b: str, *, design: str = "hierarchical", quantity: str = "theta"
    ) -> PosteriorDifference:
        """Posterior of ``quantity[a] − quantity[b]`` (``"theta"`` or ``"J"``)."""
        for m in (a, b):
            if m not in self.models:
                raise DataError(
                    f"unknown model {m!r}", column="model", expected=f"one of {list(self.models)}"
                )
        x = self._draws(design, quantity)
        d = (x.sel(model=a) - x.sel(model=b)).values.ravel()
        med, lo, hi = _interval(d, self.alpha)
        return PosteriorDifference(
            f"{quantity}[{a}] - {quantity}[{b}]",
            design,
            med,
            float(d.std(ddof=1)),
            (lo, hi),
            float((d > 0).mean()),
            self.alpha,
        )

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
                    rows.append(
                        {
                            "design": design,
                            "quantity": f"{q}[{m}]",
                            "estimate": med,
                            "se": float(v.std(ddof=1)),
                            "lo": lo,
                            "hi": hi,
                        }
                    )
            if a != b:
                for q in ("theta", "J"):
                    rows.append(
                        self.difference(a, b, design=design, quantity=q)
                        .to_frame()
                        .drop(columns="prob_positive")
                        .iloc[0]
                        .to_dict()
                    )
        return pd.DataFrame(rows)

    def ppc(
        self, design: str = "hierarchical", *, seed: int = 0, max_draws: int = 500
    ) -> pd.DataFrame:
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
        masks = [
            np.arange(len(model)) >= n_cal,
            np.concatenate([z == 1, np.zeros(len(model) - n_cal, bool)]),
            np.concatenate([z == 0, np.zeros(len(model) - n_cal, bool)]),
        ]
        names = (
            "test positive rate",
            "calibration rate | Z=1 (q1)",
            "calibration rate | Z=0 (1-q0)",
        )

        def stat(y: np.ndarray) -> np.ndarray:
            y = np.asarray(y, float)
            return np.concatenate(
                [np.bincount(model[k], y[k], m) / np.bincount(model[k], runs[k], m) for k in masks]
            )

        model_data: Mapping[str, Any] = d
        statistic: Callable[[np.ndarray], np.ndarray] = stat
        if design in PAIRED_DESIGNS:  # one row per item: back to (model, item) rows first
            pdata = paired_data(self.data)
            present = pdata.row_of >= 0
            target = pdata.row_of[present]

            def statistic(y: np.ndarray) -> np.ndarray:
                rows = np.zeros(len(model))
                rows[target] = np.asarray(y)[present]
                return stat(rows)

            model_data = pdata.data
        if design not in self.fits:
            raise DataError(f"design {design!r} was not fitted", expected=str(list(self.fits)))
        replicated = posterior_predictive(
            DESIGNS[design],
            dict(model_data),
            _draws_subset(self.fits[design], max_draws, seed),
            sites=["judge_label"],
            seed=seed,
        ).posterior_predictive["judge_label"]
        rep = np.stack([statistic(y) for y in replicated.values[0]])
        obs = statistic(np.asarray(model_data["judge_label"]))
        rows = []
        for s, name in enumerate(names):
            for k, mod in enumerate(self.models):
                j = s * m + k
                r = rep[:, j]
                if not np.isfinite(obs[j]):
                    continue
                p = min(1.0, 2 * min((r >= obs[j]).mean(), (r <= obs[j]).mean()))
                rows.append(
                    {
                        "design": design,
                        "model": mod,
                        "statistic": name,
                        "observed": obs[j],
                        "replicated": r.mean(),
                        "lo": np.quantile(r, self.alpha / 2),
                        "hi": np.quantile(r, 1 - self.alpha / 2),
                        "p_value": p,
                    }
                )
        return pd.DataFrame(rows)

    def __str__(self) -> str:
        s = self.summary()
        lines = [
            f"Posterior medians and {100 * (1 - self.alpha):g}% intervals by calibration design:"
        ]
        wide = s.assign(
            text=[
                f"{e:+.3f} [{lo:+.3f}, {hi:+.3f}]" if "-" in q else f"{e:.3f} [{lo:.3f}, {hi:.3f}]"
                for q, e, lo, hi in zip(s["quantity"], s["estimate"], s["lo"], s["hi"], strict=True)
            ]
        )
        lines.append(
            wide.pivot(index="quantity", columns="design", values="text")
            .reindex(columns=list(self.fits))
            .to_string()
        )
        if len(self.fits) > 1:
            loo = self.loo()[["rank", "elpd_loo", "p_loo", "elpd_diff", "dse", "weight"]]
            lines += ["", "PSIS-LOO (per judged item):", loo.to_string(float_format="%.2f")]
        return "\n".join(lines)


def fit_calibration(
    items: JudgedItems | pd.DataFrame | CalibrationData,
    *,
    designs: Sequence[str] | None = None,
    method: str = "nuts",
    chains: int = 4,
    draws: int = 1000,
    warmup: int = 1000,
    seed: int = 0,
    target_accept: float = 0.9,
    alpha: float = 0.05,
    progress: bool = True,
) -> BayesCalibration:
    """Fit calibration designs to the same items (one NUTS or MAP fit per design).

    Parameters
    ----------
    items
        Judged items (or prepared :class:`CalibrationData`).
    designs
        Names of :data:`~judgebayes.calibration.designs.DESIGNS`: ``"shared"``,
        ``"model_specific"``, ``"hierarchical"``, ``"paired"``,
        ``"paired_hierarchical"``. Default :data:`DEFAULT_DESIGNS` (the paired design
        dropped beyond :data:`~judgebayes.calibration.paired.MAX_MODELS` models).
    method, chains, draws, warmup, seed, target_accept, progress
        Passed to :func:`judgebayes.bayes.inference.fit`.
    alpha
        Credible intervals have level 1 − alpha.

    Raises
    ------
    DataError
        When ``"paired"`` is asked for with more than ``MAX_MODELS`` models.
    """
    data = items if isinstance(items, CalibrationData) else calibration_data(items)
    if designs is None:
        designs = tuple(
            d for d in DEFAULT_DESIGNS if d not in PAIRED_DESIGNS or len(data.models) <= MAX_MODELS
        )
    for design in designs:
        if design not in DESIGNS:
            raise ValueError(f"unknown design {design!r}; expected one of {list(DESIGNS)}")
    if any(d in PAIRED_DESIGNS for d in designs):
        pdata = paired_data(data)
    else:  # the items only (no limit on the number of models)
        pdata = item_index(data)
    cells, cell = row_cells(data.data)
    pcells, pcell = (
        paired_cells(pdata.data) if any(d in PAIRED_DESIGNS for d in designs) else (None, None)
    )  # fast: a few unique() calls
    fits = {}
    options = {
        "method": method,
        "chains": chains,
        "draws": draws,
        "warmup": warmup,
        "seed": seed,
        "progress": progress,
        "target_accept": target_accept,
    }
    for design in designs:
        if design in PAIRED_DESIGNS:
            coords = {k: v for k, v in pdata.coords.items() if k != "item"}
            dims = {
                k: v
                for k, v in pdata.dims(design).items()
                if k not in ("judge_label", "human_label")
            }
            with _naming_design(design):
                idata = fit(DESIGNS[design], pcells, coords=coords, dims=dims, **options)
            fits[design] = _paired_loglik(idata, design, pcells, pcell, pdata)
            continue
        dims = {
            k: v for k, v in data.dims(design).items() if k not in ("judge_label", "human_label")
        }
        with _naming_design(design):
            idata = fit(
                DESIGNS[design],
                cells,
                coords={k: data.coords[k] for k in ("model", "group")},
                dims=dims,
                **options,
            )
        fits[design] = _item_loglik(idata, design, cells, cell, data, pdata)
    return BayesCalibration(data, fits, alpha)


@contextlib.contextmanager
def _naming_design(design: str) -> Iterator[None]:
    """Re-issue the sampler's warnings of one design's fit with the design's name."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", SamplerWarning)
        yield
    for w in caught:
        if issubclass(w.category, SamplerWarning):
            warnings.warn(f"{design} design: {w.message}", SamplerWarning, stacklevel=4)
        else:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
