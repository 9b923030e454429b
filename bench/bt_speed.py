"""Speed of judgebayes' Bradley–Terry engine against two Chatbot Arena peer routes.

What it measures
----------------
On simulated Bradley–Terry battles with Davidson ties (``jb.simulate_bt``, ν = 0.5)
at three sizes — (55 models, 25k battles), (100, 100k) and (200, 1M) — the script
times three ways of computing the same penalised Bradley–Terry MAP (Kargi & Salinas, *From Uncertain
Judgments to Calibrated Rankings: Conformal Elo Estimation for LLM Evaluation*, 2026,
arXiv:2606.13221, Eq. 1, λ = 0.01; a tie counts as two half-weight rows) and its 1000-replicate
battle bootstrap:

* **judgebayes**: ``jb.fit_bt`` (aggregation of the battles to pair statistics
  included; median of ``--repeats`` runs after one warm-up) and ``jb.bootstrap_bt``
  (1000 replicates, aggregation and full-data fit included; one run).
* **peer (a)**, the Chatbot Arena *notebook* route: scikit-learn
  ``LogisticRegression`` (lbfgs, no intercept, L2 with C = 1 / (2λ), tol 1e-8) on a
  **dense** float64 design with one row per battle (+1 in model A's column, −1 in
  model B's), ties split into two half-weight rows. The timing includes building
  the design; one run (it is the slow route).
* **peer (b)**, the Chatbot Arena *current leaderboard code* route: battles
  aggregated (``np.unique``) to win/tie/loss counts per unordered pair, then
  ``scipy.optimize.minimize(method="L-BFGS-B")`` on the aggregated negative
  log-likelihood + λ‖θ‖² with its analytic gradient (median of ``--repeats`` runs).
  Its bootstrap draws Multinomial pair-outcome counts and refits with L-BFGS-B once
  per replicate in a Python loop from θ = 0; 100 replicates are timed and the
  cost of 1000 is extrapolated (aggregation + full fit + 10 × the 100-replicate loop).

For every size the table reports the times, the ratios peer / judgebayes, the
largest |ΔElo| between judgebayes and each peer (both centred to mean 1500), and
the median over models of |SE_judgebayes − SE_peer(b)| of the bootstrap standard
errors (judgebayes: 1000 Poisson replicates; peer (b): 100 Multinomial replicates,
so this also carries Monte Carlo noise of roughly 7% of the SE). It ends with the
speed targets (one fit ≤ 0.1 s, 1000 bootstrap replicates ≤ 5 s, ≥ 30× faster
than route (a)) checked at (200, 1M).

How to run
----------
``python bench/bt_speed.py`` (all sizes; the 1M case takes a few minutes, mostly
peer (a)), ``python bench/bt_speed.py --quick`` (first size only) or
``--sizes small`` (the two smaller sizes). Requires scikit-learn
(``pip install -e ".[bench]"``).
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy.optimize import minimize
from scipy.special import expit, log_expit
from sklearn.linear_model import LogisticRegression

import judgebayes as jb

LAM = 0.01
N_BOOT = 1000
N_BOOT_PEER = 100
TIE_NU = 0.5
SEED = 0
SIZES_ALL: list[tuple[int, int]] = [(55, 25_000), (100, 100_000), (200, 1_000_000)]
SIZES_SMALL: list[tuple[int, int]] = SIZES_ALL[:2]
TARGET_SIZE = (200, 1_000_000)
TARGET_FIT_S = 0.1
TARGET_BOOT_S = 5.0
TARGET_RATIO_A = 30.0
# Peer (b) L-BFGS-B tolerances on the *unnormalised* objective, tight enough that the
# optimiser's stopping error is far below 0.01 Elo (SciPy's default ftol = 2.2e-9 is a
# relative decrease and stops ~0.1 Elo short on 1M battles).
PEER_B_OPTIONS = {"gtol": 1e-6, "ftol": 1e-14, "maxiter": 1000}


def centred_elo(theta: np.ndarray) -> np.ndarray:
    """Elo = 1500 + (400 / ln 10)·θ, centred to mean 1500."""
    elo = np.asarray(jb.theta_to_elo(theta), dtype=float)
    return elo - elo.mean() + jb.ELO_BASE


def timed(fn: Callable[[], object]) -> tuple[float, object]:
    """Wall time (``time.perf_counter``) and result of one call."""
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def median_time(
    fn: Callable[[], object],
    repeats: int,
    warmup: bool = True,
) -> tuple[float, object]:
    """Median wall time of ``repeats`` calls (after one untimed warm-up) and the last result."""
    if warmup:
        fn()
    times, out = [], None
    for _ in range(repeats):
        t, out = timed(fn)
        times.append(t)
    return statistics.median(times), out


# --------------------------------------------------------------------------- peer (a)
def peer_a_design(
    a: np.ndarray,
    b: np.ndarray,
    y: np.ndarray,
    n_models: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Dense design (+1 at A, −1 at B), labels and weights; a tie is two half-weight rows."""
    tie = y == 0.5
    n = len(y)
    tie_rows = np.flatnonzero(tie)
    rows = np.concatenate([np.arange(n), tie_rows])
    labels = np.concatenate(
        [np.where(tie, 1, y).astype(np.int64), np.zeros(len(tie_rows), dtype=np.int64)]
    )
    weights = np.concatenate([np.where(tie, 0.5, 1.0), np.full(len(tie_rows), 0.5)])
    x = np.zeros((len(rows), n_models))
    r = np.arange(len(rows))
    x[r, a[rows]] = 1.0
    x[r, b[rows]] = -1.0
    return x, labels, weights


def peer_a_fit(
    a: np.ndarray, b: np.ndarray, y: np.ndarray, n_models: int, lam: float = LAM
) -> tuple[np.ndarray, int]:
    """Route (a): scikit-learn L2 logistic regression on the battle design; θ and iterations."""
    x, labels, weights = peer_a_design(a, b, y, n_models)
    # l1_ratio=0 is penalty="l2" (scikit-learn >= 1.8 deprecates the `penalty` argument).
    clf = LogisticRegression(
        C=1.0 / (2.0 * lam),
        l1_ratio=0.0,
        fit_intercept=False,
        tol=1e-8,
        max_iter=100_000,
        solver="lbfgs",
    )
    clf.fit(x, labels, sample_weight=weights)
    return clf.coef_.ravel().copy(), int(clf.n_iter_[0])


# --------------------------------------------------------------------------- peer (b)
@dataclass(frozen=True)
class PairCounts:
    """Win/tie/loss counts of model ``i`` against model ``j`` for each unordered pair."""

    i: np.ndarray
    j: np.ndarray
    counts: np.ndarray  # (n_pairs, 3): wins, ties, losses of i
    n_models: int

    def scores(self, counts: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Effective wins and losses of ``i`` (a tie is half of each)."""
        c = self.counts if counts is None else counts
        return c[..., 0] + 0.5 * c[..., 1], c[..., 2] + 0.5 * c[..., 1]


def peer_b_aggregate(a: np.ndarray, b: np.ndarray, y: np.ndarray, n_models: int) -> PairCounts:
    """Aggregate battles to per-unordered-pair win/tie/loss counts (``np.unique``)."""
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    y_lo = np.where(a < b, y, 1.0 - y)
    outcome = np.rint(2.0 * (1.0 - y_lo)).astype(np.int64)  # 0 win, 1 tie, 2 loss of lo
    keys, inverse = np.unique(lo * n_models + hi, return_inverse=True)
    counts = np.bincount(inverse * 3 + outcome, minlength=3 * len(keys)).reshape(-1, 3)
    return PairCounts(keys // n_models, keys % n_models, counts.astype(float), n_models)


def peer_b_loss(
    theta: np.ndarray, pc: PairCounts, wins: np.ndarray, losses: np.ndarray, lam: float
) -> tuple[float, np.ndarray]:
    """Aggregated negative log-likelihood + λ‖θ‖² and its gradient."""
    d = theta[pc.i] - theta[pc.j]
    value = -(wins @ log_expit(d) + losses @ log_expit(-d)) + lam * theta @ theta
    resid = wins - (wins + losses) * expit(d)
    m = pc.n_models
    grad = np.bincount(pc.j, resid, minlength=m) - np.bincount(pc.i, resid, minlength=m)
    return float(value), grad + 2.0 * lam * theta


def peer_b_solve(
    pc: PairCounts,
    counts: np.ndarray | None = None,
    lam: float = LAM,
) -> tuple[np.ndarray, int]:
    """L-BFGS-B fit from θ = 0 on (possibly resampled) pair counts; θ and iterations."""
    wins, losses = pc.scores(counts)
    res = minimize(
        peer_b_loss,
        np.zeros(pc.n_models),
        args=(pc, wins, losses, lam),
        jac=True,
        method="L-BFGS-B",
        options=PEER_B_OPTIONS,
    )
    return res.x, int(res.nit)


def peer_b_fit(
    a: np.ndarray,
    b: np.ndarray,
    y: np.ndarray,
    n_models: int,
) -> tuple[np.ndarray, int, PairCounts]:
    """Route (b): aggregate, then fit; θ, iterations and the pair counts."""
    pc = peer_b_aggregate(a, b, y, n_models)
    theta, nit = peer_b_solve(pc)
    return theta, nit, pc


def peer_b_bootstrap(pc: PairCounts, n_boot: int, seed: int = SEED) -> np.ndarray:
    """Multinomial resampling of pair-outcome counts, one L-BFGS-B refit per replicate."""
    rng = np.random.default_rng(seed)
    flat = pc.counts.ravel()
    total = int(flat.sum())
    draws = rng.multinomial(total, flat / total, size=n_boot)
    elo = np.empty((n_boot, pc.n_models))
    for r in range(n_boot):
        theta, _ = peer_b_solve(pc, draws[r].reshape(-1, 3).astype(float))
        elo[r] = centred_elo(theta)
    return elo


# --------------------------------------------------------------------------- driver
@dataclass
class Row:
    """Measurements at one size."""

    n_models: int
    n_battles: int
    jb_fit: float
    jb_boot: float
    a_fit: float
    a_rows: int
    a_iter: int
    b_fit: float
    b_iter: int
    b_boot: float
    d_elo_a: float
    d_elo_b: float
    se_jb_median: float
    se_b_median: float
    d_se_median: float

    @property
    def ratio_a_fit(self) -> float:
        return self.a_fit / self.jb_fit

    @property
    def ratio_b_fit(self) -> float:
        return self.b_fit / self.jb_fit

    @property
    def ratio_b_boot(self) -> float:
        return self.b_boot / self.jb_boot


def run_size(n_models: int, n_battles: int, repeats: int) -> Row:
    """Time every route at one size."""
    print(f"[{n_models} models, {n_battles:,} battles] simulating ...", flush=True)
    battles = jb.simulate_bt(n_models, n_battles, tie_nu=TIE_NU, seed=SEED).battles
    a, b = battles.codes()
    y = np.asarray(battles.column("human_label"), dtype=float)

    print("  judgebayes fit / bootstrap ...", flush=True)
    t_jb_fit, fit = median_time(lambda: jb.fit_bt(battles, target="human_label", lam=LAM), repeats)
    elo_jb = centred_elo(fit.theta)
    t_jb_boot, boot = timed(
        lambda: jb.bootstrap_bt(
            battles, target="human_label", lam=LAM, n_boot=N_BOOT, seed=SEED, progress=False
        )
    )
    se_jb = boot.se

    print("  peer (b) fit / bootstrap ...", flush=True)
    t_b_fit, (theta_b, b_iter, pc) = median_time(lambda: peer_b_fit(a, b, y, n_models), repeats)
    t_b_loop, reps_b = timed(lambda: peer_b_bootstrap(pc, N_BOOT_PEER))
    t_b_boot = t_b_fit + t_b_loop * (N_BOOT / N_BOOT_PEER)
    se_b = reps_b.std(axis=0, ddof=1)

    n_rows = n_battles + int((y == 0.5).sum())
    print(
        f"  peer (a) fit (dense {n_rows:,} x {n_models} design, "
        f"{n_rows * n_models * 8 / 2**30:.2f} GiB) ...",
        flush=True,
    )
    t_a_fit, (theta_a, a_iter) = timed(lambda: peer_a_fit(a, b, y, n_models))

    return Row(
        n_models=n_models,
        n_battles=n_battles,
        jb_fit=t_jb_fit,
        jb_boot=t_jb_boot,
        a_fit=t_a_fit,
        a_rows=n_rows,
        a_iter=a_iter,
        b_fit=t_b_fit,
        b_iter=b_iter,
        b_boot=t_b_boot,
        d_elo_a=float(np.max(np.abs(elo_jb - centred_elo(theta_a)))),
        d_elo_b=float(np.max(np.abs(elo_jb - centred_elo(theta_b)))),
        se_jb_median=float(np.median(se_jb)),
        se_b_median=float(np.median(se_b)),
        d_se_median=float(np.median(np.abs(se_jb - se_b))),
    )


def print_table(rows: list[Row]) -> None:
    """One column per size, one line per measurement."""
    lines: list[tuple[str, Callable[[Row], str]]] = [
        ("judgebayes fit [s] (median, agg. incl.)", lambda r: f"{r.jb_fit:.4f}"),
        (f"judgebayes bootstrap x{N_BOOT} [s]", lambda r: f"{r.jb_boot:.3f}"),
        ("peer (a) sklearn dense LR fit [s]", lambda r: f"{r.a_fit:.3f}"),
        ("peer (a) design rows / lbfgs iters", lambda r: f"{r.a_rows:,} / {r.a_iter}"),
        ("peer (b) agg + L-BFGS-B fit [s]", lambda r: f"{r.b_fit:.4f}"),
        ("peer (b) L-BFGS-B iters", lambda r: f"{r.b_iter}"),
        (f"peer (b) bootstrap x{N_BOOT} [s] (extrap.)", lambda r: f"{r.b_boot:.2f}"),
        ("ratio fit  (a) / judgebayes", lambda r: f"{r.ratio_a_fit:.1f}x"),
        ("ratio fit  (b) / judgebayes", lambda r: f"{r.ratio_b_fit:.1f}x"),
        ("ratio boot (b) / judgebayes", lambda r: f"{r.ratio_b_boot:.1f}x"),
        ("max |dElo| judgebayes vs (a)", lambda r: f"{r.d_elo_a:.2e}"),
        ("max |dElo| judgebayes vs (b)", lambda r: f"{r.d_elo_b:.2e}"),
        (
            "median SE judgebayes / (b) [Elo]",
            lambda r: f"{r.se_jb_median:.2f} / {r.se_b_median:.2f}",
        ),
        ("median |SE_jb - SE_b| [Elo]", lambda r: f"{r.d_se_median:.3f}"),
    ]
    heads = [f"{r.n_models} x {r.n_battles:,}" for r in rows]
    w0 = max(len(name) for name, _ in lines)
    cells = [[fmt(r) for r in rows] for _, fmt in lines]
    widths = [max(len(heads[k]), *(len(c[k]) for c in cells)) for k in range(len(rows))]
    header = " | ".join(
        [f"{'models x battles':<{w0}}", *(f"{h:>{w}}" for h, w in zip(heads, widths, strict=True))]
    )
    print()
    print(header)
    print("-" * len(header))
    for (name, _), row in zip(lines, cells, strict=True):
        print(
            " | ".join([f"{name:<{w0}}", *(f"{c:>{w}}" for c, w in zip(row, widths, strict=True))])
        )
    print()
    print(
        f"Notes: λ = {LAM}; ties (Davidson ν = {TIE_NU}) are two half-weight rows / half a "
        f"win each. Peer (a) uses a dense float64 design (build time included), one run. "
        f"Peer (b) bootstrap: {N_BOOT_PEER} replicates timed, cost of {N_BOOT} EXTRAPOLATED "
        f"(x{N_BOOT // N_BOOT_PEER}), single process, cold start θ = 0; "
        f"L-BFGS-B options {PEER_B_OPTIONS}. SE_b is from {N_BOOT_PEER} replicates."
    )


def print_targets(rows: list[Row]) -> None:
    """The speed targets and whether they were met at (200 models, 1M battles)."""
    at = next((r for r in rows if (r.n_models, r.n_battles) == TARGET_SIZE), None)
    print()
    print(f"Targets at ({TARGET_SIZE[0]} models, {TARGET_SIZE[1]:,} battles):")
    checks = [
        (f"one fit <= {TARGET_FIT_S} s", lambda r: (r.jb_fit, r.jb_fit <= TARGET_FIT_S, "s")),
        (
            f"{N_BOOT} bootstrap replicates <= {TARGET_BOOT_S:g} s",
            lambda r: (r.jb_boot, r.jb_boot <= TARGET_BOOT_S, "s"),
        ),
        (
            f">= {TARGET_RATIO_A:g}x faster than route (a) (fit)",
            lambda r: (r.ratio_a_fit, r.ratio_a_fit >= TARGET_RATIO_A, "x"),
        ),
    ]
    for name, check in checks:
        if at is None:
            print(f"  {name:<45} not run (use --sizes all without --quick)")
            continue
        value, ok, unit = check(at)
        print(f"  {name:<45} {value:10.3f} {unit}   {'MET' if ok else 'NOT MET'}")


def main(argv: list[str] | None = None) -> None:
    """Parse arguments, run the sizes, print the table and the targets."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--sizes",
        choices=["small", "all"],
        default="all",
        help="small: the two smaller sizes; all (default): also 200 x 1M",
    )
    parser.add_argument("--quick", action="store_true", help="run only the first size")
    parser.add_argument(
        "--repeats", type=int, default=3, help="timed runs for the median fit times (default 3)"
    )
    args = parser.parse_args(argv)
    sizes = SIZES_ALL if args.sizes == "all" else SIZES_SMALL
    if args.quick:
        sizes = sizes[:1]
    rows = [run_size(m, n, args.repeats) for m, n in sizes]
    print_table(rows)
    print_targets(rows)


if __name__ == "__main__":
    main()
