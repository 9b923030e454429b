"""Which strengths the Bradley–Terry and Davidson MAP solvers move, and where they start.

The likelihood of Eq. 1 of Kargi & Salinas (*From Uncertain Judgments to Calibrated
Rankings*; the Bradley–Terry MAP of :mod:`~judgebayes.core.bt`) depends on strength
differences only, so without a penalty (λ = 0) and without anchors one strength must be
held for the MAP to be unique: the solvers hold the first model's and centre the
strengths afterwards (mean 0, the scale every fit reports). Anchors (``fixed``) are held
at their given strengths instead; with λ > 0 and no anchors the penalty λ‖θ‖² identifies
the scale and every model is free. :func:`~judgebayes.core.bt.solve_map`,
:func:`~judgebayes.core.davidson.solve_davidson` and the bootstrap's refits
(:func:`~judgebayes.core.bootstrap.bootstrap_bt`) share this rule.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

__all__ = ["held_models", "map_start"]


def held_models(lam: float, fixed: Mapping[int, float]) -> list[int]:
    """The models whose strength a MAP fit holds: the anchors, or the first model.

    Parameters
    ----------
    lam
        The ridge penalty λ of Eq. 1.
    fixed
        Anchors: model index → strength (θ scale).

    Returns
    -------
    list of int
        The anchors' indices, sorted, when there are anchors; ``[0]`` when there are
        none and λ = 0 (the scale is then unidentified); ``[]`` otherwise.
    """
    if fixed:
        return sorted(fixed)
    return [0] if lam == 0 else []


def map_start(
    n_models: int,
    lam: float,
    fixed: Mapping[int, float],
    theta0: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, bool]:
    """A MAP solver's starting strengths, its free models and whether to centre after.

    Parameters
    ----------
    n_models
        How many models.
    lam
        The ridge penalty λ of Eq. 1.
    fixed
        Anchors: model index → strength (θ scale).
    theta0
        Starting strengths (zeros when ``None``); copied, never changed.

    Returns
    -------
    theta : numpy.ndarray
        A new array of the starting strengths with the anchors set to ``fixed``.
    free : numpy.ndarray
        The indices of the models the solver moves (all but :func:`held_models`).
    pin_first : bool
        Whether the first model is held only to fix the scale (λ = 0, no anchors): the
        solver then centres the strengths it found.
    """
    theta = np.zeros(n_models) if theta0 is None else np.array(theta0, dtype=float)
    for k, v in fixed.items():
        theta[k] = v
    free = np.setdiff1d(np.arange(n_models), held_models(lam, fixed))
    return theta, free, lam == 0 and not fixed
