"""Several LLM judges rating the same arena: the multi-judge Bradley–Terry story.

Used by the hierarchical multi-judge model (:mod:`judgebayes.bayes.multi_judge`) and
its catalogue entry; the judges differ in discrimination ψ, idiosyncratic deviations
δ (scale τ) and self-preference η.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from judgebayes.core.battles import Battles
from judgebayes.core.bt import theta_to_elo
from judgebayes.simulate.arena import (
    SimulatedArena,
    davidson_probs,
    draw_pairs,
    draw_strengths,
    model_names,
)

__all__ = ["simulate_judges"]


def simulate_judges(
    n_models: int = 10,
    n_judges: int = 4,
    n_battles: int = 2000,
    *,
    elo_sd: float = 100.0,
    psi: np.ndarray | None = None,
    tau: float = 0.0,
    eta: np.ndarray | None = None,
    own_model: dict[str, str] | None = None,
    tie_nu: float = 0.0,
    seed: int = 0,
) -> SimulatedArena:
    """Several judges rating the same kind of battles (the multi-judge BT story).

    Judge k's verdict on i vs j follows the Davidson model with strength gap
    ψ_k (θ_i − θ_j) + δ_{k,i} − δ_{k,j} + η_k·self_k(i, j)
    (:mod:`judgebayes.bayes.multi_judge`).

    Parameters
    ----------
    n_models, n_judges
        Sizes; judges are named ``judge-0``, ``judge-1``, ...
    n_battles
        Battles per judge.
    elo_sd
        Standard deviation of the true Elo ratings.
    psi
        Judge discriminations (default: evenly spread from 0.5 to 1.5).
    tau
        Standard deviation of the judge-specific deviations δ.
    eta
        Self-preference of each judge (default 0).
    own_model
        ``{judge: model}``: each judge's own model, for the self-preference term.
    tie_nu
        Davidson tie parameter (0: no ties).
    seed
        Random seed.

    Returns
    -------
    SimulatedArena
        Battles with a ``judge`` column and ``judge_label``; ``params`` holds ψ, δ, η.
    """
    rng = np.random.default_rng(seed)
    names = np.asarray(model_names(n_models))
    judges = [f"judge-{k}" for k in range(n_judges)]
    theta = draw_strengths(n_models, elo_sd, rng)
    psi = np.linspace(0.5, 1.5, n_judges) if psi is None else np.asarray(psi, float)
    eta = np.zeros(n_judges) if eta is None else np.asarray(eta, float)
    delta = (
        rng.normal(0.0, tau, (n_judges, n_models)) if tau > 0 else np.zeros((n_judges, n_models))
    )
    delta -= delta.mean(axis=1, keepdims=True)
    frames = []
    for k, judge in enumerate(judges):
        a, b = draw_pairs(n_models, n_battles, rng)
        own = (own_model or {}).get(judge)
        self_pref = (names[a] == own).astype(float) - (names[b] == own).astype(float)
        gap = psi[k] * (theta[a] - theta[b]) + delta[k, a] - delta[k, b] + eta[k] * self_pref
        win, tie, _ = davidson_probs(gap, tie_nu)
        u = rng.random(n_battles)
        label = np.where(u < win, 1.0, np.where(u < win + tie, 0.5, 0.0))
        frames.append(
            pd.DataFrame(
                {"model_a": names[a], "model_b": names[b], "judge": judge, "judge_label": label}
            )
        )
    truth = pd.DataFrame({"model": names, "theta": theta, "elo": theta_to_elo(theta)})
    params = {
        "psi": psi,
        "delta": delta,
        "eta": eta,
        "tau": tau,
        "tie_nu": tie_nu,
        "judges": judges,
        "seed": seed,
    }
    return SimulatedArena(Battles(pd.concat(frames, ignore_index=True)), truth, params)
