"""Full-resolution Section 5 sweep of Fiedler (*Bias and Uncertainty in LLM-as-a-Judge Estimation*,
2026, arXiv:2605.06939, Figure 1): bias and coverage per estimator.

Runs :func:`judgebayes.calibration.sweep.simulate_sweep` at the paper's grid (J_A from
0.1 to 0.8 with ΔJ = 0.05; ΔJ from 0 to 0.3 with J_A = 0.3; q0 = q1; Δθ = 0.05) with
``--reps`` replications per point (default 1,000) and ``--boot`` bootstrap replicates
each, prints the table with Monte Carlo standard errors and the wall time, and saves
``calibration_sweep.png`` (and ``.csv``) into ``--out``. With ``--bayes-reps N`` it also
runs the Bayesian designs (:func:`judgebayes.calibration.bayes_sweep.sweep_bayes`, one
joint NUTS run of N replications per ΔJ point and design) and adds them to the table.

    python bench/calibration_sweep.py --reps 1000 --boot 1000 --out bench-out
    python bench/calibration_sweep.py --reps 500 --boot 2000 --bayes-reps 200
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pandas as pd

from judgebayes.calibration.sweep import plot_sweep, simulate_sweep


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reps", type=int, default=1000)
    parser.add_argument("--boot", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--bayes-reps",
        type=int,
        default=0,
        help="replications per ΔJ point for the Bayesian designs (0: skip)",
    )
    parser.add_argument("--out", type=Path, default=Path("bench-out"))
    args = parser.parse_args()
    start = time.perf_counter()
    sweep = simulate_sweep(n_reps=args.reps, n_boot=args.boot, seed=args.seed, progress=True)
    seconds = time.perf_counter() - start
    frame = sweep.to_frame()
    if args.bayes_reps:
        from judgebayes.calibration import sweep_bayes

        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            bayes = sweep_bayes(
                delta_j_values=(0.0, 0.1, 0.2, 0.3),
                n_reps=args.bayes_reps,
                chains=2,
                draws=500,
                warmup=500,
                seed=args.seed,
            )
        print(f"Bayesian designs: {time.perf_counter() - t0:.1f} s")
        frame = pd.concat([frame, bayes.to_frame()], ignore_index=True)
    print(
        frame[
            [
                "sweep",
                "x",
                "estimator",
                "bias",
                "bias_mcse",
                "coverage",
                "coverage_mcse",
                "width",
                "n_failed",
            ]
        ].to_string(index=False, float_format="%.3f")
    )
    print(
        f"\n{len(frame) // frame['estimator'].nunique()} sweep points x {args.reps} "
        f"replications x {args.boot} bootstrap replicates in {seconds:.1f} s"
    )
    args.out.mkdir(parents=True, exist_ok=True)
    frame.to_csv(args.out / "calibration_sweep.csv", index=False)
    plot_sweep(frame)
    plt.tight_layout()
    plt.savefig(args.out / "calibration_sweep.png", dpi=130)
    print(f"wrote {args.out / 'calibration_sweep.csv'}, {args.out / 'calibration_sweep.png'}")


if __name__ == "__main__":
    main()
