"""The Bayesian calibration designs on the Section 5 simulations (Figure 1's sweeps).

:func:`sweep_bayes` measures coverage and bias of the posterior of Δθ = θ_B − θ_A
under each design of :mod:`judgebayes.calibration.designs` (the paired designs of
:mod:`judgebayes.calibration.paired` included) on the simulations of
:func:`judgebayes.calibration.sweep.simulate_sweep`, for comparison with the
paired-bootstrap estimators (:func:`~judgebayes.calibration.sweep.plot_sweep` draws
both); ``frequentist=("ppi_2x", ...)`` runs those estimators on the *same*
replications, so that interval widths compare at equal data.

Mean 95% interval width and coverage of Δθ at equal data (δ = 0.05, θ_A = 0.70,
J_A = 0.3, ΔJ ∈ {0, 0.3}, 400 calibration and 800 test items, 200 replications per
cell; NUTS 1 chain × 500 draws after 500 warm-up per joint run, 1,000 paired-bootstrap
replicates for PPI++ 2×; ``python -m judgebayes.calibration.bayes_sweep``, its run time
in ``docs/benchmarks.md``; coverage Monte Carlo SE ≈ 0.015)::

                          width                      coverage
    latent correlation    0.5           0.0          0.5           0.0
    ΔJ                    0.0    0.3    0.0    0.3   0.0    0.3    0.0    0.3
    bayes_shared          0.113  0.106  0.115  0.105  0.965  0.735  0.970  0.735
    bayes_model_specific  0.118  0.114  0.118  0.114  0.970  0.970  0.955  0.930
    bayes_hierarchical    0.119  0.114  0.119  0.113  0.980  0.960  0.960  0.925
    bayes_paired          0.100  0.097  0.119  0.114  0.950  0.940  0.950  0.930
    ppi_2x                0.101  0.099  0.121  0.115  0.955  0.940  0.955  0.930

Correlated models: the paired design's intervals are the narrowest of the sound
estimators (1–2% narrower than PPI++ 2×'s on the same data) at nominal coverage, the
row designs' ≈ 15–18% wider than PPI++ 2×'s and over-covering (shared: biased at
ΔJ = 0.3). Independent models: the paired design matches the model-specific design
(widths within 0.001) and PPI++ 2×. ``paired_hierarchical`` is left out of the table:
with 200 two-model groups in one joint run its τ funnels make NUTS too slow for the
sweep (``docs/benchmarks.md``). On 50 replications (correlated,
ΔJ = 0, 1 chain × 300 draws, seed 0) it gave width 0.100 and coverage 0.96, against
0.099 / 0.96 for ``paired`` and 0.102 / 0.96 for PPI++ 2× on the same data.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import jax
import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from judgebayes.bayes.engine.model import CompiledModel
from judgebayes.calibration.bootstrap import N_CAL_SUMS, N_TEST_SUMS, estimates_from_sums
from judgebayes.calibration.designs import DESIGNS
from judgebayes.calibration.paired import PAIRED_DESIGNS
from judgebayes.calibration.sweep import (
    CAL_CELLS,
    TEST_CELLS,
    Sweep,
    cell_features,
    difference_summary,
    pair_cell_probs,
    summarise_replications,
)

__all__ = ["sweep_bayes"]

_FREQUENTIST = ("naive", "rg", "rg_2x", "ppi_2x")


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
    # Empty cells are kept with weight 0: the shapes depend on r only, so every sweep
    # point of r replications reuses one compiled NUTS kernel per design.
    keep, keep2 = np.ones(w_cal.shape, bool), np.ones(w_test.shape, bool)
    model = np.concatenate([2 * rep[keep] + mod[keep], 2 * rep2[keep2] + mod2[keep2]])
    return {
        "model_idx": model.astype(np.int32),
        "n_runs": np.ones(len(model), np.int32),
        "n_cal": int(keep.sum()),
        "n_models": 2 * r,
        "group": np.repeat(np.arange(r), 2).astype(np.int32),
        "n_groups": r,
        "weight": np.concatenate([w_cal[keep], w_test[keep2]]).astype(float),
        "human_label": z[keep].astype(np.int32),
        "judge_label": np.concatenate([h[keep], h2[keep2]]).astype(np.int32),
    }


def _sweep_items(cal: np.ndarray, test: np.ndarray) -> dict[str, Any]:
    """Weighted items (one row per item, two model slots) of ``r`` replications.

    The arguments of the paired designs: calibration cells (Z_A, Ẑ_A, Z_B, Ẑ_B) and
    test cells (Ẑ_A, Ẑ_B) with their counts as weights, replication r in group r.
    """
    r = len(cal)
    # Every cell of every replication, empty ones with weight 0: the shapes depend on r
    # only, so every sweep point (and every sweep) of r replications reuses one compiled
    # NUTS kernel.
    rep_c, cell_c = np.nonzero(np.ones_like(cal))
    rep_t, cell_t = np.nonzero(np.ones_like(test))
    human = np.concatenate([CAL_CELLS[cell_c][:, [0, 2]], np.full((len(cell_t), 2), -1)]).astype(
        np.int32
    )
    judge = np.concatenate([CAL_CELLS[cell_c][:, [1, 3]], TEST_CELLS[cell_t]])
    return {
        "n_runs": np.ones_like(human),
        "labelled": human >= 0,
        "item_group": np.concatenate([rep_c, rep_t]).astype(np.int32),
        "n_groups": r,
        "weight": np.concatenate([cal[rep_c, cell_c], test[rep_t, cell_t]]).astype(float),
        "human_label": human,
        "judge_label": judge.astype(np.int32),
    }


def _bootstrap_intervals(
    rng: np.random.Generator,
    cal: np.ndarray,
    test: np.ndarray,
    names: Sequence[str],
    n_boot: int,
    alpha: float,
) -> dict[str, np.ndarray]:
    """Paired-bootstrap Δθ (median, lo, hi, failed) of the frequentist estimators.

    As :func:`judgebayes.calibration.sweep.simulate_sweep` computes them (resampling
    calibration and test cells of each replication, RG (shared) from model A's
    calibration), on the replications given.
    """
    fcal, ftest = cell_features()
    n_cal, n_test = int(cal[0].sum()), int(test[0].sum())

    def boot(counts: np.ndarray, size: int) -> np.ndarray:
        p = np.broadcast_to((counts / size)[:, None, :], (len(counts), n_boot, counts.shape[1]))
        return rng.multinomial(size, p).astype(float)

    def est(c: np.ndarray, t: np.ndarray) -> dict[str, np.ndarray]:
        return estimates_from_sums(
            (c @ fcal).reshape(*c.shape[:-1], 2, N_CAL_SUMS),
            (t @ ftest).reshape(*t.shape[:-1], 2, N_TEST_SUMS),
            0,
        )

    reps = est(boot(cal, n_cal), boot(test, n_test))
    plug = est(cal.astype(float), test.astype(float))
    return {name: difference_summary(reps[name], plug[name], alpha) for name in names}


def sweep_bayes(
    *,
    delta_j_values: Sequence[float] = (0.0, 0.15, 0.3),
    j_a_values: Sequence[float] = (),
    fixed_delta_j: float = 0.05,
    fixed_j_a: float = 0.3,
    theta_a: float = 0.70,
    delta_theta: float = 0.05,
    n_cal: int = 400,
    n_test: int = 800,
    corr: float = 0.5,
    designs: Sequence[str] = ("shared", "model_specific", "hierarchical", "paired"),
    n_reps: int = 50,
    chains: int = 2,
    draws: int = 500,
    warmup: int = 500,
    alpha: float = 0.05,
    frequentist: Sequence[str] = (),
    n_boot: int = 1000,
    seed: int = 0,
    progress: bool = True,
) -> Sweep:
    """Coverage and bias of the posterior of Δθ = θ_B − θ_A on the Section 5 simulations.

    Same simulation as :func:`judgebayes.calibration.sweep.simulate_sweep`. All
    ``n_reps`` replications of a sweep point are fitted in *one* NUTS run: each
    replication is a group of two models with its own parameters, and rows stand
    for identical items through ``weight`` (multiplicities), so the likelihood costs
    O(cells), not O(items). Point estimate: posterior median; interval:
    equal-tailed ``1 − alpha`` credible interval.

    Parameters
    ----------
    designs
        Names of :data:`~judgebayes.calibration.designs.DESIGNS`.
    frequentist
        Any of ``"naive"``, ``"rg"``, ``"rg_2x"``, ``"ppi_2x"``: computed with
        ``n_boot`` paired-bootstrap replicates on the same replications as the
        designs (equal data), as :func:`~judgebayes.calibration.sweep.simulate_sweep`
        computes them. The bootstrap draws from its own random stream, so asking for
        them leaves the Bayesian results unchanged.
    seed
        Random seed (the data of each sweep point and the NUTS seeds); the same seed
        gives the same replications for every choice of ``designs``, and a design's
        results do not depend on the designs listed after it.
    chains, draws, warmup
        NUTS settings of each joint run.
    delta_j_values, j_a_values, fixed_delta_j, fixed_j_a, theta_a, delta_theta
        The sweep points and the truth, as for
        :func:`~judgebayes.calibration.sweep.simulate_sweep`.
    n_cal, n_test, corr, n_reps, alpha, progress
        As for :func:`~judgebayes.calibration.sweep.simulate_sweep`.

    Returns
    -------
    Sweep
        ``estimator`` is ``"bayes_<design>"`` (or the frequentist name); ``n_failed``
        counts divergent transitions of the joint run (not replications), for the
        frequentist rows the replications where the estimator is undefined.
    """
    unknown = [d for d in designs if d not in DESIGNS] + [
        f for f in frequentist if f not in _FREQUENTIST
    ]
    if unknown:
        raise ValueError(
            f"unknown design or estimator {unknown}; designs: {list(DESIGNS)}, "
            f"frequentist: {list(_FREQUENTIST)}"
        )
    points = [("J_A", float(j), float(j), float(fixed_delta_j)) for j in j_a_values] + [
        ("delta_J", float(d), float(fixed_j_a), float(d)) for d in delta_j_values
    ]
    theta = (theta_a, theta_a + delta_theta)
    root = np.random.default_rng(seed)
    rngs = root.spawn(len(points))
    boot_rngs = root.spawn(len(points))  # after the data streams: those stay as they were
    rows = []
    with tqdm(
        total=len(points) * len(designs), desc="bayes sweep", unit="fit", disable=not progress
    ) as bar:
        for (sweep, x, ja, dj), rng, brng in zip(points, rngs, boot_rngs, strict=True):
            q = ((1 + ja) / 2, (1 + ja + dj) / 2)
            pcal, ptest = pair_cell_probs(theta, q, q, corr)
            cal = rng.multinomial(n_cal, pcal, size=n_reps)
            test = rng.multinomial(n_test, ptest, size=n_reps)
            data, items = _sweep_rows(cal, test), _sweep_items(cal, test)
            for design in designs:
                paired = design in PAIRED_DESIGNS
                # fit's NUTS kernel and draws, without the InferenceData: the sweep reads
                # θ and the divergences only (the pointwise log-likelihood, a kernel of
                # its own to compile per design, went unused)
                compiled, arrays = CompiledModel.of(DESIGNS[design], items if paired else data)
                draws_, stats = compiled.nuts(
                    jax.random.PRNGKey(int(rng.integers(2**31))),
                    arrays,
                    chains=chains,
                    draws=draws,
                    warmup=warmup,
                    target_accept=0.9,
                )
                th = draws_["theta"].reshape(-1, 2 * n_reps)
                d = th[:, 1::2] - th[:, 0::2]
                lo, med, hi = np.quantile(d, [alpha / 2, 0.5, 1 - alpha / 2], axis=0)
                summary = summarise_replications(med, lo, hi, np.zeros(n_reps, bool), delta_theta)
                summary["n_failed"] = int(stats["diverging"].sum())
                rows.append(
                    {
                        "sweep": sweep,
                        "x": x,
                        "J_A": ja,
                        "J_B": ja + dj,
                        "estimator": f"bayes_{design}",
                        **summary,
                    }
                )
                bar.update(1)
            if frequentist:
                boot = _bootstrap_intervals(brng, cal, test, frequentist, n_boot, alpha)
                for name, (med, lo, hi, failed) in boot.items():
                    rows.append(
                        {
                            "sweep": sweep,
                            "x": x,
                            "J_A": ja,
                            "J_B": ja + dj,
                            "estimator": name,
                            **summarise_replications(med, lo, hi, failed.astype(bool), delta_theta),
                        }
                    )
    settings = {
        "theta_a": theta_a,
        "delta_theta": delta_theta,
        "n_cal": n_cal,
        "n_test": n_test,
        "corr": corr,
        "shared_from": "none",
        "n_reps": n_reps,
        "n_boot": n_boot if frequentist else chains * draws,
        "alpha": alpha,
        "seed": seed,
        "n_draws": chains * draws,
        "fixed_delta_j": fixed_delta_j,
        "fixed_j_a": fixed_j_a,
    }
    return Sweep(pd.DataFrame(rows), settings)


def _width_table(
    *,
    designs: Sequence[str] = ("shared", "model_specific", "hierarchical", "paired"),
    n_reps: int = 200,
    chains: int = 1,
    draws: int = 500,
    n_boot: int = 1000,
    seed: int = 0,
    progress: bool = True,
) -> pd.DataFrame:
    """Width and coverage of the designs and PPI++ 2× at equal data (the docstring table).

    Latent correlation 0.5 and 0 (independent models), ΔJ = 0 and 0.3 at J_A = 0.3.
    """
    frames = [
        sweep_bayes(
            delta_j_values=(0.0, 0.3),
            corr=corr,
            designs=designs,
            frequentist=("ppi_2x",),
            n_reps=n_reps,
            chains=chains,
            draws=draws,
            warmup=draws,
            n_boot=n_boot,
            seed=seed,
            progress=progress,
        )
        .to_frame()
        .assign(corr=corr)
        for corr in (0.5, 0.0)
    ]
    frame = pd.concat(frames, ignore_index=True)
    return frame.pivot_table(
        index="estimator", columns=["corr", "x"], values=["width", "coverage"], sort=False
    )


if __name__ == "__main__":
    print(_width_table().round(3).to_string())
