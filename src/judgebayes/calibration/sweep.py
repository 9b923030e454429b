"""Simulations of judge misclassification: item simulator and the Section 5 sweeps.

:func:`simulate_items` draws judged items for several models from the paper's
measurement model: item correctness Z_m ~ Bernoulli(θ_m), correlated across
models through a Gaussian copula (items differ in difficulty), and judge labels
Ẑ | Z ~ Bernoulli(q1_m) or Bernoulli(1 − q0_m) independently per run.
:func:`paper_table6` holds the paper's per-model q̂0, q̂1 (Table 6) and true
accuracies (Table 7) to use as simulation truth.

:func:`simulate_sweep` reproduces Figure 1: q0 = q1 (so q = (1 + J)/2), true
gap δ = θ_B − θ_A = 0.05, ΔJ = J_B − J_A; one sweep over J_A with ΔJ = 0.05 and
one over ΔJ with J_A = 0.3. For two binary models a calibration set is a vector
of 16 cell counts (Z_A, Ẑ_A, Z_B, Ẑ_B) and a test set 4 counts (Ẑ_A, Ẑ_B), so
every replication, its bootstrap replicates and every estimator are computed on
arrays of shape (replications, replicates, cells) at once. The multinomial draws
use NumPy (faster on a CPU for these shapes than ``jax.random.multinomial``,
``docs/benchmarks.md``); the
estimators are the broadcasting sufficient-statistic functions of
:mod:`judgebayes.calibration.bootstrap`. The Bayesian designs run on the same
simulations in :mod:`judgebayes.calibration.bayes_sweep`.
"""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from judgebayes._stats import norm_ppf
from judgebayes.calibration.bootstrap import N_CAL_SUMS, N_TEST_SUMS, estimates_from_sums
from judgebayes.calibration.estimators import ESTIMATOR_LABELS
from judgebayes.calibration.items import JudgedItems
from judgebayes.core.results import ResultDisplay
from judgebayes.errors import DataError

__all__ = [
    "CAL_CELLS",
    "TEST_CELLS",
    "SimulatedItems",
    "Sweep",
    "cell_features",
    "difference_summary",
    "paper_table6",
    "plot_sweep",
    "simulate_items",
    "simulate_sweep",
    "summarise_replications",
]

# Table 6 (q̂0, q̂1), Table 7 (true test accuracy θ) and Table 5 (items after filtering).
_TABLE6 = [
    ("math", "Mistral Large", "Gemma 3 12B", 0.509, 0.887, 0.738),
    ("math", "Mistral Large", "Qwen 2.5 7B", 0.569, 0.947, 0.735),
    ("math", "Gemma 4 31B", "Gemma 3 12B", 0.764, 0.878, 0.738),
    ("math", "Gemma 4 31B", "Qwen 2.5 7B", 0.752, 0.919, 0.735),
    ("biology", "Mistral Large", "Gemma 3 12B", 0.348, 0.746, 0.766),
    ("biology", "Mistral Large", "Qwen 2.5 7B", 0.395, 0.988, 0.718),
    ("biology", "Gemma 4 31B", "Gemma 3 12B", 0.435, 0.746, 0.766),
    ("biology", "Gemma 4 31B", "Qwen 2.5 7B", 0.553, 0.975, 0.718),
    ("law", "Mistral Large", "Gemma 3 12B", 0.279, 0.862, 0.334),
    ("law", "Mistral Large", "Qwen 2.5 7B", 0.342, 0.842, 0.308),
    ("law", "Gemma 4 31B", "Gemma 3 12B", 0.624, 0.768, 0.334),
    ("law", "Gemma 4 31B", "Qwen 2.5 7B", 0.637, 0.850, 0.308),
    ("engineering", "Mistral Large", "Gemma 3 12B", 0.637, 0.705, 0.393),
    ("engineering", "Mistral Large", "Qwen 2.5 7B", 0.796, 0.650, 0.380),
    ("engineering", "Gemma 4 31B", "Gemma 3 12B", 0.891, 0.475, 0.391),
    ("engineering", "Gemma 4 31B", "Qwen 2.5 7B", 0.915, 0.512, 0.379),
]
_N_ITEMS = {"math": 1290, "biology": 717, "law": 1101, "engineering": 963}


def paper_table6() -> pd.DataFrame:
    """Per-model q̂0, q̂1 (Table 6), Ĵ, true accuracy θ (Table 7) and items (Table 5)."""
    out = pd.DataFrame(_TABLE6, columns=["subject", "judge", "model", "q0", "q1", "theta"])
    out["J"] = out["q0"] + out["q1"] - 1
    out["n_items"] = out["subject"].map(_N_ITEMS)
    return out


# --------------------------------------------------------------------- items
@dataclass(frozen=True, repr=False)
class SimulatedItems(ResultDisplay):
    """Simulated judged items and the truth behind them.

    Attributes
    ----------
    items
        The validated table (human labels on the calibration items only).
    rows
        The raw rows (one per judge run), as a user's file would hold them.
    truth
        Per model: ``theta, q0, q1, J`` (population) and ``theta_test`` (the
        realised accuracy on the test items, the paper's "true θ").
    """

    items: JudgedItems
    rows: pd.DataFrame
    truth: pd.DataFrame

    def _headline(self) -> str:
        s, t = self.items.summary(), self.truth.head(4)
        more = ", …" if len(self.truth) > 4 else ""
        return (
            f"{len(self.truth)} models × {int((s['n_cal'] + s['n_test']).max()):,} items "
            f"({int(s['n_cal'].max()):,} labelled), {len(self.rows):,} judge runs; "
            f"θ {', '.join(f'{v:.3f}' for v in t['theta'])}{more}; "
            f"J {', '.join(f'{v:.3f}' for v in t['J'])}{more}"
        )

    def to_frame(self) -> pd.DataFrame:
        """The raw rows, one per judge run (as a user's file would hold them)."""
        return self.rows.copy()


def _vector(x: float | Sequence[float], n: int, name: str) -> np.ndarray:
    a = np.broadcast_to(np.asarray(x, dtype=float), (n,)).copy()
    if not np.all((a >= 0) & (a <= 1)):
        raise DataError(f"{name} must lie in [0, 1]", column=name, got=a.tolist())
    return a


def simulate_items(
    theta: Sequence[float],
    q0: float | Sequence[float],
    q1: float | Sequence[float],
    *,
    models: Sequence[str] | None = None,
    n_cal: int = 400,
    n_test: int = 800,
    corr: float = 0.5,
    runs: int = 1,
    labelled: Sequence[str] | None = None,
    seed: int = 0,
) -> SimulatedItems:
    """Judged items for several models on the same questions (the paper's story).

    Parameters
    ----------
    theta, q0, q1
        Per-model accuracy, specificity and sensitivity (scalars broadcast).
    models
        Model names (default ``"A"``, ``"B"``, ...).
    n_cal, n_test
        Calibration items (human-labelled) and test items, shared by all models
        (the paper splits one-third / two-thirds).
    corr
        Latent (tetrachoric) correlation of item correctness between models: a
        Gaussian copula Z_m = 1{ε_m < Φ⁻¹(θ_m)}, ε ~ N(0, (1 − ρ)I + ρ11ᵀ). The
        paper does not state its value; paired models on one benchmark are
        positively correlated.
    runs
        Judge runs per test item (calibration items get one, as in Appendix E.3);
        runs are independent given Z.
    labelled
        Models that have calibration labels (default all); the others are judged
        on the calibration items too but without human labels (a challenger with
        no labelling budget).
    seed
        Random seed.
    """
    theta = np.asarray(theta, dtype=float)
    k = theta.size
    models = list(models) if models is not None else [chr(ord("A") + i) for i in range(k)]
    if len(models) != k:
        raise DataError(f"{len(models)} model names for {k} accuracies", column="model")
    theta, q0, q1 = _vector(theta, k, "theta"), _vector(q0, k, "q0"), _vector(q1, k, "q1")
    if not -1 / max(k - 1, 1) < corr < 1 or runs < 1 or n_cal < 0 or n_test < 1:
        raise ValueError("need -1/(k-1) < corr < 1, runs >= 1, n_cal >= 0, n_test >= 1")
    rng = np.random.default_rng(seed)
    n = n_cal + n_test
    cov = np.full((k, k), corr) + (1 - corr) * np.eye(k)
    eps = rng.multivariate_normal(np.zeros(k), cov, size=n)
    z = (eps < norm_ppf(theta)).astype(int)  # (n, k)
    reps = np.where(np.arange(n) < n_cal, 1, runs)
    item = np.repeat(np.arange(n), reps)
    run = np.concatenate([np.arange(r) for r in reps])
    labelled = set(models if labelled is None else labelled)
    frames = []
    for m, name in enumerate(models):
        zi = z[item, m]
        h = rng.random(item.size) < np.where(zi == 1, q1[m], 1 - q0[m])
        human = np.where((item < n_cal) & (name in labelled), zi, np.nan)
        frames.append(
            pd.DataFrame(
                {
                    "model": name,
                    "item_id": item,
                    "run": run,
                    "judge_label": h.astype(int),
                    "human_label": human,
                }
            )
        )
    rows = pd.concat(frames, ignore_index=True)
    truth = pd.DataFrame(
        {
            "model": models,
            "theta": theta,
            "q0": q0,
            "q1": q1,
            "J": q0 + q1 - 1,
            "theta_test": z[n_cal:].mean(axis=0),
        }
    )
    return SimulatedItems(JudgedItems(rows), rows, truth)


# -------------------------------------------------------------------- sweeps
#: The 16 kinds of calibration item of two models: rows (z_a, h_a, z_b, h_b) of 0/1.
CAL_CELLS = np.array(list(itertools.product((0, 1), repeat=4)))
#: The 4 kinds of test item of two models: rows (h_a, h_b) of 0/1.
TEST_CELLS = np.array(list(itertools.product((0, 1), repeat=2)))


def cell_features() -> tuple[np.ndarray, np.ndarray]:
    """The sums' features of each cell of :data:`CAL_CELLS` and :data:`TEST_CELLS`.

    A calibration item adds (1, Z, Ẑ, Ẑ², ZẐ) to each model's calibration sums and a
    test item (1, Ẑ, Ẑ²) to its test sums, so cell counts times these features are the
    sums :func:`~judgebayes.calibration.bootstrap.estimates_from_sums` takes.

    Returns
    -------
    cal : numpy.ndarray
        ``(16, 2 · N_CAL_SUMS)``: per calibration cell, model A's sums then model B's.
    test : numpy.ndarray
        ``(4, 2 · N_TEST_SUMS)``: per test cell, model A's sums then model B's.
    """
    cal = np.zeros((16, 2, N_CAL_SUMS))
    for m in range(2):
        z, h = CAL_CELLS[:, 2 * m], CAL_CELLS[:, 2 * m + 1]
        cal[:, m] = np.column_stack([np.ones(16), z, h, h * h, z * h])
    test = np.zeros((4, 2, N_TEST_SUMS))
    for m in range(2):
        h = TEST_CELLS[:, m]
        test[:, m] = np.column_stack([np.ones(4), h, h * h])
    return cal.reshape(16, -1), test.reshape(4, -1)


def pair_cell_probs(
    theta: Sequence[float], q0: Sequence[float], q1: Sequence[float], corr: float
) -> tuple[np.ndarray, np.ndarray]:
    """Cell probabilities of one calibration item (16) and one test item (4), two models.

    Cells are ordered as ``itertools.product((0, 1), repeat=4)`` over
    (Z_A, Ẑ_A, Z_B, Ẑ_B), and (Ẑ_A, Ẑ_B) for test items; correctness is joined by the
    Gaussian copula of :func:`simulate_items`.
    """
    from scipy.stats import multivariate_normal  # ~1 s to import: only when used

    ta, tb = theta
    p11 = (
        float(
            multivariate_normal(mean=[0, 0], cov=[[1, corr], [corr, 1]]).cdf(
                [norm_ppf(ta), norm_ppf(tb)]
            )
        )
        if 0 < ta < 1 and 0 < tb < 1
        else ta * tb
    )
    pz = {(1, 1): p11, (1, 0): ta - p11, (0, 1): tb - p11, (0, 0): 1 - ta - tb + p11}

    def ph(h: int, z: int, m: int) -> float:
        pos = q1[m] if z == 1 else 1 - q0[m]
        return pos if h == 1 else 1 - pos

    cal = np.array([pz[(za, zb)] * ph(ha, za, 0) * ph(hb, zb, 1) for za, ha, zb, hb in CAL_CELLS])
    test = cal.reshape(2, 2, 2, 2).sum(axis=(0, 2)).ravel()
    cal, test = np.clip(cal, 0, None), np.clip(test, 0, None)
    return cal / cal.sum(), test / test.sum()


def _sweep_chunk(
    rng: np.random.Generator,
    pcal: np.ndarray,
    ptest: np.ndarray,
    n_cal: int,
    n_test: int,
    r: int,
    n_boot: int,
    base: int,
    alpha: float,
) -> dict[str, np.ndarray]:
    """Δθ = θ_B − θ_A of ``r`` replications: bootstrap median, interval and failure."""
    fcal, ftest = cell_features()
    cal = rng.multinomial(n_cal, pcal, size=r)
    half = np.stack([rng.multivariate_hypergeometric(c, n_cal // 2) for c in cal])
    test = rng.multinomial(n_test, ptest, size=r)

    def boot(counts: np.ndarray, size: int) -> np.ndarray:
        p = np.broadcast_to((counts / size)[:, None, :], (r, n_boot, counts.shape[1]))
        return rng.multinomial(size, p).astype(float)

    bc, bh, bt = boot(cal, n_cal), boot(half, n_cal // 2), boot(test, n_test)

    def est(c: np.ndarray, t: np.ndarray) -> dict[str, np.ndarray]:
        return estimates_from_sums(
            (c @ fcal).reshape(*c.shape[:-1], 2, N_CAL_SUMS),
            (t @ ftest).reshape(*t.shape[:-1], 2, N_TEST_SUMS),
            base,
        )

    full, halves = est(bc, bt), est(bh, bt)
    pfull, phalf = (
        est(cal.astype(float), test.astype(float)),
        est(half.astype(float), test.astype(float)),
    )
    reps = {
        "naive": full["naive"],
        "rg": full["rg"],
        "rg_2x": full["rg_2x"],
        "ppi_1x": halves["ppi_2x"],
        "ppi_2x": full["ppi_2x"],
    }
    plug = {
        "naive": pfull["naive"],
        "rg": pfull["rg"],
        "rg_2x": pfull["rg_2x"],
        "ppi_1x": phalf["ppi_2x"],
        "ppi_2x": pfull["ppi_2x"],
    }
    return {name: difference_summary(x, plug[name], alpha) for name, x in reps.items()}


def difference_summary(reps: np.ndarray, plug: np.ndarray, alpha: float) -> np.ndarray:
    """Median, percentile interval and failure flag of the difference model 1 − model 0.

    A replication fails when its plug-in difference or its median is not finite.

    Parameters
    ----------
    reps
        Bootstrap replicates ``(r, n_boot, 2)`` of each replication's two estimates.
    plug
        The plug-in estimates ``(r, 2)``.
    alpha
        The percentile interval is [α/2, 1 − α/2] (NaN replicates ignored).

    Returns
    -------
    numpy.ndarray
        ``(4, r)``: median, lower, upper bound and failure flag (1.0 or 0.0).
    """
    d = reps[..., 1] - reps[..., 0]  # (r, n_boot)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN rows: failures
        lo, med, hi = np.nanquantile(d, [alpha / 2, 0.5, 1 - alpha / 2], axis=1)
    failed = ~np.isfinite(plug[..., 1] - plug[..., 0]) | ~np.isfinite(med)
    return np.stack([med, lo, hi, failed.astype(float)])


@dataclass(frozen=True, repr=False)
class Sweep(ResultDisplay):
    """Bias and interval coverage of Δθ̂ per estimator along the sweeps (Figure 1).

    ``frame`` has one row per (sweep point, estimator): ``sweep`` (``"J_A"`` or
    ``"delta_J"``), ``x``, ``J_A``, ``J_B``, ``estimator``, ``bias`` (mean of the
    point estimate − δ), ``bias_mcse``, ``coverage`` (failures count as misses),
    ``coverage_mcse``, ``width`` (mean interval width), ``rmse``, ``n_reps``,
    ``n_failed``. ``settings`` records the simulation parameters.
    """

    frame: pd.DataFrame
    settings: Mapping[str, Any]

    def _headline(self) -> str:
        f, s = self.frame, self.settings
        worst = f.groupby("estimator", sort=False)["coverage"].min()
        return (
            f"{len(f[['sweep', 'x']].drop_duplicates())} sweep points × {len(worst)} "
            f"estimators, {s.get('n_reps', 0):,} replications each, δ = "
            f"{s.get('delta_theta')}; lowest coverage "
            + ", ".join(f"{k} {v:.2f}" for k, v in worst.items())
            + f" (nominal {1 - s.get('alpha', 0.05):.2f})"
        )

    def to_frame(self) -> pd.DataFrame:
        return self.frame.copy()

    def plot(
        self,
        axes: Any = None,
        *,
        estimators: Sequence[str] | None = None,
    ) -> np.ndarray:
        """Figure 1: coverage (top) and bias (bottom) against J_A (left) and ΔJ (right).

        ``axes``: a 2 × 2 array of axes to draw into (a new figure when ``None``).
        Returns the 2 × 2 array of :class:`~matplotlib.axes.Axes`.
        """
        return plot_sweep(
            self.frame,
            axes=axes,
            estimators=estimators,
            nominal=1 - self.settings.get("alpha", 0.05),
        )

    def __str__(self) -> str:
        s = self.settings
        head = (
            f"Sweep over J and ΔJ (δ = θ_B − θ_A = {s['delta_theta']}, q0 = q1, "
            f"n_cal = {s['n_cal']}, n_test = {s['n_test']}, {s['n_reps']} replications, "
            f"{s['n_boot']} bootstrap replicates; shared RG uses model "
            f"{s['shared_from']}'s calibration)"
        )
        cols = ["sweep", "x", "estimator", "bias", "coverage", "width", "n_failed"]
        return head + "\n" + self.frame[cols].to_string(index=False, float_format="%.3f")


def simulate_sweep(
    *,
    j_a_values: Sequence[float] = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8),
    delta_j_values: Sequence[float] = (0.0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3),
    fixed_delta_j: float = 0.05,
    fixed_j_a: float = 0.3,
    theta_a: float = 0.70,
    delta_theta: float = 0.05,
    n_cal: int = 400,
    n_test: int = 800,
    corr: float = 0.5,
    shared_from: str = "A",
    n_reps: int = 200,
    n_boot: int = 1000,
    alpha: float = 0.05,
    seed: int = 0,
    progress: bool = True,
    chunk_size: int = 50_000,
) -> Sweep:
    """Bias and coverage of every Δθ estimator over J_A and ΔJ (Section 5, Figure 1).

    Parameters
    ----------
    j_a_values
        J_A values of the first sweep (ΔJ = ``fixed_delta_j``); empty to skip it.
    delta_j_values
        ΔJ = J_B − J_A values of the second sweep (J_A = ``fixed_j_a``); empty to skip.
    theta_a, delta_theta
        θ_A and δ = θ_B − θ_A (the paper: δ = 0.05; it does not give θ_A).
    n_cal, n_test
        Calibration and test items per replication (paired across the two models).
        The paper gives no sizes; the default is its MMLU-Pro math split
        (≈ 1/3 of 1,290 questions for calibration).
    corr
        Latent correlation of the two models' correctness (see :func:`simulate_items`).
    shared_from
        ``"A"`` or ``"B"``: whose calibration labels the shared RG reuses.
    n_reps, n_boot
        Replications per sweep point and bootstrap replicates per replication.
    alpha
        Nominal coverage 1 − alpha.
    seed
        Random seed (each sweep point has its own stream).
    progress
        Show a progress bar.
    chunk_size
        Replications × replicates held in memory at once.

    Returns
    -------
    Sweep
        Point estimate = bootstrap median (Appendix E.4); intervals are percentile
        intervals; PPI++ 1× uses one random half of each replication's calibration
        items (a true 1× labelling budget). Replications where an estimator is
        undefined (Ĵ ≤ 0 for RG) count as misses and in ``n_failed``.
    """
    if shared_from not in ("A", "B"):
        raise ValueError(f"shared_from must be 'A' or 'B', got {shared_from!r}")
    points = [("J_A", float(j), float(j), float(fixed_delta_j)) for j in j_a_values] + [
        ("delta_J", float(d), float(fixed_j_a), float(d)) for d in delta_j_values
    ]
    theta = (theta_a, theta_a + delta_theta)
    for _, _, ja, dj in points:
        if not (0 < ja and ja + dj < 1 and 0 <= theta[0] and theta[1] <= 1):
            raise ValueError(f"J_A = {ja}, J_B = {ja + dj} and θ = {theta} must lie in (0, 1)")
    rngs = np.random.default_rng(seed).spawn(len(points))
    per = max(1, chunk_size // n_boot)
    rows = []
    with tqdm(total=len(points) * n_reps, desc="sweep", unit="rep", disable=not progress) as bar:
        for (sweep, x, ja, dj), rng in zip(points, rngs, strict=True):
            q = ((1 + ja) / 2, (1 + ja + dj) / 2)
            pcal, ptest = pair_cell_probs(theta, q, q, corr)
            parts = []
            for start in range(0, n_reps, per):
                r = min(per, n_reps - start)
                parts.append(
                    _sweep_chunk(
                        rng,
                        pcal,
                        ptest,
                        n_cal,
                        n_test,
                        r,
                        n_boot,
                        0 if shared_from == "A" else 1,
                        alpha,
                    )
                )
                bar.update(r)
            for name in parts[0]:
                med, lo, hi, failed = np.concatenate([p[name] for p in parts], axis=1)
                rows.append(
                    {
                        "sweep": sweep,
                        "x": x,
                        "J_A": ja,
                        "J_B": ja + dj,
                        "estimator": name,
                        **summarise_replications(med, lo, hi, failed.astype(bool), delta_theta),
                    }
                )
    frame = pd.DataFrame(rows)
    settings = {
        "theta_a": theta_a,
        "delta_theta": delta_theta,
        "n_cal": n_cal,
        "n_test": n_test,
        "corr": corr,
        "shared_from": shared_from,
        "n_reps": n_reps,
        "n_boot": n_boot,
        "alpha": alpha,
        "seed": seed,
        "fixed_delta_j": fixed_delta_j,
        "fixed_j_a": fixed_j_a,
    }
    return Sweep(frame, settings)


def summarise_replications(
    point: np.ndarray, lo: np.ndarray, hi: np.ndarray, failed: np.ndarray, truth: float
) -> dict[str, float]:
    """Bias, coverage (failures are misses), width and RMSE with Monte Carlo errors.

    Parameters
    ----------
    point, lo, hi
        Per replication, the point estimate and the interval.
    failed
        Per replication, whether the estimator failed (its interval then misses).
    truth
        The true value.

    Returns
    -------
    dict
        ``bias`` and ``bias_mcse`` (sd / √n over the replications that did not fail),
        ``coverage`` and ``coverage_mcse`` (√(c(1 − c)/n) over all), ``width``,
        ``rmse``, ``n_reps`` and ``n_failed``.
    """
    ok = ~failed
    n = len(point)
    err = point[ok] - truth
    cover = np.zeros(n, dtype=bool)
    cover[ok] = (lo[ok] <= truth) & (truth <= hi[ok])
    cov = cover.mean()
    return {
        "bias": float(err.mean()) if ok.any() else np.nan,
        "bias_mcse": float(err.std(ddof=1) / np.sqrt(ok.sum())) if ok.sum() > 1 else np.nan,
        "coverage": float(cov),
        "coverage_mcse": float(np.sqrt(cov * (1 - cov) / n)),
        "width": float((hi[ok] - lo[ok]).mean()) if ok.any() else np.nan,
        "rmse": float(np.sqrt((err**2).mean())) if ok.any() else np.nan,
        "n_reps": int(n),
        "n_failed": int(failed.sum()),
    }


def plot_sweep(
    frame: pd.DataFrame | Sweep,
    *,
    axes: Any = None,
    estimators: Sequence[str] | None = None,
    nominal: float = 0.95,
) -> np.ndarray:
    """Coverage (top row) and bias (bottom row) against J_A (left) and ΔJ (right).

    ``frame`` is :attr:`Sweep.frame` (several concatenated, e.g. with the Bayesian
    sweep of :func:`judgebayes.calibration.bayes_sweep.sweep_bayes`, also work).
    ``axes`` are four axes to draw into (2 × 2; a new figure when ``None``).
    Returns the 2 × 2 numpy array of :class:`~matplotlib.axes.Axes`.
    """
    import matplotlib.pyplot as plt

    if isinstance(frame, Sweep):
        frame = frame.frame
    names = list(estimators) if estimators is not None else list(dict.fromkeys(frame["estimator"]))
    if axes is None:
        _, axes = plt.subplots(2, 2, figsize=(10, 6.5), sharey="row")
    axes = np.asarray(axes).reshape(2, 2)
    titles = {
        "J_A": ("J_A", "ΔJ = {:.2f} fixed"),
        "delta_J": ("ΔJ = J_B − J_A", "J_A = {:.2f} fixed"),
    }
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for col, sweep in enumerate(("J_A", "delta_J")):
        sub = frame[frame["sweep"] == sweep]
        for row, (what, ylabel) in enumerate(
            (("coverage", "95% CI coverage"), ("bias", "bias of Δθ̂"))
        ):
            ax = axes[row, col]
            for k, name in enumerate(names):
                s = sub[sub["estimator"] == name].sort_values("x")
                if len(s):
                    ax.errorbar(
                        s["x"],
                        s[what],
                        yerr=2 * s[f"{what}_mcse"],
                        marker="o",
                        ms=3,
                        capsize=2,
                        color=colors[k % len(colors)],
                        label=ESTIMATOR_LABELS.get(name, name),
                    )
            ax.axhline(nominal if what == "coverage" else 0.0, ls=":", color="k")
            ax.set_ylabel(ylabel)
            if len(sub):
                fixed = (
                    sub["J_B"].iloc[0] - sub["J_A"].iloc[0]
                    if sweep == "J_A"
                    else sub["J_A"].iloc[0]
                )
                ax.set_title(
                    f"{what} vs {titles[sweep][0]} ({titles[sweep][1].format(fixed)})", fontsize=9
                )
            ax.set_xlabel(titles[sweep][0])
    axes[0, 0].legend(fontsize=7, frameon=False)
    return axes
