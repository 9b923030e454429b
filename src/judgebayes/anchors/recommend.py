"""Choosing and reporting an anchor (Don-Yehiya, Yehudai, Choshen & Abend, *Mediocrity is the key
for LLM as a Judge Anchor Selection*, ACL 2026, arXiv:2603.16848, Section 6, Figure 5).

:func:`recommend_anchor` turns a pilot (a quadratic verdict table on a few prompts,
Section 5.3) into the decision of Figure 5: compare all pairs when there are at most
three models, use a natural baseline when there is one, and otherwise the most
informative anchor, reported with its estimated I(p, A), a bootstrap interval over
the pilot's prompts, the chance that it is the most informative, and the
N_total = N / I (Section 4.3) it implies for the chosen effect.

:func:`analyze_anchors` is the report the ``judgebayes anchors FILE`` command prints,
on a few anchors × many models (Arena-Hard, AlpacaEval, WildBench) or the full matrix:
per anchor the informativeness, the ranking it induces, Kendall τ with the human
ranking (and π_quad where every pair was judged) with bootstrap intervals over
prompts, and N_total at +5 %.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from judgebayes.anchors.informativeness import AnchorInformativeness, informativeness
from judgebayes.anchors.layout import AnchorLayout, anchor_layout
from judgebayes.anchors.power import n_total, sign_test_n
from judgebayes.anchors.verdicts import VerdictTable
from judgebayes.core.results import ResultDisplay
from judgebayes.errors import DataError

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["AnchorAnalysis", "AnchorRecommendation", "analyze_anchors", "recommend_anchor"]


def _totals(base: int, info: np.ndarray) -> np.ndarray:
    """N_total per anchor as floats (NaN where I is 0 or unknown)."""
    ok = np.isfinite(info) & (info > 0)
    out = np.full(info.shape, np.nan)
    out[ok] = n_total(base, np.minimum(info[ok], 1.0))
    return out


@dataclass(frozen=True, repr=False)
class AnchorRecommendation(ResultDisplay):
    """Figure 5's decision on a pilot, with the informativeness behind it.

    Attributes
    ----------
    best
        The recommended anchor (``None`` when the advice is to compare all pairs).
    info
        I(p, A) of every candidate with bootstrap intervals over the pilot's prompts.
    p_best
        Per candidate, the share of bootstrap replicates in which it is the most
        informative.
    n_base
        Discordant pairs the sign test needs for ``effect`` (Table 2, "Base").
    n_total, n_total_range
        Prompts needed with the best anchor, N / I, and at the ends of its interval.
    effect, alpha, power
        The effect (edge over ½ among discordant pairs), level and power.
    advice
        The steps of Figure 5 that apply, in words.
    """

    best: str | None
    info: AnchorInformativeness
    p_best: np.ndarray
    n_base: int
    n_total: float
    n_total_range: tuple[float, float]
    effect: float
    alpha: float
    power: float
    advice: tuple[str, ...]

    def to_frame(self) -> pd.DataFrame:
        """``anchor, informativeness, lo, hi, p_best, n_total``, most informative first."""
        frame = pd.DataFrame(
            {
                "anchor": self.info.anchors,
                "informativeness": self.info.informativeness,
                "lo": self.info.lo,
                "hi": self.info.hi,
                "p_best": self.p_best,
                "n_total": _totals(self.n_base, self.info.informativeness),
            }
        )
        return frame.sort_values(
            "informativeness", ascending=False, kind="stable", ignore_index=True
        )

    def _headline(self) -> str:
        if self.best is None:
            return self.advice[0]
        i = self.info[self.best]
        k = self.info.anchors.index(self.best)
        return (
            f"anchor {self.best}: I = {i:.3f} [{self.info.lo[k]:.3f}, {self.info.hi[k]:.3f}] "
            f"from {self.info.n_prompts} pilot prompts (most informative in "
            f"{self.p_best[k]:.0%} of resamples); N_total ≈ {self.n_total:,.0f} prompts for "
            f"+{self.effect:.0%}"
        )

    def __str__(self) -> str:
        steps = "\n".join(f"- {a}" for a in self.advice)
        table = self.to_frame().to_string(index=False, float_format=lambda v: f"{v:.3f}")
        return f"{self._headline()}\n{steps}\n{table}"

    def plot(self, ax: Axes | None = None) -> Axes:
        """The candidates' informativeness with intervals (:meth:`AnchorInformativeness.plot`)."""
        return self.info.plot(ax)


def recommend_anchor(
    pilot: VerdictTable,
    *,
    effect: float = 0.05,
    alpha: float = 0.05,
    power: float = 0.8,
    candidates: Sequence[str] | None = None,
    natural_anchor: str | None = None,
    benchmark_size: int | None = None,
    scale: str = "five",
    n_boot: int = 2000,
    level: float = 0.9,
    judge: str | None = None,
    seed: int = 0,
) -> AnchorRecommendation:
    """Don-Yehiya et al.'s (2026) decision framework (Figure 5) on a pilot sample.

    Parameters
    ----------
    pilot
        A quadratic verdict table of one judge on a few prompts (Section 5.3 uses 10).
    effect
        The edge to detect among discordant pairs (0.05: a 55 % win rate).
    alpha, power
        One-sided level and power of the sign test (Table 2).
    candidates
        Anchors to consider (default every usable model).
    natural_anchor
        A model every other one should be compared with (a baseline): Figure 5 then
        says to use it and to draw no conclusion about other pairs.
    benchmark_size
        Prompts available; the advice says when N_total exceeds it.
    scale
        Verdict scale of I(p, A): ``"five"`` or ``"three"``.
    n_boot, level, seed
        Bootstrap over the pilot's prompts for the interval and ``p_best``.
    """
    pilot = pilot.one_judge(judge)
    info = informativeness(
        pilot, anchors=candidates, scale=scale, n_boot=n_boot, level=level, seed=seed
    )
    p_best = info.p_best()
    base = int(sign_test_n(0.5 + effect, alpha=alpha, power=power)[0])
    m = len(pilot.models)
    advice: list[str] = []
    best: str | None
    if m <= 3:
        best = None
        advice.append(
            f"{m} models: compare all pairs (quadratic) — {m}·N judgments, no more "
            f"than with an external anchor, and no anchor to choose"
        )
    elif natural_anchor is not None:
        if natural_anchor not in pilot.models:
            raise DataError(
                f"no model {natural_anchor!r} in the pilot",
                column="model_a",
                expected=f"one of {list(pilot.models)}",
            )
        best = natural_anchor
        advice.append(
            f"a natural baseline exists: compare every model with {best} and draw "
            f"no conclusion about other pairs"
        )
    else:
        best = info.anchors[int(np.nanargmax(info.informativeness))]
        advice.append(
            "no natural baseline and a full ranking is needed: use the most "
            "informative anchor, avoid the strongest and weakest models"
        )
    total, span = np.nan, (np.nan, np.nan)
    if best in info.anchors:
        k = info.anchors.index(best)
        total = float(_totals(base, info.informativeness[k : k + 1])[0])
        span = tuple(float(x) for x in _totals(base, np.array([info.hi[k], info.lo[k]])))
    if best is not None:
        advice.append(
            "report the anchor's informativeness with the results"
            + (f": I = {info[best]:.3f}" if best in info.anchors else "")
        )
        if benchmark_size is not None and np.isfinite(total) and total > benchmark_size:
            advice.append(
                f"+{effect:.0%} needs about {total:,.0f} prompts with this anchor, more "
                f"than the {benchmark_size:,} available: the benchmark cannot "
                f"separate models that close (Section 4.3)"
            )
    return AnchorRecommendation(
        best=best,
        info=info,
        p_best=p_best,
        n_base=base,
        n_total=total,
        n_total_range=span,  # type: ignore[arg-type]
        effect=effect,
        alpha=alpha,
        power=power,
        advice=tuple(advice),
    )


@dataclass(frozen=True, repr=False)
class AnchorAnalysis(ResultDisplay):
    """Per anchor: informativeness, its ranking, τ with humans (and π_quad), N_total.

    The report of ``judgebayes anchors FILE``, on a few anchors × many models or on the
    full matrix alike (:func:`~judgebayes.anchors.layout.anchor_layout`).

    Attributes
    ----------
    layout
        :class:`~judgebayes.anchors.layout.AnchorLayout` of the detected (or named)
        anchors: I(p, A), the win-rate and five-level rankings, τ with intervals.
    n_base, effect
        The sign test's discordant pairs for the effect, and the effect.
    n_debiased
        (prompt, pair)s judged in both orders whose verdicts were averaged.
    """

    layout: AnchorLayout
    n_base: int
    effect: float
    n_debiased: int

    @property
    def info(self) -> AnchorInformativeness:
        """I(p, A) per anchor with its bootstrap interval."""
        return self.layout.info

    def to_frame(self) -> pd.DataFrame:
        """:meth:`AnchorLayout.to_frame` and ``n_total_5pct``, one row per anchor.

        The N_total column is named for the default +5 % effect; it holds the N_total of
        :attr:`effect`.
        """
        frame = self.layout.to_frame()
        frame["n_total_5pct"] = _totals(self.n_base, self.info.informativeness)
        return frame

    def _headline(self) -> str:
        return self.layout._headline()

    def plot(self, ax: Axes | None = None) -> Axes:
        """τ per anchor against its informativeness (:meth:`AnchorLayout.plot`)."""
        reference = "quadratic" if self.layout.is_full_matrix else "human"
        return self.layout.plot(ax, x="informativeness", reference=reference)

    def __str__(self) -> str:
        totals = _totals(self.n_base, self.info.informativeness)
        lines = [
            str(self.layout),
            f"N_total at +{self.effect:.0%} (Don-Yehiya et al., 2026, Section 4.3): "
            f"{self.n_base} discordant pairs / I = "
            + ", ".join(
                f"{a} {'n/a' if not np.isfinite(t) else format(t, ',.0f')}"
                for a, t in zip(self.layout.anchors, totals, strict=True)
            ),
            f"{self.n_debiased:,} (prompt, pair)s judged in both orders were averaged",
        ]
        if not self.layout.is_full_matrix:
            lines += [
                "rankings (win rate against each anchor, ties half):",
                self.wide().to_string(na_rep="-"),
            ]
        return "\n".join(lines)

    def wide(self, value: str = "win_rate") -> pd.DataFrame:
        """Models × anchors: each model's ``win_rate`` (or ``margin``) against each anchor.

        Best model (by the mean over anchors) first; an anchor's own column holds its
        score from its targets (1 − their mean win rate).
        """
        long = self.layout.rankings()
        frame = long.pivot(index="model", columns="anchor", values=value)
        frame = frame[list(self.layout.anchors)]
        order = frame.mean(axis=1).sort_values(ascending=False, kind="stable").index
        return frame.loc[order].rename_axis(columns=None).round(3)


def analyze_anchors(
    table: VerdictTable,
    *,
    human: Mapping[str, float] | None = None,
    anchors: Sequence[str] | None = None,
    judge: str | None = None,
    scale: str = "five",
    effect: float = 0.05,
    alpha: float = 0.05,
    power: float = 0.8,
    n_boot: int = 1000,
    level: float = 0.95,
    seed: int = 0,
    progress: bool = True,
) -> AnchorAnalysis:
    """Per anchor: I(p, A), its rankings, τ with humans and π_quad (Eq. 1), N_total.

    The anchors are found in the table (:func:`~judgebayes.anchors.layout.find_anchors`:
    the models every other model meets; every model of a full matrix) unless named.
    Intervals: ``n_boot`` bootstrap resamples of the prompts (0: none).
    """
    table = table.one_judge(judge)
    layout = anchor_layout(
        table,
        anchors=anchors,
        human=human,
        scale=scale,
        n_boot=n_boot,
        level=level,
        seed=seed,
        progress=progress,
    )
    base = int(sign_test_n(0.5 + effect, alpha=alpha, power=power)[0])
    return AnchorAnalysis(layout=layout, n_base=base, effect=effect, n_debiased=table.n_debiased)
