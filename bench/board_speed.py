"""Leaderboard speed at 10^6 battles and 200 models: judgebayes beside arena-rank and Evalica.

What it measures
----------------
One simulated arena (``jb.simulate_prompts``: 200 models, 166,667 prompts each judged six
times, three judges × both orders, prompt effects σ_u = 1, Davidson ties ν = 0.5; about
10^6 battles), given to every library as the same pandas DataFrame in Chatbot Arena's
format (``model_a, model_b, winner, question_id``). Each timing starts from that frame:

* **fit** — judgebayes ``read_arena`` + ``fit_bt(lam=0)``; arena-rank 0.1.1
  ``PairDataset.from_pandas`` + ``BradleyTerry.fit``; Evalica ``bradley_terry`` on the
  frame's columns (winner strings mapped to its ``Winner``);
* **sandwich** — judgebayes ``sandwich_bt(lam=0)`` battle-level (``cluster=None``) and
  clustered by prompt (the default); arena-rank ``compute_ratings_and_cis(ci_method=
  "sandwich")`` (battle-level: it has no clusters);
* **bootstrap × 1000** — judgebayes ``bootstrap_bt(lam=0, n_boot=1000)`` clustered by
  prompt (the default) and by battle; Evalica ``bootstrap(bradley_terry, ...,
  bootstrap_method="percentile")`` by battle (no clusters), ``--peer-boot`` resamples timed
  and the cost of 1000 EXTRAPOLATED. arena-rank's bootstrap forks worker processes after
  JAX has started threads and deadlocked here (its own warning says it may), so it is
  not run.

arena-rank compiles with JAX on its first call: one untimed warm-up call, then the
timings (the cold first call is printed too). Every timing is the median of
``--repeats`` runs. The table gives the ratios peer / judgebayes, the largest |ΔElo|
between the fits (each centred), and the largest relative difference of the sandwich
standard errors. The targets (printed MET / NOT MET) keep the lead the issue measured
(judgebayes 0.66 s from a DataFrame to a fit, arena-rank 2.14 s, Evalica 1.53 s, Elo
equal to 0.001): judgebayes faster than each peer on the fit and the sandwich, its
clustered bootstrap faster than Evalica's battle bootstrap, Elo within 0.01 of
arena-rank's.

How to run
----------
``python bench/board_speed.py`` (about ten minutes on two busy cores, most of it the
peers), ``--quick`` for 55 models × 25,000 battles. Requires arena-rank and Evalica
(``pip install "judgebayes[peers]"``; see pyproject's note on arena-rank's pins).
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import numpy as np
import pandas as pd

import _record as record
import judgebayes as jb


def _timed(run: Callable[[], object], repeats: int) -> tuple[float, list[float], object]:
    times, out = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        out = run()
        times.append(time.perf_counter() - start)
    return statistics.median(times), times, out


def _arena_frame(models: int, prompts: int) -> tuple[pd.DataFrame, pd.Series]:
    sim = jb.simulate_prompts(models, prompts, prompt_sd=1.0, tie_nu=0.5, seed=0)
    f = sim.battles.frame
    winner = np.select(
        [f["judge_label"] == 1, f["judge_label"] == 0], ["model_a", "model_b"], "tie"
    )
    frame = pd.DataFrame(
        {
            "model_a": f["model_a"].astype(str).to_numpy(),
            "model_b": f["model_b"].astype(str).to_numpy(),
            "winner": winner,
            "question_id": f["prompt_id"].to_numpy(),
        }
    )
    return frame, sim.elo


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="55 models x 25,000 battles")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--peer-boot", type=int, default=5, help="Evalica resamples timed")
    args = parser.parse_args()

    import evalica
    from arena_rank.models.bradley_terry import BradleyTerry
    from arena_rank.utils.data_utils import PairDataset

    models, prompts = (55, 4_167) if args.quick else (200, 166_667)
    print(f"# judgebayes at commit {record.commit()}; load at start {record.load()}")
    frame, _ = _arena_frame(models, prompts)
    print(
        f"arena: {models} models, {len(frame):,} battles, {frame['question_id'].nunique():,} "
        f"prompts, ties {np.mean(frame['winner'] == 'tie'):.1%}"
    )
    r = args.repeats
    rows: dict[str, tuple[float, list[float]]] = {}

    # ------------------------------------------------------------------ fits
    def jb_fit() -> jb.EloFit:
        return jb.fit_bt(jb.read_arena(frame), lam=0.0)

    rows["judgebayes fit"] = (*_timed(jb_fit, r)[:2],)
    ours = jb_fit()

    def ar_fit() -> BradleyTerry:
        data = PairDataset.from_pandas(frame)
        return BradleyTerry(len(data.competitors)).fit(data), data

    start = time.perf_counter()
    ar_fit()
    cold = time.perf_counter() - start
    median, times, (_, ar_data) = _timed(ar_fit, r)
    rows["arena-rank fit"] = (median, times)
    mapping = {"model_a": evalica.Winner.X, "model_b": evalica.Winner.Y, "tie": evalica.Winner.Draw}

    def ev_fit():
        winners = frame["winner"].map(mapping).tolist()
        return evalica.bradley_terry(frame["model_a"], frame["model_b"], winners)

    median, times, ev = _timed(ev_fit, r)
    rows["Evalica fit"] = (median, times)

    # ------------------------------------------------------------- sandwiches
    def jb_sandwich(cluster: str | None) -> Callable[[], jb.SandwichElo]:
        return lambda: jb.sandwich_bt(jb.read_arena(frame), lam=0.0, cluster=cluster)

    median, times, battle_sandwich = _timed(jb_sandwich(None), r)
    rows["judgebayes sandwich (battles)"] = (median, times)
    median, times, prompt_sandwich = _timed(jb_sandwich("auto"), r)
    rows["judgebayes sandwich (prompts)"] = (median, times)

    def ar_sandwich() -> dict:
        data = PairDataset.from_pandas(frame)
        model = BradleyTerry(len(data.competitors))
        return model.compute_ratings_and_cis(data, ci_method="sandwich")

    ar_sandwich()  # compiles the sandwich's JAX functions
    median, times, ar_ci = _timed(ar_sandwich, r)
    rows["arena-rank sandwich"] = (median, times)

    # -------------------------------------------------------------- bootstraps
    def jb_boot(cluster: str | None) -> Callable[[], jb.BootstrapElo]:
        return lambda: jb.bootstrap_bt(
            jb.read_arena(frame), lam=0.0, n_boot=1000, cluster=cluster, progress=False
        )

    median, times, boot = _timed(jb_boot("auto"), r)
    rows["judgebayes bootstrap x1000 (prompts)"] = (median, times)
    median, times, _ = _timed(jb_boot(None), r)
    rows["judgebayes bootstrap x1000 (battles)"] = (median, times)

    def ev_boot():
        winners = frame["winner"].map(mapping).tolist()
        return evalica.bootstrap(
            evalica.bradley_terry,
            frame["model_a"],
            frame["model_b"],
            winners,
            n_resamples=args.peer_boot,
            bootstrap_method="percentile",
            random_state=0,
        )

    start = time.perf_counter()
    ev_boot()
    measured = time.perf_counter() - start
    rows[f"Evalica bootstrap x1000 (extrapolated from {args.peer_boot})"] = (
        measured * 1000 / args.peer_boot,
        [measured],
    )

    # -------------------------------------------------------------- agreement
    names = list(ours.models)
    elo = pd.Series(ours.elo - ours.elo.mean(), index=names)
    ar_elo = pd.Series(np.asarray(ar_ci["ratings"]), index=ar_data.competitors)
    ar_elo = (ar_elo - ar_elo.mean()).reindex(names)
    ev_scores = ev.scores.reindex(names).to_numpy(dtype=float)
    ev_elo = jb.ELO_SCALE * np.log(ev_scores)
    ev_elo -= ev_elo.mean()
    ar_se = pd.Series(np.sqrt(np.asarray(ar_ci["variances"])), index=ar_data.competitors)
    se_gap = np.max(np.abs(battle_sandwich.se / ar_se.reindex(names).to_numpy() - 1))
    print(f"load at end {record.load()}; arena-rank cold first fit {cold:.2f} s\n")
    for name, (median, times) in rows.items():
        shown = ", ".join(f"{t:.2f}" for t in times)
        print(f"{name:<50} median {median:8.3f} s   runs [{shown}]")

    def ratio(peer: str, ours_row: str) -> float:
        return rows[peer][0] / rows[ours_row][0]

    checks = [
        ("fit: arena-rank / judgebayes", ratio("arena-rank fit", "judgebayes fit"), 1.0),
        ("fit: Evalica / judgebayes", ratio("Evalica fit", "judgebayes fit"), 1.0),
        (
            "sandwich: arena-rank / judgebayes (battles)",
            ratio("arena-rank sandwich", "judgebayes sandwich (battles)"),
            1.0,
        ),
        (
            "sandwich: arena-rank / judgebayes (prompts)",
            ratio("arena-rank sandwich", "judgebayes sandwich (prompts)"),
            1.0,
        ),
        (
            "bootstrap: Evalica (battles) / judgebayes (prompts)",
            ratio(
                f"Evalica bootstrap x1000 (extrapolated from {args.peer_boot})",
                "judgebayes bootstrap x1000 (prompts)",
            ),
            1.0,
        ),
    ]
    print()
    for label, value, target in checks:
        verdict = "MET" if value >= target else "NOT MET"
        print(f"ratio {label:<52} {value:7.2f}x   target >= {target:g}x   {verdict}")
    elo_gap = float(np.max(np.abs(elo - ar_elo)))
    print(
        f"max |dElo| judgebayes vs arena-rank {elo_gap:.2e} (target <= 0.01: "
        f"{'MET' if elo_gap <= 0.01 else 'NOT MET'}); vs Evalica "
        f"{np.max(np.abs(elo.to_numpy() - ev_elo)):.2e}"
    )
    print(f"max relative |SE_jb / SE_arena-rank - 1| (battle sandwich): {se_gap:.2e}")
    print(
        f"design effect (prompts): median {prompt_sandwich.median_design_effect:.2f}; median "
        f"SE battle sandwich {np.median(battle_sandwich.se):.2f}, prompt sandwich "
        f"{np.median(prompt_sandwich.se):.2f}, prompt bootstrap {np.median(boot.se):.2f} Elo"
    )


if __name__ == "__main__":
    main()
