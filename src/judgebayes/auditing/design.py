"""Which calibration design do the data support? Shared, model-specific, hierarchical, paired.

Fiedler (*Bias and Uncertainty in LLM-as-a-Judge Estimation*, 2026, arXiv:2605.06939,
Section 7, item 3) asks every report to state its calibration design and to justify sharing
calibration across models. :func:`~judgebayes.calibration.fit_calibration` writes the
designs as generative models (:mod:`judgebayes.calibration.designs`: the judge's
sensitivity q1 and specificity q0 shared by all models, free per model, partially pooled;
:mod:`judgebayes.calibration.paired`: the models' correctness on one item jointly) and
PSIS-LOO compares them item by item (:meth:`~judgebayes.calibration.BayesCalibration.loo`);
the posterior predictive check of each model's calibration rates (the judge-positive rate
among the labelled items the humans call positive, q̂1, and negative, 1 − q̂0) shows *why*
one wins: under a shared design that ignores a real ΔJ the observed rates fall outside
their predictive intervals.

The designs are fitted to the human-labelled items: they differ only in how q0 and q1 are
shared across models, which the labelled items measure directly; the judge-only items add
the mixture θ·q1 + (1 − θ)·(1 − q0), which says little more about the design and would
multiply the cost by the ratio of judge-only to labelled items (on the PPR data, 50).
``method="nuts"`` (the CLI's ``--bayes``) samples them; ``"map"`` is MAP with a Laplace
approximation, fast but crude for the hierarchical design (its scale τ sits at the boundary,
where the Laplace draws misrepresent the posterior and PSIS flags the LOO as unreliable).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

from judgebayes.calibration.items import JudgedItems
from judgebayes.core.results import ResultDisplay
from judgebayes.errors import DataError

__all__ = ["DesignComparison", "compare_designs"]


@dataclass(frozen=True, repr=False)
class DesignComparison(ResultDisplay):
    """LOO comparison of calibration designs and their predictive checks.

    Attributes
    ----------
    judge
        The judge whose calibration is modelled.
    method
        ``"nuts"`` or ``"map"`` (MAP + Laplace).
    loo
        :meth:`~judgebayes.calibration.BayesCalibration.loo` as a frame with a ``design``
        column: ``rank, elpd_loo, p_loo, elpd_diff, dse, weight, warning``.
    best
        The design LOO ranks first.
    clear
        Whether it beats the runner-up by more than two standard errors of the difference.
    ppc
        Posterior predictive check of the calibration rates under the shared design and
        the one LOO prefers: ``design, model, statistic, observed, replicated, lo, hi,
        p_value``.
    n_items
        Labelled items the designs were fitted to.
    estimates
        Posterior medians and intervals of q0, q1, J per model and design.
    """

    judge: str
    method: str
    loo: pd.DataFrame
    best: str
    clear: bool
    ppc: pd.DataFrame
    n_items: int
    estimates: pd.DataFrame

    def outside(self, design: str) -> int:
        """Calibration rates (of the models) outside their 95% predictive interval."""
        p = self.ppc[self.ppc["design"] == design]
        return int(((p["observed"] < p["lo"]) | (p["observed"] > p["hi"])).sum())

    def _headline(self) -> str:
        how = "NUTS" if self.method == "nuts" else "MAP + Laplace"
        margin = "clearly" if self.clear else "within two SEs of the runner-up"
        return (
            f"{self.judge}: {len(self.loo)} designs by PSIS-LOO ({how}, {self.n_items:,} "
            f"labelled items): {self.best} first, {margin}"
        )

    def to_frame(self) -> pd.DataFrame:
        return self.loo


def compare_designs(
    items: JudgedItems,
    judge: str,
    *,
    method: str = "map",
    alpha: float = 0.05,
    seed: int = 0,
    progress: bool = False,
) -> DesignComparison | None:
    """Fit every design to the labelled items, compare them by LOO, check them (docstring).

    ``None`` when fewer than two models have labelled items of both outcomes.
    """
    from judgebayes.calibration.posterior import fit_calibration

    f = items.frame
    labelled = f[f["split"] == "calibration"]
    per = labelled.groupby("model")["human_label"].agg(["min", "max"])
    if int(((per["min"] == 0) & (per["max"] == 1)).sum()) < 2:
        return None
    cal = JudgedItems(labelled[["model", "item_id", "judge_label", "human_label"]])
    options = (
        {"method": "nuts", "chains": 2, "draws": 1000, "warmup": 1000}
        if method == "nuts"
        else {"method": "map", "draws": 1000}
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ArviZ's LOO warnings: read from the table's column
        try:
            bayes = fit_calibration(cal, alpha=alpha, seed=seed, progress=progress, **options)
        except DataError:
            return None
        loo = bayes.loo().rename_axis("design").reset_index()
        loo = loo[["design", "rank", "elpd_loo", "p_loo", "elpd_diff", "dse", "weight", "warning"]]
        best = str(loo.loc[loo["rank"] == 0, "design"].iloc[0])
        # the check that shows why: the shared design beside the one LOO prefers
        shown = [d for d in dict.fromkeys(("shared", best)) if d in bayes.fits]
        checks = pd.concat([bayes.ppc(d, seed=seed) for d in shown], ignore_index=True)
    checks = checks[checks["statistic"] != "test positive rate"].reset_index(drop=True)
    runner = loo[loo["rank"] == 1]
    clear = bool(
        runner.empty or runner["elpd_diff"].iloc[0] > 2 * max(runner["dse"].iloc[0], 1e-12)
    )
    summary = bayes.summary()
    summary = summary[~summary["quantity"].str.contains(" - ")].reset_index(drop=True)
    return DesignComparison(
        judge=judge,
        method=method,
        loo=loo,
        best=best,
        clear=clear,
        ppc=checks,
        n_items=int(cal.summary()["n_cal"].sum()),
        estimates=summary,
    )


def outside_share(comparison: DesignComparison, design: str) -> float:
    """Share of the calibration rates outside their predictive interval under ``design``."""
    p = comparison.ppc[comparison.ppc["design"] == design]
    return (
        float(np.mean((p["observed"] < p["lo"]) | (p["observed"] > p["hi"]))) if len(p) else np.nan
    )
