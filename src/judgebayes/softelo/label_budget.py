"""How many human labels the soft targets need: the held-out protocol with n labelled battles.

Soft-Elo (Kargi & Salinas, "From Uncertain Judgments to Calibrated Rankings: Conformal Elo
Estimation for LLM Evaluation", 2026) calibrates its soft targets on human labels: β of
σ(β s) (Eq. 6) or, for a judge that gives only verdicts, the verdict-class table
(:mod:`~judgebayes.softelo.verdicts`). Appendix C starves the whole annotation set
(:func:`~judgebayes.softelo.held_out.budget_curve`: fewer battles, judge and human alike).
:func:`label_budget` asks the other question, the one of a user who has the judge on every
battle and humans on a few: n battles drawn at random keep their human label for the
calibration, the judge labels every battle, and each model's held-out Elo (Algorithm 1, the
calibration refitted per fold without the held-out model's labelled battles) is compared
with the held-out human Elo from **all** human labels. Per draw: MAE, Spearman ρ, Kendall τ,
the residual-vs-strength r, the coverage of the bootstrap intervals Elo ± z·SE, and
split-conformal and jackknife+ intervals over the models (Eq. 2–4); over draws: means with Monte
Carlo standard errors.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from judgebayes.core.battles import Battles
from judgebayes.core.results import ResultDisplay
from judgebayes.errors import DataError
from judgebayes.softelo.held_out import HeldOutElo, held_out_elo
from judgebayes.softelo.intervals import conformal_comparison

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["LabelBudget", "keep_labels", "label_budget"]

METRICS = (
    "mae",
    "spearman",
    "kendall",
    "r_strength",
    "se_coverage",
    "split_coverage",
    "split_width",
    "jackknife_width",
)
"""The per-draw numbers :meth:`LabelBudget.summary` averages."""


@dataclass(frozen=True, repr=False)
class LabelBudget(ResultDisplay):
    """Held-out Elo with n human labels, several random draws per n.

    Attributes
    ----------
    draws
        One row per (n, draw, method): ``n_labels, draw, method`` and the numbers of
        :data:`METRICS`: ``mae``, ``spearman``, ``kendall``, ``r_strength`` (of
        :meth:`~judgebayes.softelo.held_out.HeldOutElo.summary`), ``se_coverage`` (the
        bootstrap intervals' share of models covered), ``split_coverage`` /
        ``split_width`` (split conformal: mean coverage of the test models and mean of
        the per-split median widths), ``jackknife_width`` (jackknife+ over all models:
        the median width; its in-sample coverage is ⌈(1 − α)M⌉/M by construction, so it
        is not reported); ``beta`` (mean β_m, ``soft``) and ``p_A``,
        ``p_tie``, ``p_B`` (mean class table over folds, ``verdict``).
    alpha
        Miscoverage level of every interval.
    design
        The split-conformal design in words.
    """

    draws: pd.DataFrame
    alpha: float
    design: str

    def summary(self) -> pd.DataFrame:
        """Per (n, method): the mean of every metric over draws and its Monte Carlo SE
        (``<metric>_mcse`` = SD over draws / √draws), and ``n_draws``."""
        g = self.draws.groupby(["n_labels", "method"], sort=False)
        mean = g[list(METRICS)].mean()
        mcse = (g[list(METRICS)].std(ddof=1) / np.sqrt(g.size().to_numpy()[:, None])).add_suffix(
            "_mcse"
        )
        out = pd.concat([mean, mcse], axis=1)
        out = out[[c for m in METRICS for c in (m, f"{m}_mcse")]]
        out.insert(0, "n_draws", g.size())
        return out.reset_index()

    def _headline(self) -> str:
        s = self.summary()
        parts = [
            f"n={r.n_labels:,} {r.method} MAE {r.mae:.1f}±{r.mae_mcse:.1f}"
            for r in s.itertuples(index=False)
        ]
        return f"held-out Elo vs the all-human Elo: {'; '.join(parts)}"

    def to_frame(self) -> pd.DataFrame:
        """:meth:`summary`."""
        return self.summary()

    def __str__(self) -> str:
        return (
            f"{self._headline()}\n{100 * (1 - self.alpha):g}% intervals; {self.design}\n"
            + self.summary().to_string(index=False, float_format="%.3f")
        )

    def plot(self, ax: Axes | None = None, *, metric: str = "mae") -> Axes:
        """``metric`` (mean ± 2 Monte Carlo SE) against the number of human labels, one line
        per method."""
        import matplotlib.pyplot as plt

        if metric not in METRICS:
            raise ValueError(f"metric must be one of {METRICS}, got {metric!r}")
        if ax is None:
            _, ax = plt.subplots(figsize=(5, 3.5))
        colours = {"hard": "#1f5fa8", "soft": "#c2185b", "verdict": "#c2185b"}
        for method, rows in self.summary().groupby("method", sort=False):
            ax.errorbar(
                rows["n_labels"],
                rows[metric],
                yerr=2 * rows[f"{metric}_mcse"].fillna(0.0),
                marker="o",
                capsize=3,
                color=colours.get(str(method)),
                label=str(method),
            )
        sizes = sorted(self.draws["n_labels"].unique())
        ax.set(xscale="log", xlabel="human-labelled battles n", ylabel=metric.replace("_", " "))
        ax.set_xticks(sizes, [f"{n:,}" for n in sizes])
        ax.minorticks_off()
        ax.legend(frameon=False)
        return ax


def keep_labels(
    battles: Battles,
    n: int,
    *,
    seed: int = 0,
    human: str = "human_label",
    column: str = "calibration_label",
) -> Battles:
    """The battles with a ``column`` holding the ``human`` label of n random labelled battles.

    The other battles' ``column`` is missing, their ``human`` label untouched: pass
    ``calibrate_on=column`` to :func:`~judgebayes.softelo.held_out.held_out_elo` for the
    protocol of a user with n human labels, measured against every label.

    Raises
    ------
    DataError
        When n is not between 2 and the number of labelled battles, or ``column`` exists.
    """
    labels = np.asarray(battles.column(human), float)
    labelled = np.flatnonzero(~np.isnan(labels))
    if not 2 <= n <= len(labelled):
        raise DataError(
            f"cannot keep {n} human labels",
            column=human,
            expected=f"a number between 2 and the {len(labelled)} battles with a label",
        )
    if column in battles:
        raise DataError(
            f"the table already has a {column!r} column", column=column, expected="a new name"
        )
    keep = np.zeros(len(labels), bool)
    keep[np.random.default_rng(seed).choice(labelled, n, replace=False)] = True
    return Battles(battles.frame.assign(**{column: np.where(keep, labels, np.nan)}))


def _draw_rows(
    held: HeldOutElo, alpha: float, n_calibration: int | None, n_splits: int, seed: int
) -> tuple[list[dict[str, object]], str]:
    """Per method: the held-out summary and both conformal intervals of one draw (NaN
    intervals without bootstrap SEs), and the split design in words."""
    summary = held.summary(alpha=alpha).set_index("method")
    nan = pd.DataFrame({"coverage": np.nan, "median_width": np.nan}, index=list(held.methods))
    split_t, jack_t, design = nan, nan, "no intervals (n_boot = 0)"
    if held.n_boot > 0:
        split = conformal_comparison(
            held, alpha=alpha, n_calibration=n_calibration, n_splits=n_splits, seed=seed
        )
        jack = conformal_comparison(held, alpha=alpha, method="jackknife+")
        split_t, jack_t = split.table.set_index("method"), jack.table.set_index("method")
        design = f"{split.design}; {jack.design}"
    rows = []
    for m in held.methods:
        row: dict[str, object] = {
            "method": m,
            **{k: summary.loc[m, k] for k in METRICS[:5]},
            "split_coverage": split_t.loc[m, "coverage"],
            "split_width": split_t.loc[m, "median_width"],
            "jackknife_width": jack_t.loc[m, "median_width"],
        }
        if m == "soft":
            row["beta"] = float(held.table["beta"].mean())
        if m == "verdict":
            row |= {c: float(held.table[c].mean()) for c in ("p_A", "p_tie", "p_B")}
        rows.append(row)
    return rows, design


def label_budget(
    battles: Battles,
    *,
    sizes: Sequence[int] = (200, 500, 2000),
    n_draws: int = 20,
    methods: Sequence[str] = ("hard", "verdict"),
    lam: float = 0.01,
    n_boot: int = 20,
    alpha: float = 0.1,
    n_calibration: int | None = None,
    n_splits: int = 5,
    beta_ties: str = "exclude",
    verdict_ties: str = "half",
    score: str = "score_diff",
    judge: str = "judge_label",
    human: str = "human_label",
    seed: int = 0,
    progress: bool = True,
) -> LabelBudget:
    """Held-out Elo of every model when only n random battles keep their human label.

    For each n in ``sizes`` and each of ``n_draws`` draws: n of the human-labelled battles
    are drawn without replacement; their labels calibrate the soft targets (β for
    ``soft``, the verdict-class table for ``verdict``, refitted per fold without the
    held-out model's battles, Algorithm 1 lines 3–4); the judge's targets are used on
    every battle; the reference is the held-out human Elo from every human label
    (line 8). Hard-Elo uses no human label, so its rows differ across draws only through
    the bootstrap and the conformal splits.

    Parameters
    ----------
    battles
        One judge's battles with ``judge`` labels on every battle (``score`` too for
        ``soft``) and ``human`` labels (the reference).
    sizes
        Numbers n of human-labelled battles; each at most the battles with a human label.
    n_draws
        Random draws of the n labelled battles per n.
    methods
        Held-out methods (:func:`~judgebayes.softelo.held_out.held_out_elo`).
    lam, n_boot, beta_ties, verdict_ties, score, judge, human
        As in :func:`~judgebayes.softelo.held_out.held_out_elo`; ``n_boot=0`` skips the
        bootstrap SEs and with them every interval (their columns are NaN).
    alpha
        Miscoverage of the bootstrap and conformal intervals.
    n_calibration, n_splits
        Split conformal design (:func:`~judgebayes.softelo.intervals.conformal_comparison`).
    seed
        Seeds the draws, the bootstraps and the splits.
    progress
        Show a progress bar over draws.

    Returns
    -------
    LabelBudget
        Per-draw numbers and, from :meth:`LabelBudget.summary`, their means with Monte
        Carlo SEs.
    """
    if n_draws < 2:
        raise ValueError("n_draws must be at least 2 (a Monte Carlo SE needs two draws)")
    n_labelled = int(np.sum(~np.isnan(np.asarray(battles.column(human), float))))
    too_many = [n for n in sizes if not 2 <= n <= n_labelled]
    if too_many:  # before any draw runs
        raise DataError(
            f"cannot draw {too_many[0]} human-labelled battles",
            column=human,
            expected=f"sizes between 2 and the {n_labelled} battles with a label",
        )
    column = "calibration_label"
    while column in battles:  # never overwrite a column of the user's table
        column = f"_{column}"
    rng = np.random.default_rng(seed)
    rows, design = [], ""
    units = [(n, d) for n in sizes for d in range(n_draws)]
    for n, d in tqdm(units, desc="label draws", disable=not progress):
        draw_seed = int(rng.integers(2**31))
        held = held_out_elo(
            keep_labels(battles, n, seed=draw_seed, human=human, column=column),
            methods=methods,
            lam=lam,
            n_boot=n_boot,
            score=score,
            judge=judge,
            human=human,
            beta_ties=beta_ties,
            calibrate_on=column,
            verdict_ties=verdict_ties,
            seed=draw_seed,
            progress=False,
        )
        found, design = _draw_rows(held, alpha, n_calibration, n_splits, draw_seed)
        rows += [{"n_labels": n, "draw": d, **r} for r in found]
    return LabelBudget(draws=pd.DataFrame(rows), alpha=alpha, design=design)
