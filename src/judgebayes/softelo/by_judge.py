"""The Soft-Elo pipeline on every judge of a battles table: the paper's cross-judge tables.

Kargi & Salinas, *From Uncertain Judgments to Calibrated Rankings: Conformal Elo Estimation for LLM
Evaluation* (2026, arXiv:2606.13221).

:func:`softelo_by_judge` runs :func:`~judgebayes.softelo.pipeline.run_softelo` on each
judge's battles and gathers one row per judge: Table 1 (κ, Hard-Elo MAE, ρ), Table 2
(β*, MAE hard/soft, ΔMAE %, Δρ), Tables 3 and 5 (conformal widths, their range over
splits and coverage, hard and soft) and Fig. 2a's residual-vs-strength r; its plot is
Appendix I's width decomposition (Fig. 17), one arrow per judge.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from judgebayes.core.battles import Battles
from judgebayes.core.results import ResultDisplay
from judgebayes.errors import DataError
from judgebayes.softelo.intervals import width_points
from judgebayes.softelo.pipeline import SoftEloResult, run_softelo

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["SoftEloByJudge", "softelo_by_judge"]


def _judge_row(name: str, n_battles: int, result: SoftEloResult) -> dict[str, object]:
    held, summary = result.held, result.summary().set_index("method")
    temperature = result.temperature
    row: dict[str, object] = {
        "judge": name,
        "n_battles": n_battles,
        "n_models": len(held.table),
        "beta": float(held.table["beta"].mean()),
        "ece": np.nan if temperature is None else temperature.ece,
        "agreement_r": np.nan if temperature is None else temperature.agreement_r,
        "kappa": held.kappa,
        "mean_abs_s": held.mean_abs_s,
    }
    for m in held.methods:
        s = summary.loc[m]
        row |= {
            f"mae_{m}": s["mae"],
            f"rho_{m}": s["spearman"],
            f"r_strength_{m}": s["r_strength"],
            f"width_{m}": s["median_width"],
            f"width_min_{m}": s["width_min"],
            f"width_max_{m}": s["width_max"],
            f"coverage_{m}": s["coverage"],
            f"q_hat_{m}": s["q_hat"],
            f"median_se_{m}": s["median_se"],
        }
        if m != "hard" and "delta_rho" in s:
            row[f"delta_rho_{m}"] = s["delta_rho"]
    if {"hard", "soft"} <= set(held.methods):
        row["mae_reduction"] = 1 - row["mae_soft"] / row["mae_hard"]
        row["width_reduction"] = 1 - row["width_soft"] / row["width_hard"]
    return row


@dataclass(frozen=True, repr=False)
class SoftEloByJudge(ResultDisplay):
    """Kargi & Salinas's (2026) cross-judge tables (Tables 1–3 and 5): one row per judge.

    Attributes
    ----------
    table
        Per judge: ``judge, n_battles, n_models``, ``beta`` (cross-fold mean β*,
        Table 2), ``ece``, ``agreement_r`` (Appendix G, D.2), ``kappa``,
        ``mean_abs_s``; per method m: ``mae_m``, ``rho_m`` (Spearman), ``r_strength_m``
        (Pearson r of ε with human Elo, Fig. 2a), ``width_m`` (mean median conformal
        width), ``width_min_m`` / ``width_max_m`` (its range over splits),
        ``coverage_m``, ``q_hat_m``, ``median_se_m``; ``delta_rho_m`` against hard;
        and, with hard and soft, ``mae_reduction`` (ΔMAE %, Table 2) and
        ``width_reduction`` (Table 5), as fractions.
    results
        The full :class:`~judgebayes.softelo.pipeline.SoftEloResult` of each judge.
    conformal
        ``"split"`` or ``"jackknife+"``.
    """

    table: pd.DataFrame
    results: Mapping[str, SoftEloResult]
    conformal: str

    def _headline(self) -> str:
        t = self.table
        head = f"{len(t)} judges"
        if "mae_reduction" in t:
            head += (
                f": MAE hard → soft {t['mae_hard'].mean():.1f} → {t['mae_soft'].mean():.1f}"
                f" Elo (−{t['mae_reduction'].min():.0%} to −{t['mae_reduction'].max():.0%})"
                f", {self.conformal} width {t['width_hard'].mean():.0f} → "
                f"{t['width_soft'].mean():.0f} Elo"
            )
        return head

    def to_frame(self) -> pd.DataFrame:
        """The per-judge table (see ``table``)."""
        return self.table.copy()

    def tables(self) -> dict[str, pd.DataFrame]:
        """The paper's layouts: ``table1`` (κ, MAE, ρ of Hard-Elo), ``table2`` (β*, MAE
        hard/soft, ΔMAE, Δρ; sorted by ΔMAE) and ``table3`` (coverage, width and range of
        hard and soft; Table 5 is the same on another corpus)."""
        t = self.table
        out = {"table1": t[["judge", "kappa", "mae_hard", "rho_hard"]]}
        if "mae_reduction" in t:
            out["table2"] = t[
                ["judge", "beta", "mae_hard", "mae_soft", "mae_reduction", "delta_rho_soft"]
            ].sort_values("mae_reduction", ascending=False)
            out["table3"] = t[
                [
                    "judge",
                    *(
                        f"{c}_{m}"
                        for m in ("hard", "soft")
                        for c in ("coverage", "width", "width_min", "width_max")
                    ),
                    "width_reduction",
                ]
            ]
        return out

    def __str__(self) -> str:
        return f"{self._headline()}\n" + "\n\n".join(
            f"{k}:\n{v.to_string(index=False, float_format='%.3f')}"
            for k, v in self.tables().items()
        )

    def plot(self, ax: Axes | None = None, *, start: str = "hard", end: str = "soft") -> Axes:
        """Appendix I, Fig. 17: each judge's (q̂, median SE) moving ``start`` → ``end``
        over contours of constant width (:func:`judgebayes.plots.width_decomposition_plot`)."""
        from judgebayes.plots import width_decomposition_plot

        points = pd.concat(
            [width_points(r.conformal.table, label=j) for j, r in self.results.items()],
            ignore_index=True,
        )
        return width_decomposition_plot(points, ax=ax, start=start, end=end)


def softelo_by_judge(
    battles: Battles,
    *,
    judge: str = "judge",
    methods: Sequence[str] = ("hard", "soft"),
    lam: float = 0.01,
    n_boot: int = 20,
    alpha: float = 0.1,
    n_calibration: int | None = None,
    n_splits: int = 5,
    conformal: str = "split",
    seed: int = 0,
    progress: bool = True,
) -> SoftEloByJudge:
    """Run the Soft-Elo pipeline on every judge and tabulate them (Tables 1–3, 5).

    Each judge's battles go through :func:`~judgebayes.softelo.pipeline.run_softelo`
    (β* by Eq. 6, Algorithm 1 with bootstrap SEs, conformal intervals) with the same
    settings and seed, so the conformal splits are the same for every judge whose
    models are the same.

    Parameters
    ----------
    battles
        Battles of one or more judges (a ``judge`` column) with ``score_diff``,
        ``judge_label`` and ``human_label``.
    judge
        The judge column.
    methods, lam, n_boot, alpha, n_calibration, n_splits, conformal, seed
        As in :func:`~judgebayes.softelo.pipeline.run_softelo`.
    progress
        Show a progress bar over judges.
    """
    if judge not in battles:
        raise DataError(f"a by-judge table needs a {judge!r} column", column=judge)
    frame = battles.frame
    names = sorted(pd.unique(frame[judge].astype(str)))
    results, rows = {}, []
    for name in tqdm(names, desc="judges", disable=not progress):
        mine = Battles(frame[frame[judge].astype(str) == name])
        result = run_softelo(
            mine,
            methods=methods,
            lam=lam,
            n_boot=n_boot,
            alpha=alpha,
            n_calibration=n_calibration,
            n_splits=n_splits,
            seed=seed,
            conformal=conformal,
            progress=False,
        )
        results[name] = result
        rows.append(_judge_row(name, len(mine), result))
    return SoftEloByJudge(table=pd.DataFrame(rows), results=results, conformal=conformal)
