"""Judge probes that need more than one fit: same-family effects and single-order Elo.

Kargi & Salinas (*From Uncertain Judgments to Calibrated Rankings: Conformal Elo Estimation for LLM
Evaluation*, 2026, arXiv:2606.13221), Appendix F.1:

* :func:`same_family_excess`: does a judge credit its own family's models more than
  the other judges do? (the paragraph "Same-family effects", Fig. 13), at the score
  level and at the Elo-residual level, with a bootstrap interval over target models;
* :func:`single_order_elo`: Hard-Elo fitted on each presentation order alone
  (Fig. 11b): per-model |ε| for each order and |MAE_A − MAE_B|.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from judgebayes.core.battles import Battles
from judgebayes.core.results import ResultDisplay
from judgebayes.errors import DataError
from judgebayes.softelo.held_out import HeldOutElo, held_out_elo

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["SameFamilyExcess", "SingleOrderElo", "same_family_excess", "single_order_elo"]


def _judge_names(battles: Battles, judge: str) -> list[str]:
    if judge not in battles:
        raise DataError(
            f"same-family effects compare judges: the battles need a {judge!r} column", column=judge
        )
    names = sorted(pd.unique(battles.frame[judge].astype(str)))
    if len(names) < 2:
        raise DataError(f"same-family effects need at least two judges, got {names}", column=judge)
    return names


def _completion_scores(frame: pd.DataFrame, judge: str) -> pd.DataFrame:
    """Mean per-completion score of each (judge, model): judges × models."""
    for col in ("score_a", "score_b"):
        if col not in frame:
            raise DataError(
                f"the score-level probe needs per-completion scores ({col!r}; "
                f"combine_orders writes score_a / score_b)",
                column=col,
            )
    long = pd.concat(
        [
            pd.DataFrame(
                {
                    "judge": frame[judge].astype(str),
                    "model": frame["model_a"].astype(str),
                    "score": pd.to_numeric(frame["score_a"], errors="coerce"),
                }
            ),
            pd.DataFrame(
                {
                    "judge": frame[judge].astype(str),
                    "model": frame["model_b"].astype(str),
                    "score": pd.to_numeric(frame["score_b"], errors="coerce"),
                }
            ),
        ]
    )
    return long.groupby(["judge", "model"])["score"].mean().unstack("model")


def _welch_se(same: np.ndarray, cross: np.ndarray) -> np.ndarray:
    """√(s²_same / n_same + s²_cross / n_cross) along the last axis."""
    return np.sqrt(
        same.var(axis=-1, ddof=1) / same.shape[-1] + cross.var(axis=-1, ddof=1) / cross.shape[-1]
    )


def _deviation_from_others(wide: pd.DataFrame) -> pd.DataFrame:
    """x_j(m) − median_{j' ≠ j} x_j'(m): each judge's deviation from the other judges."""
    out = wide.copy()
    for j in wide.index:
        out.loc[j] = wide.loc[j] - wide.drop(index=j).median(axis=0, skipna=True)
    return out


@dataclass(frozen=True, repr=False)
class SameFamilyExcess(ResultDisplay):
    """Same-family minus cross-family deviation from the other judges (Kargi & Salinas, 2026, Fig.
    13).

    Attributes
    ----------
    table
        One row per judge and level: ``judge, family, level`` (``score``: the 1–10
        per-completion score; ``elo_<method>``: the held-out Elo residual),
        ``excess`` (mean deviation on same-family targets minus mean deviation on
        cross-family targets), ``se`` (its Welch standard error over targets),
        ``ci_lo, ci_hi`` (bootstrap-t interval over target models; NaN with fewer
        than two targets on either side), ``n_same``, ``n_cross``.
    deviations
        One row per judge and target model: ``judge, model, same_family`` and the
        deviation of each level from the median of the other judges.
    alpha, n_boot
        Level and replicates of the intervals.
    """

    table: pd.DataFrame
    deviations: pd.DataFrame
    alpha: float
    n_boot: int

    def _headline(self) -> str:
        parts = []
        for level, rows in self.table.groupby("level", sort=False):
            parts.append(f"{level} {rows['excess'].min():+.2f} to {rows['excess'].max():+.2f}")
        return (
            f"{self.table['judge'].nunique()} judges, same- minus cross-family excess: "
            + "; ".join(parts)
            + f" ({1 - self.alpha:.0%} bootstrap-t over targets)"
        )

    def to_frame(self) -> pd.DataFrame:
        """The per-judge, per-level table (see ``table``)."""
        return self.table.copy()

    def __str__(self) -> str:
        return (
            f"same-family minus cross-family deviation from the other judges' median "
            f"({100 * (1 - self.alpha):g}% bootstrap-t over target models, "
            f"{self.n_boot} replicates)\n" + self.table.to_string(index=False, float_format="%.3f")
        )

    def plot(self, axes: Sequence[Axes] | np.ndarray | None = None) -> np.ndarray:
        """Fig. 13: one panel per level, the excess of each judge with its interval."""
        from judgebayes.plots import interval_bars

        levels = list(pd.unique(self.table["level"]))
        if axes is None:
            import matplotlib.pyplot as plt

            axes = plt.subplots(1, len(levels), figsize=(4.2 * len(levels), 3.4), squeeze=False)[1][
                0
            ]
        panels = list(np.ravel(axes))
        for ax, level in zip(panels, levels, strict=True):
            rows = self.table[self.table["level"] == level]
            interval_bars(
                rows["judge"],
                rows["excess"],
                rows["ci_lo"],
                rows["ci_hi"],
                ax=ax,
                ylabel="same − cross family",
                title="score (1–10)" if level == "score" else f"{level} residual",
            )
        out = np.empty(len(panels), dtype=object)
        out[:] = panels
        return out


def same_family_excess(
    battles: Battles,
    model_family: Mapping[str, str],
    judge_family: Mapping[str, str],
    *,
    judge: str = "judge",
    methods: Sequence[str] = ("hard", "soft"),
    held: Mapping[str, HeldOutElo] | None = None,
    lam: float = 0.01,
    n_boot: int = 2000,
    alpha: float = 0.05,
    seed: int = 0,
    progress: bool = True,
) -> SameFamilyExcess:
    """Does each judge credit its own family more than the other judges do? (Kargi & Salinas, 2026,
    App. F.1)

    Following Appendix F's paragraph "Same-family effects" (Fig. 13): for each judge
    j and target model m, j's mean per-completion score for m minus the median of
    the other judges' mean scores for m is a per-target deviation from cross-judge
    consensus; the judge's excess is the mean deviation over same-family targets
    (``model_family[m] == judge_family[j]``) minus the mean over cross-family
    targets. The same comparison is repeated on the held-out Elo residual
    ε_m = Elo_LLM,m − Elo_Human,m of each method (Eq. 2, Algorithm 1). Subtracting
    the other judges removes what every judge shares (a target's strength, its
    common residual), so a judge with no family preference has an excess near 0.

    The interval is a studentised bootstrap (bootstrap-t) over target models:
    same-family and cross-family targets are resampled with replacement within their
    group (the same draws for every level), each replicate's excess is divided by
    its Welch standard error √(s²_same/n_same + s²_cross/n_cross), and the quantiles
    of that t are applied to the observed excess and SE. Families are small (four
    targets is typical), where the plain percentile bootstrap is too narrow: in
    simulations without family bias (4 judges, 4 same- and 12 cross-family targets)
    its nominal 95 % intervals covered 0 in 85 % (Elo level) and 92 % (score level)
    of cases, bootstrap-t in 92 % and 99 %. Deviations are held fixed, so
    battle-level noise enters only through the spread of the per-target deviations;
    below two targets on either side no interval is given (the paper's LMArena 100K
    had a single Qwen target).

    Parameters
    ----------
    battles
        Battles of several judges (a ``judge`` column), with per-completion scores
        ``score_a`` / ``score_b`` (as :func:`~judgebayes.softelo.scores.combine_orders`
        writes) and what :func:`~judgebayes.softelo.held_out.held_out_elo` needs.
    model_family, judge_family
        ``{model: family}`` for every model and ``{judge: family}`` for every judge.
    judge
        The judge column.
    methods
        Held-out methods whose residuals are compared (``()``: score level only).
    held
        Held-out Elo per judge, if already computed (else fitted without bootstrap).
    lam
        L2 penalty of the held-out fits.
    n_boot, alpha, seed
        Bootstrap replicates, level and seed of the intervals.
    progress
        Show a progress bar over judges for the held-out fits.
    """
    judges = _judge_names(battles, judge)
    frame = battles.frame
    missing = sorted({j for j in judges if j not in judge_family})
    if missing:
        raise DataError(f"judge_family has no family for judge(s) {missing}", column=judge)
    models = sorted(set(frame["model_a"].astype(str)) | set(frame["model_b"].astype(str)))
    missing = [m for m in models if m not in model_family]
    if missing:
        raise DataError(f"model_family has no family for model(s) {missing[:5]}", column="model_a")
    levels = {"score": _deviation_from_others(_completion_scores(frame, judge))}
    if methods:
        fits = dict(held or {})
        for j in judges:
            if j not in fits:
                sub = Battles(frame[frame[judge].astype(str) == j])
                fits[j] = held_out_elo(sub, methods=methods, lam=lam, n_boot=0, progress=progress)
        for m in methods:
            wide = pd.DataFrame(
                {j: fits[j].table.set_index("model")[f"residual_{m}"] for j in judges}
            ).T
            levels[f"elo_{m}"] = _deviation_from_others(wide)
    dev = pd.concat({k: v.stack() for k, v in levels.items()}, axis=1).dropna()
    dev.index.names = ["judge", "model"]
    dev = dev.reset_index()
    dev["same_family"] = [
        model_family[m] == judge_family[j] for j, m in zip(dev["judge"], dev["model"], strict=True)
    ]
    rng = np.random.default_rng(seed)
    rows = []
    for j in judges:
        mine = dev[dev["judge"] == j]
        same, cross = mine[mine["same_family"]], mine[~mine["same_family"]]
        n_s, n_c = len(same), len(cross)
        draw = n_s >= 2 and n_c >= 2
        if draw:
            i_s = rng.integers(0, n_s, (n_boot, n_s))
            i_c = rng.integers(0, n_c, (n_boot, n_c))
        for level in levels:
            d_s, d_c = same[level].to_numpy(), cross[level].to_numpy()
            excess = float(d_s.mean() - d_c.mean()) if n_s and n_c else np.nan
            lo = hi = se = np.nan
            if draw:
                se = _welch_se(d_s, d_c)
                b_s, b_c = d_s[i_s], d_c[i_c]
                with np.errstate(divide="ignore", invalid="ignore"):
                    t = (b_s.mean(axis=1) - b_c.mean(axis=1) - excess) / _welch_se(b_s, b_c)
                t = t[np.isfinite(t)]  # a replicate with no spread has no t
                q_lo, q_hi = np.quantile(t, [alpha / 2, 1 - alpha / 2])
                lo, hi = excess - q_hi * se, excess - q_lo * se
            rows.append(
                {
                    "judge": j,
                    "family": judge_family[j],
                    "level": level,
                    "excess": excess,
                    "se": float(se),
                    "ci_lo": float(lo),
                    "ci_hi": float(hi),
                    "n_same": n_s,
                    "n_cross": n_c,
                }
            )
    return SameFamilyExcess(
        table=pd.DataFrame(rows),
        deviations=dev[["judge", "model", "same_family", *levels]],
        alpha=alpha,
        n_boot=n_boot,
    )


def _order_label(s: np.ndarray) -> np.ndarray:
    """sign(s) as a label: 1, 0, ½ on s = 0, NaN where the order was not judged."""
    return np.where(np.isnan(s), np.nan, np.where(s > 0, 1.0, np.where(s < 0, 0.0, 0.5)))


@dataclass(frozen=True, repr=False)
class SingleOrderElo(ResultDisplay):
    """Hard-Elo fitted on each presentation order alone (Kargi & Salinas, 2026, Appendix F.1, Fig.
    11b).

    Attributes
    ----------
    table
        One row per model: ``model, elo_human``, ``elo_a_first`` / ``elo_b_first``
        (held-out Hard-Elo on the labels sign(s) of the call that showed A / B
        first), ``elo_both`` (the swap-averaged battles, the paper's default) and
        ``abs_resid_<order>`` = |ε| of each.
    """

    table: pd.DataFrame

    def summary(self) -> dict[str, float]:
        """``mae_a_first``, ``mae_b_first``, ``mae_both`` and ``mae_gap`` = |MAE_A − MAE_B|."""
        out = {
            f"mae_{o}": float(self.table[f"abs_resid_{o}"].mean())
            for o in ("a_first", "b_first", "both")
        }
        out["mae_gap"] = abs(out["mae_a_first"] - out["mae_b_first"])
        return out

    def _headline(self) -> str:
        s = self.summary()
        return (
            f"{len(self.table)} models: Hard-Elo MAE A-first {s['mae_a_first']:.1f}, "
            f"B-first {s['mae_b_first']:.1f}, swap-averaged {s['mae_both']:.1f} Elo; "
            f"|MAE_A − MAE_B| = {s['mae_gap']:.1f}"
        )

    def to_frame(self) -> pd.DataFrame:
        """The per-model table (see ``table``)."""
        return self.table.copy()

    def __str__(self) -> str:
        return self._headline() + "\n" + self.table.to_string(index=False, float_format="%.1f")

    def plot(self, ax: Axes | None = None) -> Axes:
        """Fig. 11b: per-model |ε| in one lane per order, connectors, MAE ticks."""
        from judgebayes.plots import order_lanes_plot

        return order_lanes_plot(self.table, ax=ax)


def single_order_elo(
    battles: Battles,
    *,
    first: str = "s_a_first",
    second: str = "s_b_first",
    judge: str = "judge_label",
    human: str = "human_label",
    lam: float = 0.01,
    progress: bool = True,
) -> SingleOrderElo:
    """Held-out Hard-Elo on each presentation order alone (Kargi & Salinas, 2026, App. F.1, Fig.
    11b).

    The hard label of one order is the sign of that order's model-oriented score
    difference (``first``: the call that showed A first; ``second``: B first); each
    order's labels go through Algorithm 1 (leave-one-model-out, two-step fit)
    alone, and so do the swap-averaged labels ``judge``. A position-biased judge
    moves a model's single-order Elo towards whichever position it held more often;
    swap-averaging cancels most of it.

    Parameters
    ----------
    battles
        Battles with both orders' score differences (``combine_orders`` or
        ``simulate_arena`` write them), judge and human labels.
    first, second, judge, human
        Columns.
    lam
        L2 penalty.
    progress
        Show a progress bar over the three fits.
    """
    for col in (first, second):
        if col not in battles:
            raise DataError(
                f"single-order fits need {col!r}, the score difference of one presentation order",
                column=col,
            )
    frame = battles.frame.assign(
        label_a_first=_order_label(np.asarray(battles.column(first), float)),
        label_b_first=_order_label(np.asarray(battles.column(second), float)),
    )
    both = Battles(frame)
    table = None
    for order, column in (
        ("a_first", "label_a_first"),
        ("b_first", "label_b_first"),
        ("both", judge),
    ):
        held = held_out_elo(
            both, methods=("hard",), n_boot=0, lam=lam, judge=column, human=human, progress=progress
        )
        t = held.table.set_index("model")
        if table is None:
            table = t[["elo_human"]].copy()
        table[f"elo_{order}"] = t["elo_hard"]
    for order in ("a_first", "b_first", "both"):
        table[f"abs_resid_{order}"] = (table[f"elo_{order}"] - table["elo_human"]).abs()
    return SingleOrderElo(table=table.reset_index())
