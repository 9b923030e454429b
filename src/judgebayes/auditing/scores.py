"""Judges that give scores: is the score difference a calibrated confidence? (Soft-Elo.)

Kargi & Salinas (*From Uncertain Judgments to Calibrated Rankings: Conformal Elo
Estimation for LLM Evaluation*, 2026) turn a judge's score difference s into the soft
target σ(β·s), β fitted on the human labels (Eq. 6, :func:`~judgebayes.fit_temperature`).
Their Appendix G reads σ(β|s|) as the probability that the judge's chosen side is the
humans' and reports its expected calibration error over ten equal-mass bins (Table 7:
ECE above 0.07 is a calibration breakdown). The interval of the ECE here is a bootstrap over
the decisive labelled battles with β held at its estimate (the reliability table of each
resample, :func:`~judgebayes.softelo.diagnostics.reliability`).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.special import expit

from judgebayes.auditing.estimates import Estimate, from_replicates
from judgebayes.core.battles import Battles
from judgebayes.core.results import ResultDisplay
from judgebayes.errors import DataError
from judgebayes.softelo.diagnostics import reliability
from judgebayes.softelo.temperature import Temperature, fit_temperature

__all__ = ["ScoreCalibration", "score_calibration"]


@dataclass(frozen=True, repr=False)
class ScoreCalibration(ResultDisplay):
    """β, the reliability curve and the ECE of one judge's scores.

    Attributes
    ----------
    judge
        The judge.
    temperature
        The fitted :class:`~judgebayes.softelo.Temperature` (β, its profile interval, the
        reliability table, the agreement-by-|s| table, the low-signal flag).
    beta
        β̂ with its profile-likelihood interval.
    ece
        ECE with its bootstrap interval (β fixed).
    """

    judge: str
    temperature: Temperature
    beta: Estimate
    ece: Estimate

    def _headline(self) -> str:
        return f"{self.judge}: β = {self.beta.text(3)}, ECE = {self.ece.text(3)}"

    def to_frame(self) -> pd.DataFrame:
        return self.temperature.reliability.assign(judge=self.judge)


def score_calibration(
    battles: Battles, judge: str, *, alpha: float = 0.05, n_boot: int = 500, seed: int = 0
) -> ScoreCalibration | None:
    """β and ECE of ``judge``'s score differences (module docstring).

    ``battles`` is the judge's table with ``score_diff``, ``judge_label`` and (on some)
    ``human_label``; ``None`` when too few human labels fit β.
    """
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the low-signal warning: reported as a finding
            temp = fit_temperature(battles, alpha=alpha)
    except DataError:
        return None
    s = np.asarray(battles.column("score_diff"), float)
    y = np.asarray(battles.column("human_label"), float)
    jl = np.asarray(battles.column("judge_label"), float)
    decisive = np.isin(jl, [0.0, 1.0]) & np.isin(y, [0.0, 1.0]) & (s != 0)
    p = expit(temp.beta * np.abs(s[decisive]))
    agree = (jl[decisive] == y[decisive]).astype(float)
    rng = np.random.default_rng(seed)
    reps = np.empty(n_boot)
    for k in range(n_boot):
        idx = rng.integers(0, len(p), len(p))
        reps[k] = reliability(p[idx], agree[idx])[1]
    beta = Estimate("beta", temp.beta, temp.ci[0], temp.ci[1], np.nan, alpha, "profile")
    ece = from_replicates("ECE", temp.ece, reps, alpha=alpha)
    return ScoreCalibration(judge, temp, beta, ece)
