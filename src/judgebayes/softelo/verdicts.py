r"""Soft targets for a judge that gives verdicts, not scores: one per verdict class.

Soft-Elo (Kargi & Salinas, "From Uncertain Judgments to Calibrated Rankings: Conformal Elo
Estimation for LLM Evaluation", 2026) replaces a battle's hard label by the calibrated
probability that humans prefer A given the judge's score difference, ỹ = σ(β s) (Eq. 5),
with β fitted on human labels (Eq. 6). A judge that only says "A", "tie" or "B" has no
score, but the same calibration exists class by class:

    ỹ_c = P̂(humans prefer the response shown first | the judge's verdict c),

the mean human outcome (1 = first wins, ½ = tie, 0 = second wins) over the human-labelled
battles whose verdict, read in the order the responses were shown, is c, shrunk towards
the labelled mean with ``prior_count`` pseudo-battles. The table is
:func:`judgebayes.rankings.verdict_calibration` (the estimator of
:mod:`judgebayes.rankings.soft_targets`, used here as it is); this module only puts a
:class:`~judgebayes.core.battles.Battles` table of one judge into the order the responses
were shown (``position``: ``"a"`` when ``model_a`` was shown first, ``"b"`` when
``model_b`` was), so that the class is (verdict, position) as the judge saw it, and turns
the table back into per-battle targets P(model_a beats model_b).

Human ties: ``ties="half"`` (default) keeps them as ½, so ỹ_c is the conditional mean of
the very target the human Bradley–Terry fit uses (ties ½, Eq. 1); ``ties="exclude"``
drops them, as Eq. 6 does for β, giving P̂(first preferred | c, humans not tied).

The held-out protocol (:func:`~judgebayes.softelo.held_out.held_out_elo`,
``methods=("verdict", ...)``) refits the table in every fold without the held-out model's
battles (Algorithm 1, lines 3–5, with the class table in place of β).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from judgebayes.core.battles import Battles
from judgebayes.core.results import ResultDisplay
from judgebayes.errors import DataError
from judgebayes.rankings.data import OUTCOMES, RankingData, outcome_codes
from judgebayes.rankings.soft_targets import verdict_calibration

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["VerdictCalibration", "VerdictClasses", "calibrate_verdicts"]

_JUDGE = "judge"  # the one verdict column of the RankingData built here
TIES = ("half", "exclude")


@dataclass(frozen=True, repr=False)
class VerdictCalibration(ResultDisplay):
    """P̂(humans prefer the response shown first | the judge's verdict), per verdict class.

    Attributes
    ----------
    table
        One row per class (``A``: the judge picked the response shown first, ``tie``,
        ``B``): ``verdict``, ``n_labelled`` (human-labelled battles of the class used),
        ``n_judge_only`` (the class's other judged battles) and ``p_a`` (the soft
        target ỹ_c), from :func:`judgebayes.rankings.verdict_calibration`.
    ties
        ``"half"`` or ``"exclude"``: how human ties entered the table.
    prior_count
        Pseudo-battles m shrinking each class towards the labelled mean.
    """

    table: pd.DataFrame
    ties: str
    prior_count: float

    @property
    def p(self) -> np.ndarray:
        """ỹ_c in the order of :data:`judgebayes.rankings.OUTCOMES` (A, tie, B)."""
        return self.table.set_index("verdict").loc[list(OUTCOMES), "p_a"].to_numpy(float)

    def _headline(self) -> str:
        cells = ", ".join(
            f"{v} {p:.3f}" for v, p in zip(self.table["verdict"], self.table["p_a"], strict=True)
        )
        return (
            f"P(humans prefer the first shown | verdict): {cells} on "
            f"{int(self.table['n_labelled'].sum()):,} labelled battles (ties {self.ties})"
        )

    def to_frame(self) -> pd.DataFrame:
        """The per-class table (see ``table``)."""
        return self.table.copy()

    def __str__(self) -> str:
        return f"{self._headline()}\n" + self.table.to_string(index=False, float_format="%.3f")

    def plot(self, ax: Axes | None = None) -> Axes:
        """The soft target of each verdict class (bars, labelled battles above them),
        against the hard labels 1, ½, 0 the same verdicts give Hard-Elo (ticks)."""
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(4, 3.2))
        x = np.arange(len(self.table))
        ax.bar(x, self.table["p_a"], color="#c2185b", width=0.6, label="soft target ỹ_c")
        hard = self.table["verdict"].map({"A": 1.0, "tie": 0.5, "B": 0.0})
        ax.plot(x, hard, "_", color="#1f5fa8", ms=30, mew=2, label="hard label")
        for xi, (p, n) in enumerate(zip(self.table["p_a"], self.table["n_labelled"], strict=True)):
            ax.annotate(f"n={n:,}", (xi, p), ha="center", va="bottom", fontsize=8)
        ax.set_xticks(x, [f"judge: {v}" for v in self.table["verdict"]])
        ax.set(ylim=(-0.04, 1.08), ylabel="P(humans prefer the first shown)")
        ax.legend(frameon=False, fontsize=8, loc="upper right", bbox_to_anchor=(1, 0.93))
        return ax


class VerdictClasses:
    """One judge's battles in the order shown, ready to calibrate verdict classes.

    Built once (:meth:`from_battles`), calibrated as often as a protocol needs
    (:meth:`calibrate` with the battles to leave out, e.g. a held-out model's), each
    calibration turned into per-battle targets by :meth:`targets`.

    Parameters
    ----------
    models
        Model names; ``a`` and ``b`` index into them.
    a, b
        ``model_a`` and ``model_b`` of every battle.
    judge, human
        The judge's verdict and the human label, P(model_a beats model_b) ∈ {1, ½, 0},
        NaN where missing.
    shown_second
        True where ``model_a`` was shown second (``position == "b"``); ``None``: ``model_a``
        was always shown first.
    ties
        ``"half"`` or ``"exclude"`` (module docstring).
    """

    def __init__(
        self,
        models: tuple[str, ...],
        a: np.ndarray,
        b: np.ndarray,
        judge: np.ndarray,
        human: np.ndarray,
        *,
        shown_second: np.ndarray | None = None,
        ties: str = "half",
    ) -> None:
        if ties not in TIES:
            raise ValueError(f"ties must be 'half' or 'exclude', got {ties!r}")
        a, b = np.asarray(a), np.asarray(b)
        judge, human = np.asarray(judge, float), np.asarray(human, float)
        flip = np.zeros(len(a), bool) if shown_second is None else np.asarray(shown_second, bool)
        if ties == "exclude":
            human = np.where(human == 0.5, np.nan, human)
        names = np.asarray(models, dtype=object)
        first, second = np.where(flip, b, a), np.where(flip, a, b)
        self.flip, self.ties = flip, ties
        # "A" is the response shown first: the class the judge saw
        self.data = RankingData.from_arrays(
            names[first],
            names[second],
            np.where(flip, 1 - human, human),
            {_JUDGE: np.where(flip, 1 - judge, judge)},
            models=models,
        )
        self.codes = outcome_codes(self.data.verdicts[:, 0])

    @classmethod
    def from_battles(
        cls,
        battles: Battles,
        *,
        judge: str = "judge_label",
        human: str | None = "human_label",
        ties: str = "half",
    ) -> VerdictClasses:
        """The battles of one judge (``judge`` and ``human`` columns, optional ``position``);
        ``human=None``: battles without human labels (to be given targets only)."""
        if battles.judges and len(battles.judges) > 1:
            raise DataError(
                f"verdict classes are per judge; this table has {len(battles.judges)} "
                f"judges: pick one with battles.for_judge(name)",
                column="judge",
            )
        a, b = battles.codes()
        shown_second = (
            np.asarray(battles.column("position")) == "b" if "position" in battles else None
        )
        return cls(
            battles.models,
            a,
            b,
            battles.column(judge),
            np.full(len(a), np.nan) if human is None else battles.column(human),
            shown_second=shown_second,
            ties=ties,
        )

    def calibrate(
        self, exclude: np.ndarray | None = None, *, prior_count: float = 1.0
    ) -> VerdictCalibration:
        """The class table on the human labels of the battles not in ``exclude``.

        Parameters
        ----------
        exclude
            Battles whose human label must not enter the table (Algorithm 1, line 3: the
            held-out model's); ``None``: every labelled battle is used.
        prior_count
            Pseudo-battles m of :func:`judgebayes.rankings.verdict_calibration`.
        """
        data = self.data if exclude is None else self.data.hide_human(~np.asarray(exclude))
        table = verdict_calibration(data, _JUDGE, prior_count=prior_count)
        return VerdictCalibration(
            table.rename(columns={_JUDGE: "verdict"}), ties=self.ties, prior_count=prior_count
        )

    def targets(self, calibration: VerdictCalibration) -> np.ndarray:
        """ỹ of every battle as P(model_a beats model_b); NaN where the judge gave none."""
        p = np.append(calibration.p, np.nan)  # code −1 (no verdict) → NaN
        first = p[self.codes]
        return np.where(self.flip, 1 - first, first)


def calibrate_verdicts(
    battles: Battles,
    *,
    judge: str = "judge_label",
    human: str = "human_label",
    ties: str = "half",
    prior_count: float = 1.0,
) -> VerdictCalibration:
    """P̂(humans prefer the response shown first | the judge's verdict) on every human label.

    The soft targets of a verdict-only judge (module docstring); the held-out protocol
    refits the same table per fold (``held_out_elo(methods=("verdict",))``).

    Parameters
    ----------
    battles
        One judge's battles with ``judge`` verdicts and (some) ``human`` labels, optional
        ``position``.
    judge, human
        Columns of the judge's verdict and the human label.
    ties
        ``"half"``: human ties as ½ (the human Elo's own target); ``"exclude"``: dropped.
    prior_count
        Pseudo-battles m shrinking each class towards the labelled mean.
    """
    classes = VerdictClasses.from_battles(battles, judge=judge, human=human, ties=ties)
    return classes.calibrate(prior_count=prior_count)
