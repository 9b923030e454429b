"""Anchor-based and quadratic rankings and their agreement (Don-Yehiya, Yehudai, Choshen & Abend,
*Mediocrity is the key for LLM as a Judge Anchor Selection*, ACL 2026, arXiv:2603.16848, Sections
2–4.1).

Per anchor A the verdicts of every target j against A give two scores (Section 2):

* **win-rate**: verdicts collapsed to {0, ½, 1}, s_j = (1/N) Σ_i v_{i,j}^A, and the
  anchor's own s_A = 1 − Σ_{j≠A} s_j / (M − 1);
* **Bradley–Terry** on the {−1, 0, 1} verdicts (a tie counts ½), fitted by the
  package's engine (:func:`judgebayes.core.bt.solve_map`, λ = 0.01 as in Kargi & Salinas (*From
  Uncertain Judgments to Calibrated Rankings: Conformal Elo Estimation for LLM Evaluation*, 2026,
  arXiv:2606.13221)) on the star graph of the anchor's pairs.

The **quadratic ranking** π_quad is Bradley–Terry on every pair (Section 3.2), and an
anchor's quality is Kendall's τ between its ranking and π_quad or a human ranking
(Eq. 1). Plotting τ against the anchor's rank in π_quad shows the inverted U of
Figure 1. On the star graph the targets' Bradley–Terry order is their win-rate order
(each θ_j − θ_A is a monotone function of j's own record), so the two aggregations
differ only in where they place the anchor itself.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from scipy.stats import kendalltau

from judgebayes.anchors.verdicts import VerdictTable
from judgebayes.core.bt import solve_map
from judgebayes.core.pairs import PairStats
from judgebayes.core.results import ResultDisplay
from judgebayes.errors import DataError
from judgebayes.plots import panel_axes

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = [
    "AnchorRankings",
    "anchor_rankings",
    "bt_scores",
    "kendall",
    "kendall_rows",
    "quadratic_scores",
    "win_rate_scores",
]

_LAM = 0.01


def kendall(x: np.ndarray, y: np.ndarray) -> float:
    """Kendall's τ-b (Don-Yehiya et al., 2026, Eq. 1) over the entries finite in both; NaN below
    3."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    ok = np.isfinite(x) & np.isfinite(y)
    if ok.sum() < 3:
        return float("nan")
    return float(kendalltau(x[ok], y[ok]).statistic)


def kendall_rows(scores: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """Kendall's τ-b of every row of ``scores`` with ``reference`` (Don-Yehiya et al., 2026, Eq. 1).

    τ-b = Σ_{i<j} s_ij·r_ij / √(Σ s_ij² · Σ r_ij²) with s_ij = sign(x_i − x_j) and
    r_ij = sign(y_i − y_j), over the pairs of models finite in the row and in the
    reference; the same number as :func:`scipy.stats.kendalltau` (variant "b") row by
    row, written out because SciPy's function takes one pair of vectors per call and a
    bootstrap asks for thousands. NaN where fewer than three models are finite.

    Parameters
    ----------
    scores
        ``(n_rows, n_models)``.
    reference
        ``(n_models,)``.
    """
    scores = np.atleast_2d(np.asarray(scores, dtype=float))
    reference = np.asarray(reference, dtype=float)
    i, j = np.triu_indices(reference.size, k=1)
    keep = np.isfinite(reference[i]) & np.isfinite(reference[j])
    i, j = i[keep], j[keep]
    r = np.sign(reference[i] - reference[j])
    ok = np.isfinite(scores[:, i]) & np.isfinite(scores[:, j])
    s = np.where(ok, np.sign(np.where(ok, scores[:, i] - scores[:, j], 0.0)), 0.0)
    num = (s * r).sum(axis=1)
    den = np.sqrt((s * s).sum(axis=1) * (ok * r * r).sum(axis=1))
    finite = np.isfinite(scores) & np.isfinite(reference)
    out = np.full(scores.shape[0], np.nan)
    good = (finite.sum(axis=1) >= 3) & (den > 0)
    out[good] = num[good] / den[good]
    return out


def bt_scores(n: np.ndarray, y: np.ndarray, *, lam: float = _LAM) -> np.ndarray:
    """Bradley–Terry strengths from ordered-pair counts ``n[a, b]`` and scores ``y[a, b]``.

    ``y[a, b]`` is a's summed {0, ½, 1} score against b over ``n[a, b]`` verdicts
    (``n`` symmetric, ``y[a, b] + y[b, a] = n[a, b]``). Models in no pair get NaN.
    The fit is :func:`judgebayes.core.bt.solve_map` on
    :class:`~judgebayes.core.pairs.PairStats` (Kargi & Salinas, 2026, Eq. 1, λ = 0.01).
    """
    m = n.shape[0]
    i, j = np.nonzero(np.triu(n, k=1) > 0)
    out = np.full(m, np.nan)
    if i.size == 0:
        return out
    used = np.unique(np.r_[i, j])
    local = np.full(m, -1)
    local[used] = np.arange(used.size)
    stats = PairStats.from_battles(
        local[i], local[j], y[i, j] / n[i, j], tuple(str(k) for k in used), weights=n[i, j]
    )
    theta, _ = solve_map(stats, lam, {})
    out[used] = theta
    return out


def pair_counts(v3: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Counts and {0, ½, 1} score sums per ordered pair from a {−1,0,1} tensor (N, M, M)."""
    seen = np.isfinite(v3)
    n = seen.sum(axis=0).astype(float)
    y = np.where(seen, (v3 + 1.0) / 2.0, 0.0).sum(axis=0)
    return n, y


def quadratic_scores(v3: np.ndarray, *, lam: float = _LAM) -> np.ndarray:
    """π_quad: Bradley–Terry on every judged pair of a {−1, 0, 1} tensor (Section 3.2)."""
    return bt_scores(*pair_counts(v3), lam=lam)


def win_rate_scores(
    v3: np.ndarray,
    anchor: int,
    targets: np.ndarray | None = None,
) -> np.ndarray:
    """Win-rate scores of Section 2: s_j against the anchor, s_A = 1 − mean_j s_j.

    ``v3`` is a {−1, 0, 1} tensor ``(N, M, M)``; ``targets`` (model indices, default
    every model but the anchor) restrict the comparison set; other models get NaN.
    """
    m = v3.shape[1]
    tgt = _targets(m, anchor, targets)
    against = v3[:, tgt, anchor]  # verdicts of each target over the anchor
    out = np.full(m, np.nan)
    with np.errstate(invalid="ignore"):
        out[tgt] = np.nanmean((against + 1.0) / 2.0, axis=0) if against.size else np.nan
    out[anchor] = 1.0 - np.nanmean(out[tgt])
    return out


def anchor_bt_scores(
    v3: np.ndarray, anchor: int, targets: np.ndarray | None = None, *, lam: float = _LAM
) -> np.ndarray:
    """Bradley–Terry strengths from the anchor's star graph of {−1, 0, 1} verdicts (Section 2)."""
    m = v3.shape[1]
    tgt = _targets(m, anchor, targets)
    n, y = pair_counts(v3)
    star = np.zeros_like(n, dtype=bool)
    star[tgt, anchor] = star[anchor, tgt] = True
    return bt_scores(np.where(star, n, 0.0), np.where(star, y, 0.0), lam=lam)


def _targets(m: int, anchor: int, targets: np.ndarray | None) -> np.ndarray:
    tgt = np.arange(m) if targets is None else np.asarray(targets, dtype=int)
    return tgt[tgt != anchor]


def anchor_index(table: VerdictTable, anchors: Sequence[str] | None) -> np.ndarray:
    names = table.usable_anchors() if anchors is None else tuple(anchors)
    usable = set(table.usable_anchors())
    for a in names:
        if a not in usable:
            raise DataError(
                f"{a!r} cannot be an anchor here: it was judged against fewer than two models",
                column="model_a",
                expected=f"one of {sorted(usable)}",
            )
    if not names:
        raise DataError(
            "no model was judged against two others, so no anchor can be analysed",
            expected="an anchor-based or quadratic verdict table",
        )
    return np.array([table.models.index(a) for a in names], dtype=int)


def human_vector(models: Sequence[str], human: Mapping[str, float] | None) -> np.ndarray | None:
    """Human scores aligned with ``models`` (NaN for models without one)."""
    if human is None:
        return None
    out = np.array([float(human.get(m, np.nan)) for m in models])
    if np.isfinite(out).sum() < 3:
        raise DataError(
            f"human scores given for {int(np.isfinite(out).sum())} of the models",
            column="model",
            expected="human scores for at least three models of the verdict table",
        )
    return out


def _ranks(scores: np.ndarray) -> np.ndarray:
    """1 = the highest score; NaN scores get NaN."""
    order = np.argsort(-np.where(np.isfinite(scores), scores, -np.inf), kind="stable")
    rank = np.empty(scores.size)
    rank[order] = np.arange(1, scores.size + 1)
    return np.where(np.isfinite(scores), rank, np.nan)


@dataclass(frozen=True, repr=False)
class AnchorRankings(ResultDisplay):
    """Per-anchor rankings and their Kendall τ with π_quad and a human ranking (Eq. 1).

    Attributes
    ----------
    models, anchors
        All models; the anchors analysed.
    quadratic
        π_quad strengths (Bradley–Terry on all pairs; NaN if the table is not quadratic).
    win_rate, bt
        ``(n_anchors, n_models)`` anchor-based scores (Section 2).
    human
        Human scores per model, or ``None``.
    tau_quadratic, tau_quadratic_bt, tau_human, tau_human_bt
        Kendall τ of each anchor's win-rate / BT ranking with π_quad and with the
        human ranking (NaN where not available).
    tau_quadratic_human
        τ of π_quad with the human ranking (Table 3, first column).
    """

    models: tuple[str, ...]
    anchors: tuple[str, ...]
    quadratic: np.ndarray
    win_rate: np.ndarray
    bt: np.ndarray
    human: np.ndarray | None
    tau_quadratic: np.ndarray
    tau_quadratic_bt: np.ndarray
    tau_human: np.ndarray
    tau_human_bt: np.ndarray
    tau_quadratic_human: float

    def anchor_rank(self) -> np.ndarray:
        """Each anchor's position in π_quad (1 = strongest)."""
        rank = _ranks(self.quadratic)
        return np.array([rank[self.models.index(a)] for a in self.anchors])

    def to_frame(self) -> pd.DataFrame:
        """``anchor, rank_quadratic, tau_quadratic, tau_quadratic_bt, tau_human, tau_human_bt``,
        best anchor (by τ with π_quad) first, as Table 1."""
        frame = pd.DataFrame(
            {
                "anchor": self.anchors,
                "rank_quadratic": self.anchor_rank(),
                "tau_quadratic": self.tau_quadratic,
                "tau_quadratic_bt": self.tau_quadratic_bt,
                "tau_human": self.tau_human,
                "tau_human_bt": self.tau_human_bt,
            }
        )
        return frame.sort_values("tau_quadratic", ascending=False, kind="stable", ignore_index=True)

    def _headline(self) -> str:
        tau = self.tau_quadratic
        if not np.isfinite(tau).any():
            return f"{len(self.anchors)} anchor(s), {len(self.models)} models; no quadratic ranking"
        best, worst = int(np.nanargmax(tau)), int(np.nanargmin(tau))
        return (
            f"{len(self.anchors)} anchors, {len(self.models)} models; τ with π_quad from "
            f"{tau[worst]:.3f} ({self.anchors[worst]}) to {tau[best]:.3f} "
            f"({self.anchors[best]}), mean {np.nanmean(tau):.3f}"
        )

    def plot(
        self,
        ax: Axes | None = None,
        *,
        reference: str = "quadratic",
        method: str = "win_rate",
        labels: bool = True,
    ) -> Axes:
        """Figure 1: τ of each anchor's ranking against the anchor's rank in π_quad."""
        tau = {
            ("quadratic", "win_rate"): self.tau_quadratic,
            ("quadratic", "bt"): self.tau_quadratic_bt,
            ("human", "win_rate"): self.tau_human,
            ("human", "bt"): self.tau_human_bt,
        }[(reference, method)]
        ax = panel_axes(ax, (6.5, 4.2))
        rank = self.anchor_rank()
        ax.scatter(rank, tau, color="#1f5fa8", s=22, zorder=3)
        ok = np.isfinite(rank) & np.isfinite(tau)
        if ok.sum() >= 3:
            coef = np.polyfit(rank[ok], tau[ok], 2)
            xs = np.linspace(rank[ok].min(), rank[ok].max(), 100)
            ax.plot(
                xs,
                np.polyval(coef, xs),
                color="#c2185b",
                lw=1.2,
                label="quadratic fit (inverted U if curving down)",
            )
            ax.legend(frameon=False, fontsize=8)
        if labels:
            for x, t, name in zip(rank, tau, self.anchors, strict=True):
                ax.annotate(name, (x, t), fontsize=7, xytext=(2, 2), textcoords="offset points")
        ax.set_xlabel("anchor's rank in π_quad (1 = strongest)")
        ax.set_ylabel(f"Kendall τ with π_{'quad' if reference == 'quadratic' else 'human'}")
        ax.grid(alpha=0.3)
        return ax


def rank_arrays(
    v3: np.ndarray,
    anchors: np.ndarray,
    *,
    lam: float = _LAM,
    targets: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """π_quad strengths and per-anchor win-rate and BT scores of a {−1, 0, 1} tensor."""
    quad = quadratic_scores(v3, lam=lam)
    win = np.stack([win_rate_scores(v3, int(a), targets) for a in anchors])
    bt = np.stack([anchor_bt_scores(v3, int(a), targets, lam=lam) for a in anchors])
    return quad, win, bt


def anchor_rankings(
    table: VerdictTable,
    *,
    anchors: Sequence[str] | None = None,
    human: Mapping[str, float] | None = None,
    judge: str | None = None,
    lam: float = _LAM,
) -> AnchorRankings:
    """Every anchor's ranking and its agreement with π_quad and a human ranking (Eq. 1).

    Parameters
    ----------
    table
        Verdicts of one judge (or pick one with ``judge``).
    anchors
        Anchors to analyse; default every model judged against at least two others.
    human
        Human scores ``{model: score}`` (higher is better), e.g. Chatbot Arena Elo
        (Section 3.3).
    lam
        L2 penalty of the Bradley–Terry fits (Kargi & Salinas's (2026) λ = 0.01).
    """
    table = table.one_judge(judge)
    idx = anchor_index(table, anchors)
    v3 = table.tensor(scale="three")
    quad, win, bt = rank_arrays(v3, idx, lam=lam)
    if not table.is_quadratic():
        quad = np.full_like(quad, np.nan)
    hum = human_vector(table.models, human)
    nan = np.full(idx.size, np.nan)

    def taus(scores: np.ndarray, ref: np.ndarray | None) -> np.ndarray:
        return nan if ref is None else np.array([kendall(s, ref) for s in scores])

    return AnchorRankings(
        models=table.models,
        anchors=tuple(table.models[k] for k in idx),
        quadratic=quad,
        win_rate=win,
        bt=bt,
        human=hum,
        tau_quadratic=taus(win, quad),
        tau_quadratic_bt=taus(bt, quad),
        tau_human=taus(win, hum),
        tau_human_bt=taus(bt, hum),
        tau_quadratic_human=float("nan") if hum is None else kendall(quad, hum),
    )
