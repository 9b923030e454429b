"""Is the judge equally good on every model? J per model, ΔJ, and the Section 7 checklist.

Fiedler (*Bias and Uncertainty in LLM-as-a-Judge Estimation*, 2026, arXiv:2605.06939)
asks two questions before trusting a judge-corrected comparison (Section 4.4): is judge
quality J large enough, and is ΔJ — the difference in J between the models compared —
small relative to its uncertainty? (An interval of ΔJ that excludes 0 makes shared
calibration indefensible.) On pairwise battles the binary label is "this model won"
(ties: not won) and a battle is one item of each of its two models
(:meth:`~judgebayes.JudgedItems.from_battles`); :func:`~judgebayes.calibration.calibrate`
gives every model's q̂0, q̂1, Ĵ and θ̂ (naive, Rogan–Gladen, PPI++) with the paired bootstrap,
and its Section 7 checklist (PPI++ 1× on one random half of the labels: the audit reads
model-specific PPI++ 2×, and one half keeps the bootstrap to ``n_boot`` replicates).

An audit compares every pair of models, not one pair: with K models there are K(K − 1)/2
ΔJ, so :func:`judge_by_model` tests each with the normal approximation of its paired
bootstrap (z = ΔĴ / sd of the replicates) and adjusts the p-values by Holm's method. Shared
calibration is *not defensible* when some adjusted p-value is below α, *unverifiable* for
models without enough human labels to estimate J (fewer than ``min_labels`` labelled
battles, or none of one outcome), and *defensible* otherwise — a necessary, not a
sufficient, condition (Section 4.4).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from itertools import combinations

import numpy as np
import pandas as pd

from judgebayes.auditing.estimates import Estimate, from_replicates, holm_finite, normal_p
from judgebayes.calibration.analysis import Calibration, calibrate
from judgebayes.calibration.items import JudgedItems
from judgebayes.calibration.report import CalibrationReport
from judgebayes.core.results import ResultDisplay
from judgebayes.errors import DataError

__all__ = ["JudgeByModel", "judge_by_model"]

MIN_LABELS = 10
"""Fewest calibration items (with both outcomes) for a model's J to count in ΔJ tests."""


@dataclass(frozen=True, repr=False)
class JudgeByModel(ResultDisplay):
    """One judge, model by model (module docstring).

    Attributes
    ----------
    judge
        The judge.
    calibration
        The :class:`~judgebayes.calibration.Calibration` of its items.
    per_model
        ``model, n_cal, n_pos, n_neg, q0, q0_lo, q0_hi, q1, ..., J, J_lo, J_hi`` and the
        win rate θ against the field: ``naive`` (the judge alone) and ``ppi_2x`` (PPI++ with
        model-specific calibration), with intervals.
    delta_j
        Every pair: ``a, b, delta_j, lo, hi, se, p, p_holm``.
    shared
        ``"defensible"``, ``"not defensible"`` or ``"unverifiable"``.
    worst
        The pair with the smallest adjusted p-value (its ΔĴ with the bootstrap interval).
    unverifiable
        Models whose J cannot be estimated from their labels.
    checklist
        The Section 7 report.
    alpha
        Level of the intervals and tests.
    """

    judge: str
    calibration: Calibration
    per_model: pd.DataFrame
    delta_j: pd.DataFrame
    shared: str
    worst: Estimate | None
    worst_p: float
    unverifiable: tuple[str, ...]
    checklist: CalibrationReport
    alpha: float

    def _headline(self) -> str:
        worst = (
            f"; largest evidence ΔJ[{self.worst.name}] = {self.worst.text(signed=True)}, "
            f"Holm p = {self.worst_p:.3g}"
            if self.worst is not None
            else ""
        )
        return (
            f"{self.judge}: J per model over {len(self.per_model)} models, shared calibration "
            f"{self.shared}{worst}"
        )

    def to_frame(self) -> pd.DataFrame:
        return self.per_model


def judge_by_model(
    items: JudgedItems,
    judge: str,
    *,
    alpha: float = 0.05,
    n_boot: int = 1000,
    seed: int = 0,
    min_labels: int = MIN_LABELS,
    progress: bool = False,
) -> JudgeByModel | None:
    """J per model, every ΔJ with Holm's adjustment, θ̂ and the checklist (module docstring).

    ``None`` when no model has calibration items of both outcomes (nothing to calibrate).
    """
    sizes = items.summary().set_index("model")
    usable = (sizes["n_pos"] > 0) & (sizes["n_neg"] > 0)
    if not usable.any():
        return None
    try:
        cal = calibrate(items, n_boot=n_boot, n_splits=1, alpha=alpha, seed=seed, progress=progress)
    except DataError:  # a model whose calibration items are all of one outcome
        return None
    models = cal.models
    rows = []
    for m in models:
        row: dict[str, object] = {"model": m, **sizes.loc[m].to_dict()}
        for name in ("q0", "q1", "J", "naive", "ppi_2x"):
            e = cal.estimate(m, name)
            row.update({name: e.estimate, f"{name}_lo": e.ci[0], f"{name}_hi": e.ci[1]})
        rows.append(row)
    per_model = pd.DataFrame(rows)
    ok = (
        (sizes.loc[list(models), "n_cal"] >= min_labels)
        & (sizes.loc[list(models), "n_pos"] > 0)
        & (sizes.loc[list(models), "n_neg"] > 0)
    ).to_numpy()
    unverifiable = tuple(m for m, good in zip(models, ok, strict=True) if not good)
    reps = np.asarray(cal.replicates["J"], float)
    plug = np.asarray(cal.plugin["J"], float)
    i, j = (np.array(x, dtype=int) for x in zip(*combinations(range(len(models)), 2), strict=True))
    d = reps[:, i] - reps[:, j]  # every pair's paired replicates at once
    n_ok = np.isfinite(d).sum(axis=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN columns: pairs not tested
        se = np.where(ok[i] & ok[j] & (n_ok > 10), np.nanstd(d, axis=0, ddof=1), np.nan)
        lo, hi = np.nanquantile(d, [alpha / 2, 1 - alpha / 2], axis=0)
    frame = pd.DataFrame(
        {
            "a": np.take(models, i),
            "b": np.take(models, j),
            "delta_j": plug[i] - plug[j],
            "lo": np.where(n_ok > 10, lo, np.nan),
            "hi": np.where(n_ok > 10, hi, np.nan),
            "se": se,
        }
    )
    frame["p"] = normal_p(frame["delta_j"].to_numpy(), frame["se"].to_numpy())
    frame["p_holm"] = holm_finite(frame["p"].to_numpy())
    tested = frame["p_holm"].notna()
    if not tested.any():
        shared, worst, worst_p = "unverifiable", None, np.nan
    else:
        k = int(frame.loc[tested, "p_holm"].idxmin())
        r = frame.loc[k]
        worst = Estimate(
            f"{r['a']} − {r['b']}",
            float(r["delta_j"]),
            float(r["lo"]),
            float(r["hi"]),
            float(r["se"]),
            alpha,
            "paired bootstrap",
        )
        worst_p = float(r["p_holm"])
        shared = (
            "not defensible"
            if worst_p < alpha
            else ("unverifiable" if unverifiable else "defensible")
        )
    return JudgeByModel(
        judge=judge,
        calibration=cal,
        per_model=per_model,
        delta_j=frame.sort_values("p", ignore_index=True),
        shared=shared,
        worst=worst,
        worst_p=worst_p,
        unverifiable=unverifiable,
        checklist=cal.report(),
        alpha=alpha,
    )


def j_spread(by_model: JudgeByModel) -> Estimate:
    """max − min of Ĵ over the models whose J can be estimated, with its bootstrap interval."""
    cal = by_model.calibration
    keep = [k for k, m in enumerate(cal.models) if m not in by_model.unverifiable]
    reps = np.asarray(cal.replicates["J"], float)[:, keep]
    plug = np.asarray(cal.plugin["J"], float)[keep]
    if len(keep) < 2:
        return Estimate("max − min J", np.nan, np.nan, np.nan)
    spread = np.nanmax(reps, axis=1) - np.nanmin(reps, axis=1)
    return from_replicates(
        "max − min J", float(np.nanmax(plug) - np.nanmin(plug)), spread, alpha=by_model.alpha
    )
