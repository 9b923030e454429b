"""The whole Soft-Elo pipeline in one call: temperature, held-out Elo, conformal intervals.

Kargi & Salinas, *From Uncertain Judgments to Calibrated Rankings: Conformal Elo Estimation for LLM
Evaluation* (2026, arXiv:2606.13221).

:func:`run_softelo` fits β (:func:`~judgebayes.softelo.temperature.fit_temperature`) or,
for a judge that gives verdicts and no scores, the verdict-class table
(:func:`~judgebayes.softelo.verdicts.calibrate_verdicts`), runs the held-out protocol
(:func:`~judgebayes.softelo.held_out.held_out_elo`) and compares the methods'
split-conformal intervals (:func:`~judgebayes.softelo.intervals.conformal_comparison`);
:class:`SoftEloResult` holds the results, Tables 2 and 3 of Kargi & Salinas (2026) in one frame, and
their figure.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from judgebayes.core.battles import Battles
from judgebayes.core.results import ResultDisplay
from judgebayes.softelo.held_out import HeldOutElo, held_out_elo
from judgebayes.softelo.intervals import ConformalComparison, conformal_comparison
from judgebayes.softelo.temperature import Temperature, fit_temperature

if TYPE_CHECKING:
    from matplotlib.axes import Axes

    from judgebayes.softelo.verdicts import VerdictCalibration

__all__ = ["SoftEloResult", "run_softelo"]


@dataclass(frozen=True, repr=False)
class SoftEloResult(ResultDisplay):
    """The whole Soft-Elo pipeline on one judge: temperature, held-out Elo, conformal.

    Attributes
    ----------
    temperature
        β* and its calibration diagnostics (``None`` without the ``soft`` method).
    held
        Held-out Elo of every model and method.
    conformal
        Split-conformal comparison of the methods on the same splits.
    verdicts
        The verdict-class table on every calibration label (with the ``verdict``
        method; the held-out protocol refits it per fold).
    """

    temperature: Temperature | None
    held: HeldOutElo
    conformal: ConformalComparison
    verdicts: VerdictCalibration | None = None

    def summary(self) -> pd.DataFrame:
        """Tables 2 and 3 of Kargi & Salinas (2026) in one frame: per method MAE, ρ, Δρ, width,
        coverage."""
        return self.held.summary().merge(self.conformal.table, on="method")

    def _headline(self) -> str:
        table = self.summary()

        def chain(column: str, fmt: str, sep: str = " → ") -> str:
            return sep.join(format(v, fmt) for v in table[column])

        calibration = (
            f"β = {self.temperature.beta:.3f} on {self.temperature.n} human labels; "
            if self.temperature is not None
            else ""
        )
        if self.verdicts is not None:
            p = self.verdicts.p
            calibration += f"P(first preferred | A, tie, B) = {p[0]:.2f}, {p[1]:.2f}, {p[2]:.2f}; "
        return (
            calibration + f"{len(self.held.table)} models, {chain('method', 's', ' vs ')}: MAE "
            f"{chain('mae', '.0f')} Elo, {self.conformal.conformal} conformal width "
            f"{chain('median_width', '.0f')} Elo, coverage {chain('coverage', '.2f', ' / ')}"
            + ("" if self.conformal.note is None else " (UNBOUNDED: too few calibration models)")
        )

    def to_frame(self) -> pd.DataFrame:
        """:meth:`summary`."""
        return self.summary()

    def __str__(self) -> str:
        note = self.conformal.note
        calibration = [str(c) for c in (self.temperature, self.verdicts) if c is not None]
        signal = (
            "" if np.isnan(self.held.mean_abs_s) else f", mean |s| = {self.held.mean_abs_s:.2f}"
        )
        return (
            "\n".join(calibration)
            + f"\nκ = {self.held.kappa:.3f}{signal}; {self.conformal.design}\n"
            + self.summary().to_string(index=False, float_format="%.3f")
            + ("" if note is None else f"\nnote: {note}")
        )

    def plot(self, axes: Sequence[Axes] | np.ndarray | None = None) -> np.ndarray:
        """Reliability diagram (the verdict-class table without ``soft``), held-out arrows,
        residual ramp and conformal intervals.

        Parameters
        ----------
        axes
            Four axes to draw into, in that order (a new 2 × 3 figure, the intervals
            across its bottom row, when ``None``).

        Returns
        -------
        numpy.ndarray
            The four axes.
        """
        from judgebayes.plots import quartile_residual_plot

        if axes is None:
            import matplotlib.pyplot as plt

            fig = plt.figure(figsize=(11, 7.5))
            grid = fig.add_gridspec(2, 3)
            panels = [fig.add_subplot(grid[0, k]) for k in range(3)]
            panels.append(fig.add_subplot(grid[1, :]))
        else:
            fig, panels = None, list(np.ravel(axes))
            if len(panels) != 4:
                raise ValueError(f"SoftEloResult.plot draws 4 panels, got {len(panels)} axes")
        if self.temperature is not None:
            self.temperature.plot(ax=panels[0])
        elif self.verdicts is not None:
            self.verdicts.plot(ax=panels[0])
        soft = "soft" if "soft" in self.held.methods else "verdict"
        self.held.plot(ax=panels[1], end=soft)
        quartile_residual_plot(self.held.residual_by_quartile(), ax=panels[2])
        methods = tuple(m for m in ("hard", soft) if m in self.held.methods)
        self.conformal.plot(self.held, ax=panels[3], methods=methods)
        if fig is not None:
            fig.tight_layout()
        out = np.empty(4, dtype=object)
        out[:] = panels
        return out


def run_softelo(
    battles: Battles,
    *,
    methods: Sequence[str] = ("hard", "soft"),
    lam: float = 0.01,
    n_boot: int = 20,
    alpha: float = 0.1,
    n_calibration: int | None = None,
    n_splits: int = 5,
    seed: int = 0,
    conformal: str = "split",
    calibrate_on: str | None = None,
    verdict_ties: str = "half",
    progress: bool = True,
) -> SoftEloResult:
    """Temperature (Eq. 6), held-out Elo (Algorithm 1) and conformal intervals in one call.

    Parameters are those of :func:`~judgebayes.softelo.temperature.fit_temperature`,
    :func:`~judgebayes.softelo.held_out.held_out_elo` and
    :func:`~judgebayes.softelo.intervals.conformal_comparison`; ``conformal`` is the
    latter's ``method``: ``"split"`` (the paper's random model splits, Section 5.3) or
    ``"jackknife+"`` (leave-one-model-out over all models; finite with few models).
    β is fitted only with the ``soft`` method, the verdict-class table
    (:func:`~judgebayes.softelo.verdicts.calibrate_verdicts`) only with ``verdict``, both
    on the ``calibrate_on`` labels (default: ``human_label``).
    """
    human = calibrate_on or "human_label"
    temperature = fit_temperature(battles, human=human) if "soft" in methods else None
    verdicts = None
    if "verdict" in methods:
        from judgebayes.softelo.verdicts import calibrate_verdicts  # loads rankings

        verdicts = calibrate_verdicts(battles, human=human, ties=verdict_ties)
    held = held_out_elo(
        battles,
        methods=methods,
        lam=lam,
        n_boot=n_boot,
        calibrate_on=calibrate_on,
        verdict_ties=verdict_ties,
        seed=seed,
        progress=progress,
    )
    conformal = conformal_comparison(
        held,
        alpha=alpha,
        n_calibration=n_calibration,
        n_splits=n_splits,
        seed=seed,
        method=conformal,
    )
    return SoftEloResult(temperature, held, conformal, verdicts)
