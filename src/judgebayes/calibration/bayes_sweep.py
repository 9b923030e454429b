"""The Bayesian calibration designs on the Section 5 simulations (Figure 1's sweeps).

:func:`sweep_bayes` measures coverage and bias of the posterior of Δθ = θ_B − θ_A
under each design of :mod:`judgebayes.calibration.designs` on the simulations of
:func:`judgebayes.calibration.sweep.simulate_sweep`, for comparison with the
paired-bootstrap estimators (:func:`~judgebayes.calibration.sweep.plot_sweep` draws
both).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from judgebayes.bayes.inference import fit
from judgebayes.calibration.designs import DESIGNS, _design_dims
from judgebayes.calibration.sweep import Sweep, _summarise, pair_cell_probs

__all__ = ["sweep_bayes"]


def _sweep_rows(cal: np.ndarray, test: np.ndarray) -> dict[str, Any]:
    """Weighted rows of the two-model cell counts of ``r`` replications."""
    r = len(cal)
    c = cal.reshape(r, 2, 2, 2, 2)  # z_a, h_a, z_b, h_b
    t = test.reshape(r, 2, 2)  # h_a, h_b
    cal_m = np.stack([c.sum(axis=(3, 4)), c.sum(axis=(1, 2))], axis=1)  # (r, model, z, h)
    test_m = np.stack([t.sum(axis=2), t.sum(axis=1)], axis=1)  # (r, model, h)
    rep, mod, z, h = np.indices(cal_m.shape).reshape(4, -1)
    w_cal = cal_m.ravel()
    rep2, mod2, h2 = np.indices(test_m.shape).reshape(3, -1)
    w_test = test_m.ravel()
    keep, keep2 = w_cal > 0, w_test > 0
    model = np.concatenate([2 * rep[keep] + mod[keep], 2 * rep2[keep2] + mod2[keep2]])
    return {"model_idx": model.astype(np.int32), "n_runs": np.ones(len(model), np.int32),
            "n_cal": int(keep.sum()), "n_models": 2 * r,
            "group": np.repeat(np.arange(r), 2).astype(np.int32), "n_groups": r,
            "weight": np.concatenate([w_cal[keep], w_test[keep2]]).astype(float),
            "human_label": z[keep].astype(np.int32),
            "judge_label": np.concatenate([h[keep], h2[keep2]]).astype(np.int32)}


def sweep_bayes(*, delta_j_values: Sequence[float] = (0.0, 0.15, 0.3),
                j_a_values: Sequence[float] = (), fixed_delta_j: float = 0.05,
                fixed_j_a: float = 0.3, theta_a: float = 0.70, delta_theta: float = 0.05,
                n_cal: int = 400, n_test: int = 800, corr: float = 0.5,
                designs: Sequence[str] = tuple(DESIGNS), n_reps: int = 50, chains: int = 2,
                draws: int = 500, warmup: int = 500, alpha: float = 0.05, seed: int = 0,
                progress: bool = True) -> Sweep:
    """Coverage and bias of the posterior of Δθ = θ_B − θ_A on the Section 5 simulations.

    Same simulation as :func:`judgebayes.calibration.sweep.simulate_sweep`. All
    ``n_reps`` replications of a sweep point are fitted in *one* NUTS run: each
    replication is a group of two models with its own parameters, and rows stand
    for identical items through ``weight`` (multiplicities), so the likelihood costs
    O(cells), not O(items). Point estimate: posterior median; interval:
    equal-tailed ``1 − alpha`` credible interval.

    Returns
    -------
    Sweep
        ``estimator`` is ``"bayes_<design>"``; ``n_failed`` counts divergent
        transitions of the joint run (not replications).
    """
    points = ([("J_A", float(j), float(j), float(fixed_delta_j)) for j in j_a_values]
              + [("delta_J", float(d), float(fixed_j_a), float(d)) for d in delta_j_values])
    theta = (theta_a, theta_a + delta_theta)
    rngs = np.random.default_rng(seed).spawn(len(points))
    rows = []
    with tqdm(total=len(points) * len(designs), desc="bayes sweep", unit="fit",
              disable=not progress) as bar:
        for (sweep, x, ja, dj), rng in zip(points, rngs, strict=True):
            q = ((1 + ja) / 2, (1 + ja + dj) / 2)
            pcal, ptest = pair_cell_probs(theta, q, q, corr)
            data = _sweep_rows(rng.multinomial(n_cal, pcal, size=n_reps),
                               rng.multinomial(n_test, ptest, size=n_reps))
            for design in designs:
                idata = fit(DESIGNS[design], data, method="nuts", chains=chains, draws=draws,
                            warmup=warmup, seed=int(rng.integers(2**31)), progress=False,
                            target_accept=0.9, dims=_design_dims(design),
                            coords={"model": np.arange(2 * n_reps),
                                    "group": np.arange(n_reps)})
                th = idata.posterior["theta"].values.reshape(-1, 2 * n_reps)
                d = th[:, 1::2] - th[:, 0::2]
                lo, med, hi = np.quantile(d, [alpha / 2, 0.5, 1 - alpha / 2], axis=0)
                summary = _summarise(med, lo, hi, np.zeros(n_reps, bool), delta_theta)
                summary["n_failed"] = int(idata.sample_stats["diverging"].sum())
                rows.append({"sweep": sweep, "x": x, "J_A": ja, "J_B": ja + dj,
                             "estimator": f"bayes_{design}", **summary})
                bar.update(1)
    settings = {"theta_a": theta_a, "delta_theta": delta_theta, "n_cal": n_cal,
                "n_test": n_test, "corr": corr, "shared_from": "none", "n_reps": n_reps,
                "n_boot": chains * draws, "alpha": alpha, "seed": seed,
                "fixed_delta_j": fixed_delta_j, "fixed_j_a": fixed_j_a}
    return Sweep(pd.DataFrame(rows), settings)
