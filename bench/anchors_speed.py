"""Speed of judgebayes' anchor analysis (Don-Yehiya, Yehudai, Choshen & Abend, *Mediocrity is the
key for LLM as a Judge Anchor Selection*, ACL 2026, arXiv:2603.16848) at the paper's size, as
ratios.

What it measures
----------------
On ``judgebayes.anchors.simulate_verdicts(22, 750, seed=0)`` — the paper's 22 models ×
750 prompts, one judge, every pair judged once per prompt (173,250 verdicts) — four
routes, each against a plain reference route run in the same process:

1. **informativeness** of all 22 anchors (Don-Yehiya et al., 2026, Section 4.3): judgebayes'
   histogram-per-(anchor, prompt) computation (``anchors.discordance``) against a
   per-prompt Python loop over the C(21, 2) target pairs (``reference_informativeness``,
   the definition written out). Both read the same verdict tensor; their values are
   checked equal.
2. **the whole quadratic analysis** (``anchors.analyze_anchors`` without its bootstrap:
   validated table → tensor → π_quad, 22 anchor rankings by win rate and five-level mean,
   Kendall τ, informativeness, N_total) against the same with the reference
   informativeness loop and the validation of the table from a pandas frame included.
3. **Wilcoxon power simulation** (Appendix C): ``anchors.wilcoxon_power``'s vectorised
   tests (one ``scipy.stats.wilcoxon(axis=1)`` call per N) against Listing 1's loop, one
   ``scipy.stats.wilcoxon`` call per simulated experiment, timed for the same 300
   experiments at N = 900 (p-values checked equal).
4. **ordered-logistic NUTS** on the anchor-based table of the median model, 22 models ×
   200 prompts by default (4,200 verdicts; θ, 200 prompt difficulties, 200 anchor-answer
   effects, cut-points, position bias; ``--prompts 750`` for the paper's size, 15,750
   verdicts, about 4 ms per gradient and ~4 minutes per call on 2 cores): ``jb.fit``
   (judgebayes' compiled NUTS driver) against NumPyro's own ``MCMC(NUTS(model))`` with
   the same model function, data, chains, warm-up and draws
   (``chain_method="sequential"``; NumPyro's parallel chains need one JAX device per
   chain). Each is called twice: the first call compiles, the second shows what a refit
   of the same shapes costs. Wall time and the minimum bulk ESS of θ are printed.

How to run
----------
``python bench/anchors_speed.py`` (about 5 minutes on 2 cores); ``--prompts``, ``--chains``,
``--warmup``, ``--draws`` change the NUTS run, ``--skip-nuts`` leaves it out.
"""

from __future__ import annotations

import argparse
import os
import time
import warnings
from collections.abc import Callable
from itertools import combinations

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # SciPy beside JAX threads on 2 cores

import arviz as az
import jax
import numpy as np
from numpyro.infer import MCMC, NUTS
from scipy.stats import wilcoxon

import judgebayes as jb
from judgebayes import anchors
from judgebayes.anchors.power import verdict_differences


def timed(fn: Callable[[], object]) -> tuple[float, object]:
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def reference_informativeness(v: np.ndarray) -> np.ndarray:
    """I(p, A) of every anchor by the definition: a loop over prompts and target pairs."""
    n, m, _ = v.shape
    out = np.empty(m)
    for anchor in range(m):
        targets = [j for j in range(m) if j != anchor]
        differ = total = 0
        for i in range(n):
            row = v[i, :, anchor]
            for a, b in combinations(targets, 2):
                if np.isnan(row[a]) or np.isnan(row[b]):
                    continue
                total += 1
                differ += row[a] != row[b]
        out[anchor] = differ / total
    return out


def line(what: str, ours: float, reference: float, note: str = "") -> None:
    print(f"{what:<44} {ours:>9.3f} s {reference:>10.3f} s {reference / ours:>8.1f}x  {note}")


def bench_analysis() -> None:
    sim = anchors.simulate_verdicts(22, 750, seed=0)
    frame = sim.table().to_frame()
    t_table, table = timed(lambda: anchors.verdict_table(frame))
    v = table.tensor()
    t_ours, (d, c) = timed(lambda: anchors.discordance(v, np.arange(22)))
    ours = d.sum(axis=1) / c.sum(axis=1)
    t_ref, ref = timed(lambda: reference_informativeness(v))
    assert np.allclose(ours, ref), "the two informativeness routes disagree"
    print(f"{'route':<44} {'judgebayes':>11} {'reference':>12} {'ratio':>9}")
    line(
        "informativeness, 22 anchors × 750 prompts",
        t_ours,
        t_ref,
        "(per-prompt Python loop over target pairs)",
    )
    t_all, result = timed(lambda: anchors.analyze_anchors(anchors.verdict_table(frame), n_boot=0))
    line(
        "whole analysis (table → τ, I, N_total)",
        t_all,
        t_ref + t_all - t_ours,
        f"(the same, with the loop for I; validating the table {t_table:.2f} s)",
    )
    print(f"    {result!r}")

    d_all, edge, _ = verdict_differences(table)
    pool = np.flatnonzero((edge >= 0.05) & (edge < 0.06))
    rng = np.random.default_rng(0)
    pick = pool[rng.integers(0, pool.size, 300)]
    length = np.isfinite(d_all[pick]).sum(axis=1)
    s = d_all[pick[:, None], (rng.random((300, 900)) * length[:, None]).astype(int)]
    t_vec, p_vec = timed(
        lambda: (
            wilcoxon(s, axis=1, zero_method="pratt", alternative="greater", method="approx").pvalue
        )
    )
    t_loop, p_loop = timed(
        lambda: np.array(
            [wilcoxon(row, zero_method="pratt", alternative="greater").pvalue for row in s]
        )
    )
    assert np.allclose(p_vec, p_loop), "vectorised and per-experiment Wilcoxon disagree"
    line(
        "Wilcoxon, 300 experiments at N = 900",
        t_vec,
        t_loop,
        f"(Listing 1's loop; pool of {pool.size} distributions)",
    )


def min_ess(idata: az.InferenceData) -> float:
    return float(az.ess(idata, var_names=["theta"], method="bulk")["theta"].min())


def bench_nuts(prompts: int, chains: int, warmup: int, draws: int) -> None:
    sim = anchors.simulate_verdicts(22, prompts, seed=0)
    table = sim.table(anchor=sim.anchor_at("median"))
    spec = anchors.ordered_logistic_spec(table)
    print(
        f"\nordered-logistic NUTS, {len(table):,} verdicts, {chains} chains × {draws} draws "
        f"after {warmup} warm-up (target_accept 0.9)"
    )
    print(
        f"{'call':<10} {'jb.fit':>10} {'NumPyro MCMC':>14} {'ratio':>8} {'ESS jb':>8} "
        f"{'ESS MCMC':>9}"
    )
    mcmc = MCMC(
        NUTS(spec.model, target_accept_prob=0.9),
        num_warmup=warmup,
        num_samples=draws,
        num_chains=chains,
        chain_method="sequential",
        progress_bar=False,
    )
    for k, call in enumerate(("first", "second")):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", jb.SamplerWarning)
            t_jb, idata = timed(
                lambda k=k: jb.fit(
                    spec, chains=chains, warmup=warmup, draws=draws, seed=k, progress=False
                )
            )
        t_np, _ = timed(lambda k=k: mcmc.run(jax.random.PRNGKey(k), **spec.data))
        ref = az.from_numpyro(mcmc)
        print(
            f"{call:<10} {t_jb:>9.1f}s {t_np:>13.1f}s {t_np / t_jb:>7.1f}x "
            f"{min_ess(idata):>8.0f} {min_ess(ref):>9.0f}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prompts", type=int, default=200)
    parser.add_argument("--chains", type=int, default=2)
    parser.add_argument("--warmup", type=int, default=300)
    parser.add_argument("--draws", type=int, default=300)
    parser.add_argument("--skip-nuts", action="store_true")
    args = parser.parse_args()
    bench_analysis()
    if not args.skip_nuts:
        bench_nuts(args.prompts, args.chains, args.warmup, args.draws)


if __name__ == "__main__":
    main()
