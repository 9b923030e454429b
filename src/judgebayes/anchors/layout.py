"""The layout of real anchor benchmarks: a few anchors × many models (Don-Yehiya, Yehudai, Choshen &
Abend, *Mediocrity is the key for LLM as a Judge Anchor Selection*, ACL 2026, arXiv:2603.16848,
Section 2).

Arena-Hard, AlpacaEval and WildBench judge every model against one anchor or a few,
never against each other: the verdicts form a star (or a few stars), not the full
matrix of Section 3.2. :func:`find_anchors` tells the anchors from the targets, and
:func:`anchor_layout` reports per anchor A what such a benchmark can say:

* its informativeness I(p, A) (Section 4.3; :func:`~judgebayes.anchors.informativeness`);
* the ranking it induces, in two aggregations of the verdicts v_{i,j}^A of target j
  against A on prompt i: the **win rate** with ties counted half (Section 2),
  s_j = mean_i (sign(v_{i,j}^A) + 1) / 2 with the anchor's own s_A = 1 − mean_j s_j,
  and the **five-level mean** m_j = mean_i v_{i,j}^A (the margin the paper's
  Bradley–Terry discards) with m_A = −mean_j m_j;
* Kendall's τ-b of each ranking with a human ranking (Eq. 1), and with the quadratic
  ranking π_quad only where the full matrix exists (every pair judged).

**Which models are anchors.** An anchor is a model every other model meets, except
that anchors need not meet each other (AlpacaEval 2 or Arena-Hard v2 with two baselines
judge no baseline against the other). Formally: two models that were never judged
against each other are joined in the *complement graph*; the targets are its largest
connected component (the models that mostly skip each other) and the anchors are
every model outside it, each of which therefore met every target. A full matrix has
no complement edges and every model is an anchor. A table in which no model meets all
the others (an arena's sparse battles) has no anchor and raises
:class:`~judgebayes.errors.DataError`, as does a tie between two largest components
(two models judged only against two others: which pair are the anchors?).

**Intervals** are percentile bootstraps over prompts (the prompts are the sample, the
models fixed; Section 5.1 resamples prompts too). Every statistic — informativeness,
both rankings and their τ — is computed on the *same* resampled prompt weights, so
the replicates are joint: a difference of τ between two anchors, or the R² of τ on
I(p, A) across anchors, has its interval from the same draws
(:meth:`AnchorLayout.contrast`, :meth:`AnchorLayout.tau_vs_informativeness`,
:meth:`AnchorLayout.inverted_u`). The human (or quadratic) reference ranking is held
fixed: the interval is the sampling noise of the anchor-based ranking given the
reference. What a τ interval covers is the τ a benchmark of the same size gives with
that anchor on average, E[τ_N]: a ranking from N prompts is noisy, so τ is biased low
against the τ of infinitely many prompts, and more so for an anchor that wastes prompts
(that is the paper's point). On the simulator, 90 % intervals cover E[τ_N] in 190–196
of 200 benchmarks (τ takes few values, so they err wide) and the population I(p, A)
in 179 (``tests/test_anchors_layout.py``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components
from tqdm.auto import tqdm

from judgebayes.anchors.informativeness import (
    AnchorInformativeness,
    TauInformativeness,
    discordance,
    regress_tau,
)
from judgebayes.anchors.rankings import human_vector, kendall_rows, quadratic_scores
from judgebayes.anchors.verdicts import VerdictTable, check_scale
from judgebayes.core.results import ResultDisplay
from judgebayes.errors import DataError
from judgebayes.plots import panel_axes

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = [
    "AnchorLayout",
    "InvertedU",
    "TauContrast",
    "anchor_layout",
    "find_anchors",
]

RANKINGS = ("win_rate", "margin")
REFERENCES = ("human", "quadratic")
#: Bootstrap replicates drawn at once (a (chunk, prompts) weight matrix).
_CHUNK = 100


def _met(table: VerdictTable) -> np.ndarray:
    """``met[a, b]``: a and b were judged against each other on some prompt."""
    m = len(table.models)
    met = np.zeros((m, m), dtype=bool)
    met[table.a, table.b] = met[table.b, table.a] = True
    return met


def find_anchors(table: VerdictTable) -> tuple[str, ...]:
    """The anchors of a verdict table: the models every other model meets.

    Anchors need not meet each other; see the module docstring for the rule (the
    targets are the largest component of the graph of pairs never judged, the anchors
    every model outside it). A full matrix makes every model an anchor.

    Raises
    ------
    DataError
        When no model meets all the targets, or the targets cannot be told apart from
        the anchors (two largest components of the same size).
    """
    m = len(table.models)
    met = _met(table)
    never = ~met & ~np.eye(m, dtype=bool)
    if not never.any():
        return table.models
    n_comp, label = connected_components(csr_matrix(never), directed=False)
    sizes = np.bincount(label, minlength=n_comp)
    largest = np.flatnonzero(sizes == sizes.max())
    if largest.size > 1:
        groups = [sorted(np.asarray(table.models)[label == k]) for k in largest[:2]]
        raise DataError(
            f"cannot tell the anchors from the targets: {groups[0]} and {groups[1]} are "
            "each judged only against the other group",
            column="model_a",
            expected="more targets than anchors, or the anchors named (anchors=..., "
            "judgebayes anchors --anchors)",
        )
    anchors = tuple(name for name, k in zip(table.models, label, strict=True) if k != largest[0])
    if not anchors:
        lonely = int(np.argmax(never.sum(axis=1)))
        raise DataError(
            f"no model is judged against every other one (e.g. {table.models[lonely]!r} "
            f"never meets {int(never[lonely].sum())} of the {m - 1} others): neither a full "
            "verdict matrix nor a few anchors × many models",
            column="model_a",
            expected="every model judged against the anchor(s), or the anchors named "
            "(anchors=..., judgebayes anchors --anchors)",
        )
    return anchors


def _weight_chunks(n: int, n_boot: int, seed: int) -> Iterator[np.ndarray]:
    """Multinomial prompt weights (a percentile bootstrap over prompts), in chunks."""
    rng = np.random.default_rng(seed)
    for start in range(0, n_boot, _CHUNK):
        size = min(_CHUNK, n_boot - start)
        yield rng.multinomial(n, np.full(n, 1.0 / n), size=size).astype(float)


def _scores(sums: np.ndarray, counts: np.ndarray, own: str) -> np.ndarray:
    """Targets' mean verdict and the anchor's own score, per row.

    ``sums``, ``counts``: ``(rows, n_models)`` weighted sums and counts of the targets'
    verdicts (0 for non-targets, the anchor among them); ``own`` ``"win_rate"``
    (s_A = 1 − mean_j s_j) or ``"margin"`` (m_A = −mean_j m_j). The anchor is the
    column whose count is marked ``-1``.
    """
    anchor = counts < 0
    seen = counts > 0
    mean = np.divide(sums, counts, out=np.full(sums.shape, np.nan), where=seen)
    n_t = seen.sum(axis=1, keepdims=True)
    avg = np.divide(
        np.where(seen, mean, 0.0).sum(axis=1, keepdims=True),
        n_t,
        out=np.full(n_t.shape, np.nan),
        where=n_t > 0,
    )
    value = 1.0 - avg if own == "win_rate" else -avg
    return np.where(anchor, value, mean)


@dataclass(frozen=True, repr=False)
class TauContrast(ResultDisplay):
    """Mean τ of one group of anchors minus another's, with a bootstrap interval.

    Attributes
    ----------
    first, second
        The two groups of anchors.
    estimate
        mean τ(first) − mean τ(second) on the data.
    ci
        Percentile interval of the same difference over the joint prompt replicates.
    p_above
        Share of replicates in which the difference is positive.
    reference, ranking, level
        What τ compares (``"human"`` or ``"quadratic"``; ``"win_rate"`` or ``"margin"``)
        and the interval level.
    """

    first: tuple[str, ...]
    second: tuple[str, ...]
    estimate: float
    ci: tuple[float, float]
    p_above: float
    reference: str
    ranking: str
    level: float

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame(
            {
                "first": [", ".join(self.first)],
                "second": [", ".join(self.second)],
                "difference": [self.estimate],
                "lo": [self.ci[0]],
                "hi": [self.ci[1]],
                "p_above": [self.p_above],
            }
        )

    def _headline(self) -> str:
        return (
            f"mean τ ({self.ranking}, with the {self.reference} ranking) of "
            f"{len(self.first)} anchor(s) − {len(self.second)}: {self.estimate:+.3f} "
            f"[{self.ci[0]:+.3f}, {self.ci[1]:+.3f}] ({self.level:.0%}); positive in "
            f"{self.p_above:.0%} of resamples"
        )


@dataclass(frozen=True, repr=False)
class InvertedU(ResultDisplay):
    """A parabola of τ on the anchor's position: is the best anchor a middle one?

    τ_A = a + b·q_A + c·q_A² by least squares across anchors, q_A = (rank − 1) /
    (M − 1) the anchor's position in a ranking of the M models (0 the best, 1 the
    worst). Don-Yehiya et al.'s (2026) inverted U (Section 4.1, Figure 1) is c < 0 with the vertex
    −b / 2c inside (0, 1); −c / 4 is how far a parabola peaked at ½ falls by the ends.

    Attributes
    ----------
    anchors, position, tau
        The anchors with a position, their q and τ.
    curvature, ci, p_negative
        c, its percentile interval over the joint prompt replicates, and the share of
        replicates with c < 0.
    vertex
        −b / 2c (NaN when c ≥ 0: no peak).
    coef
        (c, b, a), :func:`numpy.polyfit` order.
    reference, ranking, by, level
        τ with which ranking, of which aggregation, positions in which ranking; level.
    """

    anchors: tuple[str, ...]
    position: np.ndarray
    tau: np.ndarray
    curvature: float
    ci: tuple[float, float]
    p_negative: float
    vertex: float
    coef: np.ndarray
    reference: str
    ranking: str
    by: str
    level: float

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame({"anchor": self.anchors, "position": self.position, "tau": self.tau})

    def _headline(self) -> str:
        peak = f", peak at q = {self.vertex:.2f}" if np.isfinite(self.vertex) else ", no peak"
        return (
            f"{len(self.anchors)} anchors; τ ({self.ranking}, with the {self.reference} "
            f"ranking) on the anchor's position in the {self.by} ranking: curvature "
            f"{self.curvature:+.3f} [{self.ci[0]:+.3f}, {self.ci[1]:+.3f}] ({self.level:.0%})"
            f"{peak}; negative in {self.p_negative:.0%} of resamples"
        )

    def plot(self, ax: Axes | None = None, *, labels: bool = True) -> Axes:
        """τ against the anchor's position with the fitted parabola (Figure 1)."""
        ax = panel_axes(ax, (6.5, 4.2))
        ax.scatter(self.position, self.tau, color="#1f5fa8", s=22, zorder=3)
        xs = np.linspace(0.0, 1.0, 100)
        ax.plot(xs, np.polyval(self.coef, xs), color="#c2185b", lw=1.2, label="parabola")
        if labels:
            for x, t, a in zip(self.position, self.tau, self.anchors, strict=True):
                ax.annotate(a, (x, t), fontsize=7, xytext=(2, 2), textcoords="offset points")
        ax.set_xlabel(f"anchor's position in the {self.by} ranking (0 best, 1 worst)")
        ax.set_ylabel(f"Kendall τ with the {self.reference} ranking")
        ax.legend(frameon=False, fontsize=8)
        ax.grid(alpha=0.3)
        return ax


@dataclass(frozen=True, repr=False)
class AnchorLayout(ResultDisplay):
    """Per anchor: informativeness, the ranking it induces, τ with humans (and π_quad).

    Build it with :func:`anchor_layout`.

    Attributes
    ----------
    models, anchors
        Every model; the anchors analysed.
    targets
        ``(n_anchors, n_models)``: whether the model was judged against the anchor.
    n_prompts
        ``(n_anchors, n_models)``: prompts on which the model met the anchor.
    win_rate, margin
        ``(n_anchors, n_models)``: each target's win rate against the anchor (ties
        half) and its five-level mean margin over it; the anchor's own entry is
        1 − the mean win rate and −the mean margin of its targets; NaN elsewhere.
    info
        I(p, A) per anchor with its bootstrap interval (NaN where no prompt holds two
        targets of the anchor: each target met it on other prompts).
    human
        The human score per model (NaN where it has none), or ``None``.
    quadratic
        π_quad strengths (Bradley–Terry on all pairs, Section 3.2) where the table is
        the full matrix, else ``None``.
    tau, tau_lo, tau_hi
        ``{(reference, ranking): (n_anchors,)}``: Kendall's τ-b with the human ranking
        and π_quad for the win-rate and five-level rankings, and percentile intervals.
    tau_replicates
        ``{(reference, ranking): (n_boot, n_anchors)}``, on the same prompt weights as
        ``info.replicates``.
    scale, level, n_boot, seed
        Informativeness scale; interval level; bootstrap size and seed.
    """

    models: tuple[str, ...]
    anchors: tuple[str, ...]
    targets: np.ndarray
    n_prompts: np.ndarray
    win_rate: np.ndarray
    margin: np.ndarray
    info: AnchorInformativeness
    human: np.ndarray | None
    quadratic: np.ndarray | None
    tau: dict[tuple[str, str], np.ndarray]
    tau_lo: dict[tuple[str, str], np.ndarray]
    tau_hi: dict[tuple[str, str], np.ndarray]
    tau_replicates: dict[tuple[str, str], np.ndarray]
    scale: str
    level: float
    n_boot: int
    seed: int

    # ------------------------------------------------------------- queries
    @property
    def is_full_matrix(self) -> bool:
        """Whether every pair was judged (π_quad and τ with it exist)."""
        return self.quadratic is not None

    def _key(self, reference: str, ranking: str) -> tuple[str, str]:
        if reference not in REFERENCES or ranking not in RANKINGS:
            raise ValueError(
                f"reference must be one of {REFERENCES} and ranking one of {RANKINGS}, "
                f"got {reference!r}, {ranking!r}"
            )
        key = (reference, ranking)
        if key not in self.tau:
            what = "human scores (human=...)" if reference == "human" else "the full matrix"
            raise ValueError(f"no τ with the {reference} ranking: it needs {what}")
        return key

    def ranking(self, anchor: str) -> pd.DataFrame:
        """The ranking ``anchor`` induces: ``model, win_rate, margin, n_prompts`` (+ ``human``).

        The anchor itself is the row with ``n_prompts`` 0; best model first.
        """
        k = self.anchors.index(anchor)
        keep = self.targets[k] | (np.asarray(self.models) == anchor)
        frame = pd.DataFrame(
            {
                "model": np.asarray(self.models, dtype=object)[keep],
                "win_rate": self.win_rate[k, keep],
                "margin": self.margin[k, keep],
                "n_prompts": self.n_prompts[k, keep],
            }
        )
        if self.human is not None:
            frame["human"] = self.human[keep]
        return frame.sort_values(
            ["win_rate", "margin"], ascending=False, kind="stable", ignore_index=True
        )

    def rankings(self) -> pd.DataFrame:
        """Every anchor's ranking in long format: ``anchor`` then the columns of :meth:`ranking`."""
        return pd.concat(
            [self.ranking(a).assign(anchor=a) for a in self.anchors], ignore_index=True
        )[["anchor", *self.ranking(self.anchors[0]).columns]]

    def anchor_rank(self, reference: str = "human") -> np.ndarray:
        """Each anchor's position in the human ranking or π_quad (1 = best; NaN if unscored)."""
        scores = self.human if reference == "human" else self.quadratic
        if scores is None:
            return np.full(len(self.anchors), np.nan)
        ok = np.isfinite(scores)
        rank = np.full(scores.size, np.nan)
        rank[ok] = (-scores[ok]).argsort(kind="stable").argsort() + 1.0
        return np.array([rank[self.models.index(a)] for a in self.anchors])

    def to_frame(self) -> pd.DataFrame:
        """One row per anchor: targets, informativeness and each τ with its interval."""
        frame = pd.DataFrame(
            {
                "anchor": self.anchors,
                "n_targets": self.targets.sum(axis=1),
                "informativeness": self.info.informativeness,
                "informativeness_lo": self.info.lo,
                "informativeness_hi": self.info.hi,
            }
        )
        if self.human is not None:
            frame["human_rank"] = self.anchor_rank("human")
        for (reference, ranking), tau in self.tau.items():
            name = f"tau_{reference}" + ("" if ranking == "win_rate" else "_margin")
            frame[name] = tau
            frame[f"{name}_lo"] = self.tau_lo[(reference, ranking)]
            frame[f"{name}_hi"] = self.tau_hi[(reference, ranking)]
        return frame

    def _headline(self) -> str:
        kind = "full matrix" if self.is_full_matrix else "anchor layout"
        head = (
            f"{len(self.anchors)} anchor(s) × {len(self.models)} models ({kind}), "
            f"{self.info.n_prompts:,} prompts"
        )
        i = self.info.informativeness
        if np.isfinite(i).any():
            best = int(np.nanargmax(i))
            head += f"; most informative {self.anchors[best]} (I = {i[best]:.3f})"
        for key in (("human", "win_rate"), ("quadratic", "win_rate")):
            tau = self.tau.get(key)
            if tau is not None and np.isfinite(tau).any():
                best = int(np.nanargmax(tau))
                head += (
                    f"; τ with the {key[0]} ranking {np.nanmin(tau):.3f} to "
                    f"{tau[best]:.3f} ({self.anchors[best]})"
                )
        return head

    def __str__(self) -> str:
        frame = self.to_frame()
        cols = [c for c in frame.columns if c.startswith("tau_") and not c.endswith(("lo", "hi"))]
        out = pd.DataFrame({"anchor": frame["anchor"], "targets": frame["n_targets"]})
        out["I(p, A)"] = [
            _interval(e, lo, hi)
            for e, lo, hi in zip(
                frame["informativeness"],
                frame["informativeness_lo"],
                frame["informativeness_hi"],
                strict=True,
            )
        ]
        for c in cols:
            out[c] = [
                _interval(e, lo, hi)
                for e, lo, hi in zip(frame[c], frame[f"{c}_lo"], frame[f"{c}_hi"], strict=True)
            ]
        note = (
            f"{self.level:.0%} intervals: {self.n_boot:,} bootstrap resamples of the prompts"
            if self.n_boot
            else "no bootstrap (n_boot=0)"
        )
        return f"{self._headline()}\n{note}\n{out.to_string(index=False)}"

    # ------------------------------------------------------------- analyses
    def tau_vs_informativeness(
        self, *, reference: str = "human", ranking: str = "win_rate"
    ) -> TauInformativeness:
        """τ against I(p, A) across anchors with R² (Section 4.3, Figure 3).

        The R² interval comes from the joint prompt replicates (the R² of each resample's
        τ on that resample's I).
        """
        key = self._key(reference, ranking)
        reps_tau, reps_i = self.tau_replicates[key], self.info.replicates
        r2_reps = np.array(
            [_r2(x, y) for x, y in zip(reps_i, reps_tau, strict=True)] if self.n_boot else []
        )
        return regress_tau(
            self.anchors,
            self.info.informativeness,
            self.tau[key],
            reference=reference,
            r2_replicates=r2_reps,
            level=self.level,
        )

    def contrast(
        self,
        first: Sequence[str],
        second: Sequence[str] | None = None,
        *,
        reference: str = "human",
        ranking: str = "win_rate",
    ) -> TauContrast:
        """Mean τ of the ``first`` anchors minus that of ``second`` (default: the others).

        "Mediocrity is the key" (Section 4.1) predicts a positive difference for the
        middle anchors against the extreme ones; the interval is over the joint prompt
        replicates, so the two means move together.
        """
        key = self._key(reference, ranking)
        first = tuple(first)
        second = tuple(a for a in self.anchors if a not in first) if second is None else second
        for a in (*first, *second):
            if a not in self.anchors:
                raise ValueError(f"{a!r} is not an anchor here; anchors: {list(self.anchors)}")
        f = [self.anchors.index(a) for a in first]
        s = [self.anchors.index(a) for a in second]

        def diff(tau: np.ndarray) -> np.ndarray:
            return np.nanmean(tau[..., f], axis=-1) - np.nanmean(tau[..., s], axis=-1)

        reps = diff(self.tau_replicates[key])
        q = (1.0 - self.level) / 2.0
        lo, hi = np.nanquantile(reps, [q, 1.0 - q]) if reps.size else (np.nan, np.nan)
        return TauContrast(
            first=first,
            second=tuple(second),
            estimate=float(diff(self.tau[key])),
            ci=(float(lo), float(hi)),
            p_above=float(np.mean(reps > 0)) if reps.size else float("nan"),
            reference=reference,
            ranking=ranking,
            level=self.level,
        )

    def inverted_u(
        self, *, reference: str = "human", ranking: str = "win_rate", by: str | None = None
    ) -> InvertedU:
        """τ on the anchor's position as a parabola, with its curvature's interval.

        ``by``: the ranking that places the anchors (default ``reference``); anchors
        without a place in it (no human score) are left out. Don-Yehiya et al. (2026) place them in
        π_quad (Figure 1) and finds the inverted U against both references.
        """
        key = self._key(reference, ranking)
        by = reference if by is None else by
        rank = self.anchor_rank(by)
        m = np.isfinite(self.human if by == "human" else self.quadratic).sum()
        ok = np.isfinite(rank) & np.isfinite(self.tau[key])
        if ok.sum() < 4:
            raise ValueError(f"{int(ok.sum())} anchors have a position and a τ; a parabola needs 4")
        q = (rank[ok] - 1.0) / (m - 1.0)
        coef = np.polyfit(q, self.tau[key][ok], 2)
        reps = self.tau_replicates[key][:, ok]
        design = np.vander(q, 3)
        fin = np.isfinite(reps).all(axis=1)
        curv = np.linalg.lstsq(design, reps[fin].T, rcond=None)[0][0] if fin.any() else []
        curv = np.asarray(curv, float)
        qq = (1.0 - self.level) / 2.0
        lo, hi = np.quantile(curv, [qq, 1.0 - qq]) if curv.size else (np.nan, np.nan)
        return InvertedU(
            anchors=tuple(np.asarray(self.anchors)[ok]),
            position=q,
            tau=self.tau[key][ok],
            curvature=float(coef[0]),
            ci=(float(lo), float(hi)),
            p_negative=float(np.mean(curv < 0)) if curv.size else float("nan"),
            vertex=float(-coef[1] / (2 * coef[0])) if coef[0] < 0 else float("nan"),
            coef=coef,
            reference=reference,
            ranking=ranking,
            by=by,
            level=self.level,
        )

    def plot(
        self,
        ax: Axes | None = None,
        *,
        x: str = "rank",
        reference: str = "human",
        ranking: str = "win_rate",
        labels: bool = True,
    ) -> Axes:
        """τ per anchor with its interval, against the anchor's rank (Figure 1) or I (Figure 3).

        Intervals are drawn as segments; the point is the estimate on all the prompts.

        ``x="rank"``: the anchor's position in the ``reference`` ranking;
        ``x="informativeness"``: I(p, A) with its interval.
        """
        key = self._key(reference, ranking)
        tau, lo, hi = self.tau[key], self.tau_lo[key], self.tau_hi[key]
        ax = panel_axes(ax, (6.5, 4.2))
        color = "#1f5fa8"
        if x == "rank":
            xs = self.anchor_rank(reference)
            ax.set_xlabel(f"anchor's rank in the {reference} ranking (1 = best)")
        elif x == "informativeness":
            xs = self.info.informativeness
            # intervals as segments: a point estimate may lie outside its percentile
            # interval (see the module docstring), which error bars cannot draw
            ax.hlines(tau, self.info.lo, self.info.hi, color=color, lw=0.8, alpha=0.6)
            ax.set_xlabel(f"anchor informativeness I(p, A) ({self.scale}-point verdicts)")
        else:
            raise ValueError(f"x must be 'rank' or 'informativeness', got {x!r}")
        ax.vlines(xs, lo, hi, color=color, lw=0.8, alpha=0.6)
        ax.scatter(xs, tau, color=color, s=18, zorder=3)
        if labels:
            for px, py, name in zip(xs, tau, self.anchors, strict=True):
                ax.annotate(name, (px, py), fontsize=7, xytext=(3, 3), textcoords="offset points")
        what = "win rate" if ranking == "win_rate" else "five-level mean"
        ax.set_ylabel(f"Kendall τ with the {reference} ranking ({what})")
        ax.grid(alpha=0.3)
        return ax


def _interval(est: float, lo: float, hi: float) -> str:
    if not np.isfinite(est):
        return "n/a"
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return f"{est:.3f}"
    return f"{est:.3f} [{lo:.3f}, {hi:.3f}]"


def _r2(x: np.ndarray, y: np.ndarray) -> float:
    ok = np.isfinite(x) & np.isfinite(y)
    if ok.sum() < 3 or np.ptp(x[ok]) == 0 or np.ptp(y[ok]) == 0:
        return float("nan")
    return float(np.corrcoef(x[ok], y[ok])[0, 1] ** 2)


def _anchor_indices(table: VerdictTable, anchors: Sequence[str] | None) -> np.ndarray:
    names = find_anchors(table) if anchors is None else tuple(anchors)
    met = _met(table)
    for a in names:
        if a not in table.models:
            raise DataError(
                f"no model {a!r} in the verdicts",
                column="model_a",
                expected=f"one of {list(table.models)}",
            )
        if met[table.models.index(a)].sum() < 2:
            raise DataError(
                f"{a!r} cannot be an anchor here: it was judged against fewer than two models",
                column="model_a",
            )
    return np.array([table.models.index(a) for a in names], dtype=int)


def anchor_layout(
    table: VerdictTable,
    *,
    anchors: Sequence[str] | None = None,
    human: Mapping[str, float] | None = None,
    judge: str | None = None,
    scale: str = "five",
    n_boot: int = 1000,
    level: float = 0.95,
    seed: int = 0,
    progress: bool = True,
) -> AnchorLayout:
    """Per anchor: I(p, A), its win-rate and five-level rankings, τ with humans and π_quad.

    Don-Yehiya et al. (2026), Sections 2–4: the anchor-based ranking (win rate with ties half, and
    the five-level mean), its Kendall τ with a human ranking (Eq. 1) and, where every pair was
    judged, with π_quad; the anchor's informativeness I(p, A) (Section 4.3); all with percentile
    intervals from one bootstrap over prompts (module docstring).

    Parameters
    ----------
    table
        Verdicts of one judge (or pick one with ``judge``): a few anchors × many models,
        or the full matrix.
    anchors
        The anchors; default :func:`find_anchors`.
    human
        Human scores ``{model: score}`` (higher is better), e.g. Chatbot Arena Elo; at
        least three models of the table must have one. Models without one are left out
        of τ, not of the rankings.
    scale
        Informativeness on the ``"five"``-point margins or their sign (``"three"``).
    n_boot, level, seed
        Bootstrap resamples of the prompts (0: no intervals), interval level, seed.
    progress
        Show a progress bar over the bootstrap.
    """
    check_scale(scale)
    table = table.one_judge(judge)
    idx = _anchor_indices(table, anchors)
    v = table.tensor()
    m, n = len(table.models), len(table.prompts)
    # Each anchor's statistics live on the prompts where it was judged (few, in an arena):
    # per anchor the rows of those prompts, the models' margins over it and their
    # discordance (the rest of the prompts add nothing to its sums).
    blocks = []
    for a in idx:
        col = v[:, :, a]
        rows = np.flatnonzero(np.isfinite(col).any(axis=1))
        against = col[rows]  # (n_a, M): each model's margin over the anchor
        seen = np.isfinite(against)
        d_a, c_a = discordance(v[rows], np.array([a]), scale=scale)
        blocks.append(
            (
                rows,
                np.where(seen, (np.sign(np.where(seen, against, 0.0)) + 1.0) / 2.0, 0.0),
                np.where(seen, against, 0.0),
                seen.astype(float),
                d_a[0],
                c_a[0],
            )
        )
    hum = human_vector(table.models, human)
    quad = quadratic_scores(np.sign(v)) if table.is_quadratic() else None
    refs = {"human": hum, "quadratic": quad}

    def stats(weights: np.ndarray | None) -> tuple[np.ndarray, ...]:
        """Win rates, margins (B, A, M) and I (B, A) under prompt weights (None: all 1)."""
        shape = (1 if weights is None else weights.shape[0], idx.size, m)
        win, mar = np.empty(shape), np.empty(shape)
        dd, cc = np.empty(shape[:2]), np.empty(shape[:2])
        for k, (rows, wins, margins, counts, d, c) in enumerate(blocks):
            w = np.ones((1, rows.size)) if weights is None else weights[:, rows]
            cnt = w @ counts
            cnt[:, idx[k]] = -1.0  # marks the anchor's own column (see _scores)
            win[:, k] = _scores(w @ wins, cnt, "win_rate")
            mar[:, k] = _scores(w @ margins, cnt, "margin")
            dd[:, k], cc[:, k] = w @ d, w @ c
        info = np.divide(dd, cc, out=np.full(dd.shape, np.nan), where=cc > 0)
        return win, mar, info

    win, mar, info = (x[0] for x in stats(None))
    rankings = {"win_rate": win, "margin": mar}
    tau = {
        (ref, name): kendall_rows(scores, refs[ref])
        for ref in REFERENCES
        if refs[ref] is not None
        for name, scores in rankings.items()
    }
    reps_tau: dict[tuple[str, str], list[np.ndarray]] = {key: [] for key in tau}
    reps_info: list[np.ndarray] = []
    bar = tqdm(total=n_boot, desc="bootstrap over prompts", disable=not progress or not n_boot)
    with bar:
        for weights in _weight_chunks(n, n_boot, seed):
            b_win, b_mar, b_info = stats(weights)
            reps_info.append(b_info)
            b_rank = {"win_rate": b_win, "margin": b_mar}
            for ref, name in reps_tau:
                cols = [kendall_rows(b_rank[name][:, k], refs[ref]) for k in range(idx.size)]
                reps_tau[(ref, name)].append(np.stack(cols, axis=1))
            bar.update(weights.shape[0])
    q = (1.0 - level) / 2.0
    reps_t = {
        key: np.concatenate(val) if val else np.empty((0, idx.size))
        for key, val in reps_tau.items()
    }
    reps_i = np.concatenate(reps_info) if reps_info else np.empty((0, idx.size))

    def interval(reps: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if reps.shape[0] == 0:
            nan = np.full(idx.size, np.nan)
            return nan, nan
        ok = np.isfinite(reps).any(axis=0)
        lo, hi = np.full(idx.size, np.nan), np.full(idx.size, np.nan)
        if ok.any():
            lo[ok], hi[ok] = np.nanquantile(reps[:, ok], [q, 1.0 - q], axis=0)
        return lo, hi

    tau_ci = {key: interval(val) for key, val in reps_t.items()}
    i_lo, i_hi = interval(reps_i)
    n_prompts = np.stack([block[3].sum(axis=0) for block in blocks]).astype(int)
    targets = n_prompts > 0
    return AnchorLayout(
        models=table.models,
        anchors=tuple(table.models[k] for k in idx),
        targets=targets,
        n_prompts=n_prompts,
        win_rate=win,
        margin=mar,
        info=AnchorInformativeness(
            anchors=tuple(table.models[k] for k in idx),
            informativeness=info,
            lo=i_lo,
            hi=i_hi,
            n_prompts=n,
            n_targets=targets.sum(axis=1),
            scale=scale,
            level=level,
            replicates=reps_i,
        ),
        human=hum,
        quadratic=quad,
        tau=tau,
        tau_lo={key: val[0] for key, val in tau_ci.items()},
        tau_hi={key: val[1] for key, val in tau_ci.items()},
        tau_replicates=reps_t,
        scale=scale,
        level=level,
        n_boot=n_boot,
        seed=seed,
    )
