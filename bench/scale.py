"""Scale: a 10^8-battle Parquet arena in bounded memory, the bootstrap at 10^6, studies on Dask.

What it measures (one run, printed as ratios)
---------------------------------------------
1. **Arena size.** A synthetic Bradley–Terry (Davidson ties, ν = 0.5) arena of 200 models is
   written to Parquet (:func:`write_synthetic_parquet`: dictionary-encoded model names, one
   row group per 4M rows) at 10^7 and ``--battles`` (default 10^8) battles. Each route runs
   in a child process of its own, which reports its wall time and peak RSS
   (``resource.getrusage(RUSAGE_SELF).ru_maxrss``, the interpreter and imports included;
   "imports" is the RSS after ``import judgebayes``, before reading):

   * **stream**: :func:`judgebayes.core.stream.scan_pairs` (record batches of 2^20 rows,
     only the needed columns) → ``pair_stats()`` → :func:`judgebayes.fit_bt`; at the large
     size also 1,000 bootstrap replicates of that fit (:func:`judgebayes.bootstrap_bt`);
   * **pandas**: the in-memory route, :func:`judgebayes.read_table` (the whole file into a
     validated pandas table) → ``fit_bt``. It runs at 10^7; at the large size only when ten
     times its 10^7 peak fits in 80 % of the memory available now (it does not on a 24 GB
     machine: the table says so).

2. **Bootstrap.** 1,000 Poisson replicates of the 200-model fit at 10^6 battles
   (``jb.bootstrap_bt`` on the pair statistics; target ≤ 2 s on an idle machine).

3. **Dask.** The full Fiedler (*Bias and Uncertainty in LLM-as-a-Judge Estimation*, 2026,
   arXiv:2605.06939) sweep (:func:`judgebayes.parallel.run_sweep`: 15 sweep points × 200
   replications × 1,000 bootstrap replicates, one unit per point) and SBC of the Bradley–Terry model
   (:func:`judgebayes.parallel.run_sbc`: 10 models, 200 simulations in 2 parts, NUTS 200 + 200)
   serially and on a 2-worker ``LocalCluster`` (single-threaded worker processes): wall times, the
   speed-up with and without the cluster's start-up (and the workers' first imports of judgebayes
   and JAX), and whether the results are identical. This process runs with the workers' environment
   (:data:`judgebayes.parallel.WORKER_ENV`, one BLAS/XLA thread), so "serial" means one core, as
   each worker has.

The machine is shared: the load average is printed beside the timings. Generated files go
to ``--workdir`` (default: a temporary folder) and are deleted at the end.

How to run
----------
``python bench/scale.py`` (about 15 minutes on 2 shared cores), ``--battles 1e7`` for a
smaller large size, ``--skip-dask`` to leave out part 3.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from judgebayes.parallel import WORKER_ENV

N_MODELS = 200
N_BOOT = 1000
SEED = 0
BOOT_TARGET_S = 2.0


def write_synthetic_parquet(
    path: str | Path,
    n_battles: int,
    *,
    n_models: int = N_MODELS,
    elo_sd: float = 100.0,
    tie_nu: float = 0.5,
    seed: int = SEED,
    row_group: int = 1 << 22,
) -> Path:
    """A Bradley–Terry (Davidson) arena as one Parquet file, written row group by row group.

    Columns ``model_a``, ``model_b`` (dictionary-encoded ``model-000`` …) and
    ``human_label`` (1, 0.5, 0): the story of :func:`judgebayes.simulate_bt` (uniform
    ordered pairs, P(tie) = ν / (2 cosh(d/2) + ν), A wins σ(d) of the rest). Memory is one
    row group. The true strengths are in the file's metadata (``judgebayes.theta``).
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(seed)
    theta = rng.normal(0.0, elo_sd * np.log(10) / 400, n_models)
    theta -= theta.mean()
    width = len(str(n_models - 1))
    names = pa.array([f"model-{k:0{width}d}" for k in range(n_models)])
    kind = pa.dictionary(pa.int16(), pa.string())
    schema = pa.schema(
        [("model_a", kind), ("model_b", kind), ("human_label", pa.float64())],
        metadata={"judgebayes.theta": json.dumps(theta.tolist())},
    )
    with pq.ParquetWriter(path, schema) as writer:
        for start in range(0, n_battles, row_group):
            n = min(row_group, n_battles - start)
            a = rng.integers(0, n_models, n, dtype=np.int16)
            b = ((a + rng.integers(1, n_models, n, dtype=np.int16)) % n_models).astype(np.int16)
            d = theta[a] - theta[b]
            tie = tie_nu / (2.0 * np.cosh(d / 2.0) + tie_nu)
            win = (1.0 - tie) / (1.0 + np.exp(-d))
            u = rng.random(n)
            label = np.where(u < win, 1.0, np.where(u < win + tie, 0.5, 0.0))
            writer.write_table(
                pa.table(
                    [
                        pa.DictionaryArray.from_arrays(a, names),
                        pa.DictionaryArray.from_arrays(b, names),
                        label,
                    ],
                    schema=schema,
                )
            )
    return Path(path)


# ------------------------------------------------------------------ child routes
def _peak_mib() -> float:
    """Peak resident set size of this process so far (``ru_maxrss``), MiB."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _rss_mib() -> float:
    """Resident set size now (``VmRSS`` of ``/proc/self/status``), MiB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def child(route: str, path: Path, n_boot: int) -> dict:
    """One route in this (child) process: times, peak RSS and the fitted Elo."""
    import judgebayes as jb
    from judgebayes.core.stream import scan_pairs

    out: dict = {"route": route, "rss_imports_mib": _rss_mib()}
    t0 = time.perf_counter()
    if route == "stream":
        stats = scan_pairs(path, progress=False).pair_stats()
    else:
        stats = jb.read_table(path).pair_stats("human_label")
    t1 = time.perf_counter()
    fit = jb.fit_bt(stats)
    t2 = time.perf_counter()
    out.update(
        aggregate_s=t1 - t0,
        fit_s=t2 - t1,
        total_s=t2 - t0,
        peak_mib=_peak_mib(),
        n_battles=stats.n_battles,
        n_pairs=stats.n_pairs,
        elo=fit.elo.tolist(),
    )
    if n_boot:
        t3 = time.perf_counter()
        boot = jb.bootstrap_bt(stats, n_boot=n_boot, seed=SEED, progress=False)
        out.update(
            boot_s=time.perf_counter() - t3,
            boot_median_se=float(np.median(boot.se)),
            peak_boot_mib=_peak_mib(),
        )
    return out


def measure(route: str, path: Path, n_boot: int = 0) -> dict:
    """Run :func:`child` in a fresh interpreter and return its report."""
    cmd = [sys.executable, __file__, "--child", route, "--file", str(path), "--n-boot", str(n_boot)]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        return {"route": route, "error": done.stderr.strip().splitlines()[-1:]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def _above(report: dict) -> float:
    """Peak RSS above the interpreter and imports, MiB."""
    return max(report["peak_mib"] - report["rss_imports_mib"], 1.0)


def _load() -> str:
    return "load average " + " ".join(f"{x:.1f}" for x in os.getloadavg())


def _available_mib() -> float:
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("MemAvailable:"):
            return int(line.split()[1]) / 1024
    return float("nan")


# ------------------------------------------------------------------ parts
def bench_arena(workdir: Path, large: int) -> None:
    small = min(10**7, large)
    print(f"== 1. Arena: {N_MODELS} models, Parquet, aggregate + fit ({_load()})", flush=True)
    files = {}
    for n in sorted({small, large}):
        t0 = time.perf_counter()
        files[n] = write_synthetic_parquet(workdir / f"arena_{n:.0e}.parquet", n)
        print(
            f"  wrote {n:,} battles: {files[n].stat().st_size / 2**20:,.0f} MiB in "
            f"{time.perf_counter() - t0:.1f} s",
            flush=True,
        )
    rows = [
        ("stream", small, measure("stream", files[small])),
        ("pandas", small, measure("pandas", files[small])),
    ]
    pandas_small = rows[1][2]
    budget = 0.8 * _available_mib()
    if large != small:
        rows.append(("stream", large, measure("stream", files[large], n_boot=N_BOOT)))
        predicted = pandas_small.get("peak_mib", np.inf) * large / small
        if predicted < budget:
            rows.append(("pandas", large, measure("pandas", files[large])))
        else:
            print(
                f"  pandas at {large:,}: not run; predicted peak {predicted / 1024:.1f} GiB "
                f"(its {small:,} peak x {large // small}) > 80% of the "
                f"{budget / 0.8 / 1024:.1f} GiB available now",
                flush=True,
            )
    print(
        f"\n  {'route':<7} {'battles':>13} {'aggregate s':>11} {'fit s':>7} {'total s':>8} "
        f"{'peak RSS MiB':>12} {'(imports)':>9}"
    )
    for route, n, r in rows:
        if "error" in r:
            print(f"  {route:<7} {n:>13,} failed: {r['error']}")
            continue
        print(
            f"  {route:<7} {n:>13,} {r['aggregate_s']:>11.2f} {r['fit_s']:>7.3f} "
            f"{r['total_s']:>8.2f} {r['peak_mib']:>12,.0f} {r['rss_imports_mib']:>9,.0f}"
        )
    s, p = rows[0][2], rows[1][2]
    if "error" not in s and "error" not in p:
        d_elo = np.max(np.abs(np.array(s["elo"]) - np.array(p["elo"])))
        print(
            f"\n  at {small:,}: pandas / stream wall time {p['total_s'] / s['total_s']:.1f}x, "
            f"peak RSS {p['peak_mib'] / s['peak_mib']:.1f}x "
            f"(above imports: {_above(p) / _above(s):.1f}x); "
            f"max |dElo| stream vs pandas {d_elo:.1e}"
        )
    big = rows[2][2] if len(rows) > 2 else None
    if big and "error" not in big:
        print(
            f"  stream {large:,} vs {small:,}: time {big['total_s'] / s['total_s']:.1f}x, "
            f"peak RSS {big['peak_mib'] / s['peak_mib']:.2f}x; {big['n_pairs']:,} pairs; "
            f"{N_BOOT} bootstrap replicates of the {large:,}-battle fit: "
            f"{big['boot_s']:.1f} s (median SE {big['boot_median_se']:.2f} Elo, peak RSS "
            f"{big['peak_boot_mib']:,.0f} MiB)"
        )
    print(flush=True)


def bench_bootstrap() -> None:
    import judgebayes as jb

    print(
        f"== 2. Bootstrap: {N_BOOT} replicates, {N_MODELS} models, 10^6 battles ({_load()})",
        flush=True,
    )
    stats = jb.simulate_bt(N_MODELS, 10**6, tie_nu=0.5, seed=SEED).battles.pair_stats("human_label")
    times = []
    for _ in range(2):
        t0 = time.perf_counter()
        boot = jb.bootstrap_bt(stats, n_boot=N_BOOT, seed=SEED, progress=False)
        times.append(time.perf_counter() - t0)
    best = min(times)
    print(
        f"  {len(stats.cell_count):,} cells; runs {', '.join(f'{t:.2f}' for t in times)} s "
        f"(fit included), best {best:.2f} s = {best / BOOT_TARGET_S:.2f}x the "
        f"{BOOT_TARGET_S:g} s target; median SE {np.median(boot.se):.2f} Elo; "
        f"{_load()}\n",
        flush=True,
    )


def _timed(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[float, Any]:
    t0 = time.perf_counter()
    out = fn(*args, **kwargs)
    return time.perf_counter() - t0, out


def _warm_up() -> None:
    """Import what the units need in a worker (so the timings compare warm processes)."""
    import judgebayes.bayes.sbc
    import judgebayes.calibration.sweep  # noqa: F401


def bench_dask() -> None:
    import pandas as pd
    from distributed import Client, LocalCluster, get_task_stream

    import judgebayes as jb
    from judgebayes.bayes.bt_models import bt_data, bt_model
    from judgebayes.parallel import run_sbc, run_sweep

    print(f"== 3. Dask: 2-worker LocalCluster vs serial ({_load()})", flush=True)
    stats = jb.simulate_bt(10, 2000, tie_nu=0.5, seed=SEED).battles.pair_stats("human_label")
    data = bt_data(stats, lam=0.5)
    sbc_kw = {
        "n_sims": 200,
        "parts": 2,
        "draws": 200,
        "warmup": 200,
        "seed": SEED,
        "progress": False,
    }
    jobs = {
        "Fiedler sweep (15 points x 200 reps x 1000 boot)": (
            lambda where: run_sweep(scheduler=where, seed=SEED, progress=False),
            lambda r: r.frame,
        ),
        "SBC, BT 10 models (200 sims in 2 parts)": (
            lambda where: run_sbc(bt_model, data, scheduler=where, **sbc_kw),
            lambda r: pd.DataFrame(r.ranks),
        ),
    }
    t_start, cluster = _timed(
        LocalCluster,
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        env=dict(WORKER_ENV),
        dashboard_address=None,
    )
    client = Client(cluster)
    t_warm, _ = _timed(client.run, _warm_up)
    print(
        f"  cluster start-up {t_start:.1f} s; workers import judgebayes and JAX in "
        f"{t_warm:.1f} s (this process has them already)",
        flush=True,
    )
    t_start += t_warm
    try:
        for name, (run, frame) in jobs.items():
            t_serial, serial = _timed(run, "serial")
            with get_task_stream(client) as tasks:
                t_dask, dask = _timed(run, client)
            busy = sum(
                stop - start
                for task in tasks.data
                for what, start, stop in (
                    (s["action"], s["start"], s["stop"]) for s in task["startstops"]
                )
                if what == "compute"
            )
            same = frame(serial).equals(frame(dask))
            print(
                f"  {name}: serial {t_serial:.1f} s, 2 workers {t_dask:.1f} s -> speed-up "
                f"{t_serial / t_dask:.2f}x ({t_serial / (t_dask + t_start):.2f}x counting the "
                f"{t_start:.1f} s start-up and imports); units ran {busy / t_dask:.2f} at a "
                f"time on average, each {busy / t_serial:.2f}x its serial time; identical "
                f"results: {same}; {_load()}",
                flush=True,
            )
    finally:
        client.close()
        cluster.close()
    print(flush=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--battles", type=float, default=1e8)
    parser.add_argument("--workdir", type=Path, default=None)
    parser.add_argument("--skip-dask", action="store_true")
    parser.add_argument("--child", choices=["stream", "pandas"], help=argparse.SUPPRESS)
    parser.add_argument("--file", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--n-boot", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child(args.child, args.file, args.n_boot)))
        return
    if any(os.environ.get(k) != v for k, v in WORKER_ENV.items()):
        # NumPy has loaded its BLAS already: start again with one BLAS/XLA thread, as the
        # Dask workers have, so that "serial" below means one core.
        os.execve(
            sys.executable,
            [sys.executable, __file__, *(argv or sys.argv[1:])],
            {**os.environ, **WORKER_ENV},
        )
    workdir = Path(tempfile.mkdtemp(prefix="jb-scale-", dir=args.workdir))
    print(
        f"judgebayes bench/scale.py on {os.cpu_count()} cores, "
        f"{_available_mib() / 1024:.1f} GiB available; files in {workdir}\n",
        flush=True,
    )
    t0 = time.perf_counter()
    try:
        bench_arena(workdir, int(args.battles))
        bench_bootstrap()
        if not args.skip_dask:
            bench_dask()
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    print(f"total {time.perf_counter() - t0:.0f} s; generated files deleted")


if __name__ == "__main__":
    main()
