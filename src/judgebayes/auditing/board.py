"""The board: each judge alone beside the calibrated board, and which models can be told apart.

Three kinds of Bradley–Terry board (Elo scale, ties as ½; Kargi & Salinas, *From Uncertain
Judgments to Calibrated Rankings: Conformal Elo Estimation for LLM Evaluation*, 2026, Eq. 1):

* **judge only**, one per judge: its verdicts on every battle it judged, with cluster-robust
  sandwich intervals (:func:`~judgebayes.sandwich_bt`, clustered by prompt where the
  battles have prompts). Narrow, and centred on what the *judge* prefers;
* **humans only**: the n human labels alone (the same sandwich);
* **calibrated**: prediction-powered Bradley–Terry (:func:`~judgebayes.rankings.ppi_bt`,
  PPI++ of Angelopoulos, Duchi & Zrnic, 2023, arXiv:2311.01453, for the BT M-estimator):
  the human labels rectify every judge's verdicts, one power-tuning weight λ_j per judge,
  so the estimate targets the *human* board whatever the judges' errors, with a sandwich
  covariance. Of the estimators of :mod:`judgebayes.rankings` it is the one whose
  intervals hold on real data (on the PPR data with 500 labels, PPI++ BT's 95% intervals
  cover the all-human Elo where the verdict-class soft targets' cover a fifth of it).

Rank-sets (simultaneous 1 − α rank intervals, :func:`~judgebayes.rank_sets`, max-|t| on
Elo differences) and tiers come from draws of each board's normal approximation.

Is the judge's *ranking* right? Its board's point ranks are compared with the calibrated
rank-sets: a model whose judge-only rank lies outside its calibrated rank-set is one the
judge misranks at level α (the rank-sets hold simultaneously, so a judge with the humans'
ranking misranks none with probability ≥ 1 − α). Kendall's τ between the judge-only Elo
and the calibrated Elo (its interval over the calibrated draws) and the ratio of their
spreads (the judge stretches or compresses the Elo axis, Kargi & Salinas, Section 4)
describe the rest.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

import numpy as np
import pandas as pd

from judgebayes.auditing.estimates import Estimate, from_replicates, holm_finite, normal_p
from judgebayes.auditing.inputs import AuditInput
from judgebayes.core.battles import Battles
from judgebayes.core.ranksets import RankSets
from judgebayes.core.results import ResultDisplay
from judgebayes.core.sandwich import SandwichElo, sandwich_bt
from judgebayes.errors import DataError, JudgeBayesWarning
from judgebayes.rankings.elo import EloEstimate
from judgebayes.rankings.ppi_bt import ppi_bt

__all__ = ["AuditBoard", "JudgeRanking", "audit_board", "kendall_tau"]

T = TypeVar("T")
N_DRAWS = 4000
"""Normal draws behind the calibrated board's rank-sets and Kendall τ intervals."""


def kendall_tau(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Kendall's τ-a between ``x`` (one vector) and every row of ``y``.

    Vectorised over the rows of ``y`` (thousands of posterior or normal draws at once):
    ``scipy.stats.kendalltau`` takes one pair of vectors per call. Continuous scores have no
    ties, where τ-a equals τ-b.
    """
    x = np.asarray(x, float)
    y = np.atleast_2d(np.asarray(y, float))
    i, j = np.triu_indices(len(x), 1)
    return (np.sign(x[i] - x[j])[None, :] * np.sign(y[:, i] - y[:, j])).mean(axis=1)


@dataclass(frozen=True, repr=False)
class JudgeRanking(ResultDisplay):
    """One judge's own board against the calibrated board.

    Attributes
    ----------
    judge
        The judge.
    board
        Its judge-only sandwich board.
    misranked
        Models whose judge-only rank lies outside their calibrated rank-set.
    tau
        Kendall τ of the judge-only Elo with the calibrated Elo (interval over its draws).
    scale
        SD of the judge-only Elo over SD of the calibrated Elo (interval over its draws).
    """

    judge: str
    board: SandwichElo
    misranked: tuple[str, ...]
    tau: Estimate | None
    scale: Estimate | None

    def _headline(self) -> str:
        extra = (
            f"; τ with the calibrated board {self.tau.text(2)}, {len(self.misranked)} models "
            "outside their calibrated rank-set"
            if self.tau is not None
            else ""
        )
        return f"{self.judge} alone: {self.board._headline()}{extra}"

    def to_frame(self) -> pd.DataFrame:
        return self.board.to_frame()


@dataclass(frozen=True, repr=False)
class AuditBoard(ResultDisplay):
    """Every board of an audit (module docstring).

    Attributes
    ----------
    judges
        ``{judge: JudgeRanking}``.
    human
        The humans-only board, or ``None`` (no labels, or too few to fit).
    calibrated
        The prediction-powered BT estimate, or ``None`` (no labels).
    calibrated_ranks
        Its rank-sets.
    pairs
        Every pair of models on the calibrated board: ``a, b, delta_elo, lo, hi, p, p_holm``
        (``a`` ahead), or on the judge-only board of the only judge when there are no labels.
    alpha
        Level of intervals and rank-sets.
    notes
        What could not be fitted and why.
    """

    judges: dict[str, JudgeRanking]
    human: SandwichElo | None
    calibrated: EloEstimate | None
    calibrated_ranks: RankSets | None
    pairs: pd.DataFrame
    alpha: float
    notes: tuple[str, ...] = field(default=())

    @property
    def reference(self) -> str:
        """Which board the audit reads as the answer: ``calibrated`` or a judge's."""
        if self.calibrated is not None:
            return "calibrated"
        return next(iter(self.judges), "none")

    def _headline(self) -> str:
        if self.calibrated is None:
            return f"judge-only boards of {list(self.judges)} (no human labels to calibrate)"
        r = self.calibrated_ranks
        return (
            f"calibrated board (PPI++ BT, λ = "
            f"{', '.join(f'{x:.2f}' for x in self.calibrated.lam)}) of "
            f"{len(self.calibrated.models)} models: median 95% interval ±"
            f"{np.median(self.calibrated.se) * 1.96:.0f} Elo, mean rank-set size "
            f"{r.size.mean():.2f}, {r.n_tiers} tiers"
        )

    def to_frame(self) -> pd.DataFrame:
        """The board the report shows: calibrated (or the first judge's) beside the others."""
        return self.table()

    def table(self) -> pd.DataFrame:
        """One row per model, best first: the calibrated Elo with its interval, rank-set and
        tier; the humans-only Elo; each judge's Elo and point rank."""
        if self.calibrated is not None:
            est = self.calibrated
            z = _z(self.alpha)
            r = self.calibrated_ranks
            frame = pd.DataFrame(
                {
                    "model": est.models,
                    "elo": est.elo,
                    "elo_lo": est.elo - z * est.se,
                    "elo_hi": est.elo + z * est.se,
                    "se": est.se,
                    "rank_lo": r.rank_lo,
                    "rank_hi": r.rank_hi,
                    "tier": r.tier,
                }
            )
        else:
            first = next(iter(self.judges.values())).board
            frame = first.to_frame().drop(columns=["n_battles"])
        if self.human is not None:
            human = dict(zip(self.human.models, self.human.elo, strict=True))
            frame["human_only_elo"] = frame["model"].map(human)
        for name, jr in self.judges.items():
            b = jr.board
            ranks = dict(zip(b.models, b.rank_sets.rank, strict=True))
            elo = dict(zip(b.models, b.elo, strict=True))
            frame[f"{name}_elo"] = frame["model"].map(elo)
            frame[f"{name}_rank"] = frame["model"].map(ranks)
        return frame.sort_values("elo", ascending=False, ignore_index=True)


def _z(alpha: float) -> float:
    from judgebayes._stats import norm_ppf

    return float(norm_ppf(1 - alpha / 2))


def _pairs(models: tuple[str, ...], elo: np.ndarray, cov: np.ndarray, alpha: float) -> pd.DataFrame:
    """Every pair (a ahead of b) with the normal approximation and Holm's adjustment."""
    i, j = np.triu_indices(len(models), 1)
    swap = elo[i] < elo[j]
    i, j = np.where(swap, j, i), np.where(swap, i, j)
    d = elo[i] - elo[j]
    se = np.sqrt(np.maximum(cov[i, i] + cov[j, j] - 2 * cov[i, j], 0.0))
    z = _z(alpha)
    p = normal_p(d, se)
    frame = pd.DataFrame(
        {
            "a": np.take(models, i),
            "b": np.take(models, j),
            "delta_elo": d,
            "lo": d - z * se,
            "hi": d + z * se,
            "p": p,
            "p_holm": holm_finite(p),
        }
    )
    return frame.sort_values("delta_elo", ignore_index=True)


def _quietly(fn: Callable[..., T], *args: Any, **kwargs: Any) -> tuple[T, list[str]]:
    """Call ``fn`` with the package's graph warnings collected, not shown."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", JudgeBayesWarning)
        out = fn(*args, **kwargs)
    return out, [str(w.message) for w in caught if issubclass(w.category, JudgeBayesWarning)]


def audit_board(inp: AuditInput, *, alpha: float = 0.05, seed: int = 0) -> AuditBoard:
    """Judge-only, humans-only and calibrated boards (module docstring)."""
    data = inp.data
    notes: list[str] = []
    calibrated = ranks = draws = None
    judges_used = [j for j in data.judges if (~np.isnan(data.verdict(j))).any()]
    if inp.has_humans and judges_used:
        # every battle labelled: nothing for the judges to add, the humans' board is the answer
        everyone = bool(data.labelled.all())
        try:
            calibrated, why = _quietly(ppi_bt, data, [] if everyone else judges_used)
            notes += why
        except DataError as err:
            notes.append(f"calibrated board not fitted: {err}")
        if everyone:
            notes.append(
                "every battle carries a human label, so the calibrated board is the humans' "
                "own Bradley–Terry board (the judges have nothing to add)"
            )
    if calibrated is not None:
        board = calibrated.ranking(alpha, n_draws=N_DRAWS, seed=seed)
        ranks, draws = board.rank_sets, board.draws
    human = None
    if inp.has_humans:
        lab = data.labelled
        names = np.asarray(data.models, dtype=object)
        frame = {
            "model_a": names[data.a[lab]],
            "model_b": names[data.b[lab]],
            "human_label": data.human[lab],
        }
        if inp.prompts is not None:
            frame["prompt_id"] = inp.prompts[lab]
        try:
            human, why = _quietly(
                sandwich_bt,
                Battles(pd.DataFrame(frame)),
                target="human_label",
                alpha=alpha,
                seed=seed,
            )
            notes += [f"humans-only board: {w}" for w in why]
        except (DataError, np.linalg.LinAlgError) as err:
            notes.append(f"humans-only board not fitted: {err}")
    judges = {}
    for j in judges_used:
        board, why = _quietly(
            sandwich_bt, inp.judge_battles(j), target="judge_label", alpha=alpha, seed=seed
        )
        notes += [f"{j}'s board: {w}" for w in why]
        misranked: tuple[str, ...] = ()
        tau = scale = None
        if calibrated is not None:
            mine = dict(zip(board.models, board.rank_sets.rank, strict=True))
            misranked = tuple(
                m
                for m, lo, hi in zip(ranks.models, ranks.rank_lo, ranks.rank_hi, strict=True)
                if m in mine and not lo <= mine[m] <= hi
            )
            common = [m for m in calibrated.models if m in board.models]
            k = [calibrated.models.index(m) for m in common]
            x = np.array([board.elo[board.models.index(m)] for m in common])
            y = calibrated.elo[k]
            tau = from_replicates(
                "Kendall τ",
                float(kendall_tau(x, y[None])[0]),
                kendall_tau(x, draws[:, k]),
                alpha=alpha,
                method="normal draws",
            )
            scale = from_replicates(
                "Elo spread ratio",
                float(x.std() / y.std()),
                x.std() / draws[:, k].std(axis=1),
                alpha=alpha,
                method="normal draws",
            )
        judges[j] = JudgeRanking(j, board, misranked, tau, scale)
    if calibrated is not None:
        pairs = _pairs(calibrated.models, calibrated.elo, calibrated.cov, alpha)
    elif judges:
        first = next(iter(judges.values())).board
        pairs = _pairs(first.models, first.elo, first.cov, alpha)
    else:
        pairs = pd.DataFrame(columns=["a", "b", "delta_elo", "lo", "hi", "p", "p_holm"])
    return AuditBoard(judges, human, calibrated, ranks, pairs, alpha, tuple(notes))
