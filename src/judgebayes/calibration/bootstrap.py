"""The paired bootstrap of :func:`~judgebayes.calibration.analysis.calibrate`.

Intervals are percentile bootstrap intervals that resample calibration and test
items separately and keep items paired across models (Appendix E.4); point
estimates are bootstrap medians. Every statistic is a function of a handful of
per-model sums (``n, ΣY, ΣẐ, ΣẐ², ΣYẐ`` on calibration items, ``N, ΣẐ, ΣẐ²`` on test
items), so a bootstrap replicate is one matrix product of multinomial item weights
with the distinct item rows (:func:`estimates_from_sums` on the sums; the simulation sweeps
of :mod:`judgebayes.calibration.sweep` use it too). The delta method
(:func:`_delta_cov`) differentiates the same function for analytic standard errors.
:class:`BootstrapEstimate` summarises the replicates of one quantity.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from judgebayes.calibration.items import JudgedItems
from judgebayes.core.results import ResultDisplay

__all__ = [
    "N_CAL_SUMS",
    "N_TEST_SUMS",
    "BootstrapEstimate",
    "estimates_from_sums",
    "format_interval",
    "paired_bootstrap",
]

#: Per model, the number of calibration sums: (n, ΣY, ΣẐ, ΣẐ², ΣYẐ).
N_CAL_SUMS = 5
#: Per model, the number of test sums: (N, ΣẐ, ΣẐ²).
N_TEST_SUMS = 3
# Estimators that divide by Ĵ* (undefined in a replicate where Ĵ* ≤ 0).
_J_DIVIDED = ("rg", "rg_2x")


def _core(cal: Any, test: Any, base: int, xp: Any = np) -> dict[str, Any]:
    """Every estimator from the sums ``cal (..., M, 5)`` and ``test (..., M, 3)``.

    ``xp`` is NumPy or ``jax.numpy`` (the delta method differentiates this function).
    Values are unclipped; q̂ and Ĵ come from each model's own calibration items, the
    shared RG from the model ``base``'s.
    """
    n, sy, sh, shh, syh = (cal[..., k] for k in range(N_CAL_SUMS))
    big_n, ts, tss = (test[..., k] for k in range(N_TEST_SUMS))
    p = ts / big_n
    q1 = syh / sy
    q0 = 1 - (sh - syh) / (n - sy)
    j = q0 + q1 - 1
    sl = slice(base, base + 1)
    ybar, hbar = sy / n, sh / n
    tot = n + big_n
    var = (shh + tss - (sh + ts) ** 2 / tot) / (tot - 1)
    ok = var > 0
    lam = xp.where(ok, (syh / n - ybar * hbar) / ((1 + n / big_n) * xp.where(ok, var, 1.0)), 0.0)
    lam = xp.clip(lam, 0.0, 1.0)
    return {
        "naive": p,
        "q0": q0,
        "q1": q1,
        "J": j,
        "rg_2x": (p + q0 - 1) / j,
        "rg": (p + q0[..., sl] - 1) / j[..., sl],
        "ppi": ybar + lam * (p - hbar),
        "lam": lam,
    }


def _finish_rg(raw: np.ndarray, j: np.ndarray) -> np.ndarray:
    """Clip RG to [0, 1]; NaN where Ĵ ≤ 0 (undefined)."""
    return np.where(j > 0, np.clip(raw, 0.0, 1.0), np.nan)


def estimates_from_sums(cal: np.ndarray, test: np.ndarray, base: int) -> dict[str, np.ndarray]:
    """Every estimator of :func:`~judgebayes.calibration.analysis.calibrate` from the sums.

    The naive accuracy p̂ = ΣẐ/N on test items, the judge's rates q̂0, q̂1 and Youden's
    Ĵ = q̂0 + q̂1 − 1 on calibration items, Rogan-Gladen (p̂ + q̂0 − 1)/Ĵ with each
    model's own calibration (``rg_2x``) and with model ``base``'s (``rg``), and PPI++
    with its power-tuned λ̂ clipped to [0, 1].

    Parameters
    ----------
    cal
        Calibration sums ``(..., M, N_CAL_SUMS)``: n, ΣY, ΣẐ, ΣẐ², ΣYẐ per model.
    test
        Test sums ``(..., M, N_TEST_SUMS)``: N, ΣẐ, ΣẐ² per model.
    base
        Index of the model whose calibration the shared RG uses.

    Returns
    -------
    dict of numpy.ndarray
        ``naive, rg, rg_2x, ppi_2x, q0, q1, J`` (each ``(..., M)``; RG clipped to [0, 1]
        and NaN where its Ĵ ≤ 0) and the unclipped ``rg_raw, rg_2x_raw``.
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        c = _core(cal, test, base)
        return {
            "naive": c["naive"],
            "rg": _finish_rg(c["rg"], c["J"][..., base : base + 1]),
            "rg_2x": _finish_rg(c["rg_2x"], c["J"]),
            "ppi_2x": c["ppi"],
            "q0": c["q0"],
            "q1": c["q1"],
            "J": c["J"],
            "rg_raw": c["rg"],
            "rg_2x_raw": c["rg_2x"],
        }


def _unit_features(items: JudgedItems, models: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """Per calibration item (M, 5) and per test item (M, 3) features; 0 where absent."""
    f = items.frame
    out = []
    for split, width in (("calibration", N_CAL_SUMS), ("test", N_TEST_SUMS)):
        rows = f[f["split"] == split]
        units = pd.Index(pd.unique(rows["item_id"]))
        feats = np.zeros((len(units), len(models), width))
        for k, m in enumerate(models):
            r = rows[rows["model"] == m]
            u = units.get_indexer(r["item_id"])
            h = r["judge_label"].to_numpy(float)
            if split == "calibration":
                y = r["human_label"].to_numpy(float)
                feats[u, k] = np.column_stack([np.ones_like(h), y, h, h * h, y * h])
            else:
                feats[u, k] = np.column_stack([np.ones_like(h), h, h * h])
        out.append(feats)
    return out[0], out[1]


def _compress(feats: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct unit rows in lexicographic order and their multiplicities.

    The same as ``np.unique(flat, axis=0, return_counts=True)``, which compares rows
    field by field and is slow on many wide rows (26,000 items × 60 features: 0.3 s).
    Here the rows are told apart as raw bytes (one memcmp each; ``+ 0.0`` makes −0.0 and
    0.0 the same bytes; the features are finite), and only the few distinct rows are put
    in NumPy's lexicographic order: the multinomial draws over cells depend on that order.
    """
    flat = np.ascontiguousarray(feats.reshape(len(feats), -1) + 0.0)
    if len(flat) == 0:
        return flat, np.zeros(0, dtype=np.int64)
    rows = flat.view(np.dtype((np.void, flat.dtype.itemsize * flat.shape[1]))).ravel()
    _, first, inverse = np.unique(rows, return_index=True, return_inverse=True)
    cells = flat[first]
    order = np.lexsort(cells.T[::-1])  # first column most significant, as np.unique
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    return cells[order], np.bincount(rank[inverse.ravel()], minlength=len(order))


def _delta_cov(
    cal_units: np.ndarray, test_units: np.ndarray, base: int, keys: Sequence[str]
) -> dict[str, np.ndarray]:
    """Delta-method covariance (M × M) of each estimator in ``keys`` (unclipped).

    The estimators are smooth functions of the per-item feature means; their
    Jacobian comes from :func:`scipy.differentiate.jacobian` (Richardson-extrapolated
    finite differences of :func:`_core`), and Var(mean) = Σ/n for the calibration
    and test items separately, so paired items keep their covariance.
    """
    from scipy.differentiate import jacobian  # imported on use: a slow import

    nc, nt = len(cal_units), len(test_units)
    m = cal_units.shape[1]
    fc, ft = cal_units.reshape(nc, -1), test_units.reshape(nt, -1)
    split = m * N_CAL_SUMS

    def g(x: np.ndarray) -> np.ndarray:
        x = np.moveaxis(x, 0, -1)
        batch = x.shape[:-1]
        out = _core(
            x[..., :split].reshape(*batch, m, N_CAL_SUMS) * nc,
            x[..., split:].reshape(*batch, m, N_TEST_SUMS) * nt,
            base,
        )
        flat = np.stack([out[k] for k in keys], axis=-2).reshape(*batch, -1)
        return np.moveaxis(flat, -1, 0)

    x0 = np.concatenate([fc.mean(0), ft.mean(0)])
    with np.errstate(divide="ignore", invalid="ignore"):
        jac = jacobian(g, x0, initial_step=0.01).df.reshape(len(keys), m, -1)
    sigma = np.zeros((len(x0), len(x0)))
    sigma[:split, :split] = np.atleast_2d(np.cov(fc, rowvar=False, ddof=0)) / nc
    sigma[split:, split:] = np.atleast_2d(np.cov(ft, rowvar=False, ddof=0)) / nt
    bad = ~np.isfinite(jac).all(axis=2)
    cov = np.einsum("kmf,fg,kng->kmn", np.nan_to_num(jac), sigma, np.nan_to_num(jac))
    cov[bad[:, :, None] | bad[:, None, :]] = np.nan
    return {k: cov[i] for i, k in enumerate(keys)}


@dataclass(frozen=True, repr=False)
class BootstrapEstimate(ResultDisplay):
    """A bootstrap summary of one quantity under one estimator.

    Attributes
    ----------
    quantity
        ``"theta[M]"``, ``"theta[A] - theta[B]"``, ``"J[M]"``, ``"J[A] - J[B]"``, ...
    method
        Estimator name (see :data:`~judgebayes.calibration.estimators.ESTIMATORS`) or
        ``"diagnostic"``.
    estimate
        Bootstrap median (Appendix E.4), the paper's point estimate.
    ci
        Percentile interval (α/2, 1 − α/2).
    se
        Bootstrap standard deviation.
    plugin
        The estimator on the full data (for ``ppi_1x``: on the first random half).
    se_delta
        Delta-method standard error (Appendix B generalised; NaN where undefined).
    n_boot, n_undefined
        Replicates, and replicates where the estimator was undefined (Ĵ* ≤ 0 for RG).
        The median and interval are over the defined replicates only: for RG they are
        conditional on Ĵ* > 0 (:attr:`conditional_on_j_positive`).
    alpha
        Interval level 1 − alpha.
    verified
        False when the estimate rests on an assumption the data cannot check: shared
        calibration for a model without calibration labels, whose ΔJ cannot be
        estimated (Section 7: shared calibration "cannot be a default").
    note
        Why the estimate is unverified or undefined (empty when there is nothing to say).
    """

    quantity: str
    method: str
    estimate: float
    ci: tuple[float, float]
    se: float
    plugin: float
    se_delta: float
    n_boot: int
    n_undefined: int
    alpha: float
    verified: bool = True
    note: str = ""

    @property
    def conditional_on_j_positive(self) -> bool:
        """Whether the interval of this RG estimate drops replicates with Ĵ* ≤ 0.

        RG divides by Ĵ*, so it is undefined where a replicate's Ĵ* ≤ 0; its median
        and percentile interval are then over the replicates with Ĵ* > 0 only.
        """
        return (
            self.method in _J_DIVIDED and self.n_undefined > 0 and bool(np.isfinite(self.estimate))
        )

    @property
    def remark(self) -> str:
        """The caveats of this estimate in words (unverified, conditional), or ``""``."""
        parts = [self.note if self.verified else f"UNVERIFIED: {self.note}"] if self.note else []
        if self.conditional_on_j_positive:
            parts.append(
                f"interval conditional on Ĵ* > 0 ({self.n_undefined / self.n_boot:.1%}"
                f" of replicates had Ĵ* ≤ 0)"
            )
        return "; ".join(parts)

    @classmethod
    def from_replicates(
        cls,
        quantity: str,
        method: str,
        reps: np.ndarray,
        plugin: float,
        se_delta: float,
        alpha: float,
    ) -> BootstrapEstimate:
        ok = np.isfinite(reps)
        if not np.isfinite(plugin) or ok.sum() < 2:
            return cls(
                quantity,
                method,
                np.nan,
                (np.nan, np.nan),
                np.nan,
                float(plugin),
                float(se_delta),
                len(reps),
                int((~ok).sum()),
                alpha,
            )
        r = reps[ok]
        lo, med, hi = np.quantile(r, [alpha / 2, 0.5, 1 - alpha / 2])
        return cls(
            quantity,
            method,
            float(med),
            (float(lo), float(hi)),
            float(r.std(ddof=1)),
            float(plugin),
            float(se_delta),
            len(reps),
            int((~ok).sum()),
            alpha,
        )

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame([self._row()])

    def _row(self) -> dict[str, Any]:
        return {
            "quantity": self.quantity,
            "method": self.method,
            "estimate": self.estimate,
            "lo": self.ci[0],
            "hi": self.ci[1],
            "se": self.se,
            "se_delta": self.se_delta,
            "plugin": self.plugin,
            "n_boot": self.n_boot,
            "n_undefined": self.n_undefined,
            "conditional_on_J_positive": self.conditional_on_j_positive,
            "verified": self.verified,
            "note": self.remark,
        }

    def _headline(self) -> str:
        return (
            f"{self.quantity} ({self.method}), {self.n_boot:,} replicates; "
            f"{format_interval(self.estimate, *self.ci)}"
            + (f", se {self.se:.3f}" if np.isfinite(self.se) else "")
            + (f" ({self.remark})" if self.remark else "")
        )

    def __str__(self) -> str:
        return f"{self.quantity} ({self.method}): {format_interval(self.estimate, *self.ci)}" + (
            f"  [{self.remark}]" if self.remark else ""
        )


def format_interval(est: float, lo: float, hi: float, signed: bool = False) -> str:
    """``est [lo, hi]`` to three decimals, or ``undefined``.

    Parameters
    ----------
    est, lo, hi
        An estimate and its interval.
    signed
        Write a ``+`` before positive numbers (for differences).

    Returns
    -------
    str
        E.g. ``0.712 [0.650, 0.771]``; ``undefined`` when ``est`` is not finite.
    """
    if not np.isfinite(est):
        return "undefined"
    f = "{:+.3f}" if signed else "{:.3f}"
    return f"{f.format(est)} [{f.format(lo)}, {f.format(hi)}]"


def paired_bootstrap(
    items: JudgedItems,
    base: int,
    *,
    n_boot: int,
    n_splits: int,
    seed: int,
    progress: bool,
    chunk_size: int,
) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray], dict[str, np.ndarray]]:
    """Replicates ``(n_boot [× n_splits], M)``, full-data values and delta-method covariances.

    Calibration items are resampled from all of them (and, for PPI++ 1×, from each of
    ``n_splits`` random halves); test items are resampled with them; both keep items
    paired across models (Appendix E.4). Shared RG uses the calibration of model ``base``.

    Parameters
    ----------
    items
        The judged items, calibration and test.
    base
        Index (in ``items.models``) of the model whose calibration the shared RG uses.
    n_boot
        Bootstrap replicates per resampling (the full calibration set and each half).
    n_splits
        Random halves of the calibration items for PPI++ 1×.
    seed
        Seed of the resampling and of the halves.
    progress
        Show a progress bar.
    chunk_size
        Replicates drawn per matrix product (bounds memory).

    Returns
    -------
    replicates : dict of numpy.ndarray
        Per estimator, the replicates ``(n_boot, M)`` (``ppi_1x``:
        ``(n_boot · n_splits, M)``).
    plugin : dict of numpy.ndarray
        Per estimator, the full-data estimate ``(M,)`` (``ppi_1x``: on the first half).
    delta : dict of numpy.ndarray
        The delta-method covariance (M × M, unclipped estimators) of ``naive, rg, rg_2x,
        ppi, q0, q1, J`` (``ppi``: PPI++ 2×) and ``ppi_1x`` (on the first half).
    """
    models = items.models
    cal_units, test_units = _unit_features(items, models)
    mm = len(models)
    cal_cells, cal_counts = _compress(cal_units)
    test_cells, test_counts = _compress(test_units)
    n_cal, n_test = int(cal_counts.sum()), int(test_counts.sum())

    def sums(w: np.ndarray, cells: np.ndarray, width: int) -> np.ndarray:
        return (w @ cells).reshape(*w.shape[:-1], mm, width)

    plugin = estimates_from_sums(
        sums(cal_counts[None].astype(float), cal_cells, N_CAL_SUMS),
        sums(test_counts[None].astype(float), test_cells, N_TEST_SUMS),
        base,
    )
    plugin = {k: v[0] for k, v in plugin.items()}

    rng = np.random.default_rng(seed)
    half = n_cal // 2
    selections = [rng.multivariate_hypergeometric(cal_counts, half) for _ in range(n_splits)]
    first = estimates_from_sums(
        sums(selections[0][None].astype(float), cal_cells, N_CAL_SUMS),
        sums(test_counts[None].astype(float), test_cells, N_TEST_SUMS),
        base,
    )
    plugin["ppi_1x"] = first["ppi_2x"][0]
    rngs = rng.spawn(1 + n_splits)
    keys = ("naive", "rg", "rg_2x", "ppi_2x", "q0", "q1", "J")
    reps: dict[str, list[np.ndarray]] = {k: [] for k in (*keys, "ppi_1x")}
    jobs = [(0, cal_counts, n_cal)] + [(1 + k, sel, half) for k, sel in enumerate(selections)]
    with tqdm(total=n_boot * len(jobs), desc="bootstrap", unit="rep", disable=not progress) as bar:
        for job, counts, size in jobs:
            r = rngs[job]
            for start in range(0, n_boot, chunk_size):
                b = min(chunk_size, n_boot - start)
                wc = r.multinomial(size, counts / counts.sum(), size=b).astype(float)
                wt = r.multinomial(n_test, test_counts / n_test, size=b).astype(float)
                est = estimates_from_sums(
                    sums(wc, cal_cells, N_CAL_SUMS), sums(wt, test_cells, N_TEST_SUMS), base
                )
                if job == 0:
                    for k in keys:
                        reps[k].append(est[k])
                else:
                    reps["ppi_1x"].append(est["ppi_2x"])
                bar.update(b)
    replicates = {k: np.concatenate(v) for k, v in reps.items()}
    delta = _delta_cov(
        cal_units, test_units, base, ("naive", "rg", "rg_2x", "ppi", "q0", "q1", "J")
    )
    sel_units = _select_units(cal_units, cal_cells, selections[0])
    delta["ppi_1x"] = _delta_cov(sel_units, test_units, base, ("ppi",))["ppi"]
    return replicates, plugin, delta


def _select_units(units: np.ndarray, cells: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Item rows of a cell-count selection (for the delta method on a half)."""
    rows = np.repeat(cells, counts, axis=0)
    return rows.reshape(len(rows), *units.shape[1:])
