"""Speed of ``fit_calibration`` on 2 models × 3,000 items, against the route it replaced.

What it measures
----------------
The input is the Section 5 simulation (:func:`judgebayes.calibration.sweep.simulate_items`):
θ = (0.70, 0.75), J_A = 0.3, J_B = 0.45 (q0 = q1 = (1 + J)/2), latent correlation 0.5,
1,000 calibration and 2,000 test items per model (3,000 items, 6,000 judged rows), seed
001. The call is ``fit_calibration(items, designs=..., chains=2, draws=500, warmup=500,
seed=0, progress=False)`` for the designs of issue 17 (shared, model-specific,
hierarchical) and for the current default (those and ``paired``).

Two routes, each in its own process (``python -c``), so that nothing compiled by one is
in memory for the other:

* **new**: ``fit_calibration`` as it is: the per-item log-likelihoods (``item``,
  ``question``) are indexed from the cell log-likelihoods that ``fit`` has already
  computed with its compiled kernel, and the per-question sums are formed once per
  distinct set of cells;
* **old**: the same call with ``_item_loglik`` / ``_paired_loglik`` replaced by
  ``item_loglik_reference`` / ``paired_loglik_reference`` of
  ``tests/_calibration_fixtures.py``, the previous route (the cell
  log-likelihoods recomputed from every draw by NumPyro's ``log_likelihood``, whose
  ``lax.map`` compiles a kernel per design, then a rows × items sparse product).

Each process is run with a *cold* JAX persistent compilation cache (an empty folder:
what a first call pays, and what issue 17's 59 s measured) and with a *warm* one (the
folder filled by an earlier process: what every later process pays). Timers wrapped
around the engine's and the module's functions give the profile of each process (NUTS
kernel: tracing, lowering and compiling the chunk kernel, ``CompiledModel._nuts_kernel``;
NUTS sampling; ``fit``'s cell log-likelihoods and InferenceData; the per-item
log-likelihoods), and JAX's own ``jax.monitoring`` events say where the compilation went
(tracing, lowering to StableHLO, XLA's compilation, loading from the persistent cache).
The draws of the two routes are compared (they must be identical: the sampler is the
same) and so are the per-item log-likelihoods, R-hat and bulk ESS.

The target of issue 17 is ``fit_calibration`` (three designs) in ≤ 10 s; it is printed
with MET / NOT MET for the cold and warm cache. The machine is shared: the load average
is printed with every timing; wall times on a loaded machine are a multiple of the
processes' CPU time, which is printed too.

With ``--serial`` (at revisions up to fe5753a, which compiled ahead) a third route,
**serial**, runs the issue's designs as **new** does but with nothing compiled ahead
(``fit_calibration`` then handed every design's kernels to a pool of compile threads,
``CompiledModel.precompile``, removed by issue 28): the on/off comparison of compiling
ahead, recorded in ``bench/results/calibration_fit_speed.txt``. Later revisions have
nothing to switch off, and the route is then the same as **new**.

How to run
----------
``python bench/calibration_fit_speed.py`` (about 5 minutes on 2 loaded cores);
``--serial`` adds the route without compile ahead.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGET_S = 10.0
ISSUE_DESIGNS = "shared,model_specific,hierarchical"

CHILD = r"""
import functools, hashlib, json, os, sys, time, warnings
t0 = time.perf_counter()
import numpy as np
import arviz as az
import judgebayes.bayes.inference as I
import judgebayes.calibration.posterior as P
from judgebayes.calibration.sweep import simulate_items
try:  # the engine of issue 28
    import judgebayes.bayes.engine.model as C
except ImportError:  # before it
    import judgebayes.bayes.compiled as C
route, designs = sys.argv[1], sys.argv[2]
designs = None if designs == "default" else designs.split(",")
if route == "old":
    if hasattr(P, "_item_loglik_reference"):  # before issue 28
        P._item_loglik = P._item_loglik_reference
        P._paired_loglik = P._paired_loglik_reference
    else:  # the previous route lives with the tests
        sys.path.insert(0, "tests")
        from _calibration_fixtures import item_loglik_reference, paired_loglik_reference
        P._item_loglik, P._paired_loglik = item_loglik_reference, paired_loglik_reference
if route == "serial":  # no design compiled ahead: each fit compiles its own kernels
    P._compile_ahead = lambda jobs: None
T = {}
EVENTS = {"/jax/core/compile/jaxpr_trace_duration": "ev_trace",
          "/jax/core/compile/jaxpr_to_mlir_module_duration": "ev_lower",
          "/jax/core/compile/backend_compile_duration": "ev_compile",
          "/jax/compilation_cache/cache_retrieval_time_sec": "ev_cache_load"}
def listen(name, seconds, **_):
    if name in EVENTS:
        T[EVENTS[name]] = T.get(EVENTS[name], 0.0) + seconds
import jax
jax.monitoring.register_event_duration_secs_listener(listen)
def timed(owner, name, label):
    if not hasattr(owner, name):  # a step this revision does not have
        return
    f = getattr(owner, name)
    @functools.wraps(f)
    def wrapper(*a, **k):
        s = time.perf_counter()
        try:
            return f(*a, **k)
        finally:
            T[label] = T.get(label, 0.0) + time.perf_counter() - s
    setattr(owner, name, wrapper)
timed(P, "_compile_ahead", "ahead")  # up to fe5753a
timed(C.CompiledModel, "_nuts_kernel", "nuts_kernel")
timed(C.CompiledModel, "nuts", "nuts")
timed(C.CompiledModel, "pointwise_log_likelihood", "fit_loglik")
timed(I, "_to_idata", "to_idata")
timed(P, "fit", "fit")
for name in ("_item_loglik", "_paired_loglik"):
    timed(P, name, "item_loglik")
q = ((1 + 0.3) / 2, (1 + 0.45) / 2)
sim = simulate_items([0.70, 0.75], q0=q, q1=q, n_cal=1000, n_test=2000, corr=0.5, seed=1)
imports = time.perf_counter() - t0
c0, s = time.process_time(), time.perf_counter()
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    bc = P.fit_calibration(sim.items, designs=designs, chains=2, draws=500, warmup=500,
                           seed=0, progress=False)
wall, cpu = time.perf_counter() - s, time.process_time() - c0
diag = {}
for d, idata in bc.fits.items():
    sampled = [v for v in idata.posterior.data_vars if v not in ("q0", "q1", "J")]
    r, e = az.rhat(idata, var_names=sampled), az.ess(idata, var_names=sampled)
    h = hashlib.sha1()
    for v in sorted(idata.posterior.data_vars):
        h.update(np.ascontiguousarray(idata.posterior[v].values).tobytes())
    q = idata.log_likelihood["question"].values
    diag[d] = {"rhat": max(float(r[v].max()) for v in r.data_vars),
               "ess": min(float(e[v].min()) for v in e.data_vars), "draws": h.hexdigest()[:12],
               "question": float(q.sum())}
    np.save(os.environ["BENCH_OUT"] + f"/{d}.npy", q)
print(json.dumps({"imports": imports, "wall": wall, "cpu": cpu, "T": T, "diag": diag}))
"""


def load() -> str:
    """The load average, as printed beside each timing."""
    return " ".join(f"{v:.2f}" for v in os.getloadavg())


def run_child(route: str, designs: str, cache: Path, out: Path) -> dict:
    """One route in a fresh process with the JAX cache folder ``cache``."""
    out.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "JAX_COMPILATION_CACHE_DIR": str(cache), "BENCH_OUT": str(out)}
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-c", CHILD, route, designs],
        capture_output=True,
        text=True,
        env=env,
        cwd=Path(__file__).resolve().parents[1],
    )
    if proc.returncode != 0:
        raise RuntimeError(f"{route} route failed:\n{proc.stderr[-3000:]}")
    info = json.loads(proc.stdout.strip().splitlines()[-1])
    info["process_s"] = time.perf_counter() - start
    info["load"] = load()
    return info


def line(label: str, info: dict) -> str:
    """One process: wall and CPU of fit_calibration, and its profile."""
    t = info["T"]
    sample = t.get("nuts", 0) - t.get("nuts_kernel", 0)
    idata = t.get("to_idata", 0) - t.get("fit_loglik", 0)
    return (
        f"  {label:26s} fit_calibration {info['wall']:6.2f} s (CPU {info['cpu']:5.2f} s) | "
        f"compile ahead {t.get('ahead', 0):5.2f}, "
        f"NUTS kernel {t.get('nuts_kernel', 0):5.2f}, sampling {sample:5.2f}, "
        f"fit cell loglik {t.get('fit_loglik', 0):4.2f}, fit idata {idata:4.2f}, "
        f"per-item loglik {t.get('item_loglik', 0):5.2f} | JAX events: trace "
        f"{t.get('ev_trace', 0):4.2f}, lower {t.get('ev_lower', 0):4.2f}, XLA compile "
        f"{t.get('ev_compile', 0):5.2f}, cache loads {t.get('ev_cache_load', 0):4.2f}; "
        f"load {info['load']}"
    )


def main() -> None:
    """Run the routes, print the table and the targets."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--warm-repeats", type=int, default=2)
    parser.add_argument(
        "--serial",
        action="store_true",
        help="also run the issue's designs with nothing compiled ahead (compile ahead off)",
    )
    args = parser.parse_args()
    import numpy as np

    started = time.perf_counter()
    head = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    print(
        "# command: python bench/calibration_fit_speed.py"
        + (f" --warm-repeats {args.warm_repeats}" if args.warm_repeats != 2 else "")
    )
    print(
        f"# recorded: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, judgebayes at "
        f"commit {head} (+ the working tree)"
    )
    print(f"# machine: {os.cpu_count()} CPU cores; Python {platform.python_version()}")
    print(f"# load average at start: {load()}")
    print(
        "input: simulate_items(θ=(0.70, 0.75), J=(0.30, 0.45), n_cal=1000, n_test=2000, "
        "seed=1): 2 models × 3,000 items; 2 chains × (500 warm-up + 500 draws)\n"
    )
    results: dict[tuple, list[dict]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for designs, label in ((ISSUE_DESIGNS, "issue's 3 designs"), ("default", "default")):
            print(f"designs: {label} ({designs})")
            for route in ("old", "new", *(["serial"] if args.serial else [])):
                if route == "serial" and designs != ISSUE_DESIGNS:
                    continue
                if designs == ISSUE_DESIGNS:  # cold: an empty cache folder
                    cold = root / f"cold-{route}"
                    info = run_child(route, designs, cold, root / f"out-{route}-{designs}")
                    results.setdefault((designs, route, "cold"), []).append(info)
                    print(line(f"{route}, cold cache", info), flush=True)
                warm = root / "warm"
                if not (root / f"filled-{designs}").exists():  # fill it once (not timed)
                    run_child("new", designs, warm, root / "fill")
                    (root / f"filled-{designs}").touch()
                for k in range(args.warm_repeats if designs == ISSUE_DESIGNS else 1):
                    info = run_child(route, designs, warm, root / f"out-{route}-{designs}")
                    results.setdefault((designs, route, "warm"), []).append(info)
                    print(line(f"{route}, warm cache, run {k + 1}", info), flush=True)
            # identical draws, R-hat, ESS and per-item log-likelihoods of the two routes
            new, old = (results[(designs, r, "warm")][-1]["diag"] for r in ("new", "old"))
            for d in new:
                a = np.load(root / f"out-new-{designs}" / f"{d}.npy")
                b = np.load(root / f"out-old-{designs}" / f"{d}.npy")
                print(
                    f"    {d:15s} draws identical {new[d]['draws'] == old[d]['draws']} "
                    f"(SHA-1 {new[d]['draws']}); "
                    f"R-hat {new[d]['rhat']:.3f} (old {old[d]['rhat']:.3f}), bulk ESS "
                    f"{new[d]['ess']:.0f} (old {old[d]['ess']:.0f}); per-item log-lik "
                    f"max |new − old| {np.abs(a - b).max():.1e}"
                )
            print()
    best = {k: min(v, key=lambda i: i["wall"]) for k, v in results.items()}
    print("best (minimum) of each, fit_calibration [s]       new       old  old/new")
    for (designs, route, cache), info in best.items():
        if route != "new":
            continue
        old = best[(designs, "old", cache)]
        name = "issue's 3 designs" if designs == ISSUE_DESIGNS else "default (+ paired)"
        print(
            f"  {name:20s} {cache} cache, wall          {info['wall']:7.2f}  "
            f"{old['wall']:7.2f}  {old['wall'] / info['wall']:5.2f}x"
        )
        print(
            f"  {name:20s} {cache} cache, CPU           {info['cpu']:7.2f}  "
            f"{old['cpu']:7.2f}  {old['cpu'] / info['cpu']:5.2f}x"
        )
    print("\nTargets (issue 17; the issue's 59 s was a first, cold-cache call):")
    for cache in ("cold", "warm"):
        info = best[(ISSUE_DESIGNS, "new", cache)]
        old = best[(ISSUE_DESIGNS, "old", cache)]
        met = "MET" if info["wall"] <= TARGET_S else "NOT MET"
        t = info["T"]
        kernel = t.get("ahead", 0) + t.get("nuts_kernel", 0)
        print(
            f"  fit_calibration, 3 designs, {cache} cache <= {TARGET_S:g} s   "
            f"{info['wall']:6.2f} s   {met}  ({old['wall'] / info['wall']:.2f}x the old "
            f"route; kernels ahead + waited for {kernel:.2f} s, XLA compile summed over "
            f"threads {t.get('ev_compile', 0):.2f} s)"
        )
    if args.serial:
        print("\nCompile ahead on/off (issue's 3 designs; best of each):")
        for cache in ("cold", "warm"):
            on, off = best[(ISSUE_DESIGNS, "new", cache)], best[(ISSUE_DESIGNS, "serial", cache)]
            print(
                f"  {cache} cache: on {on['wall']:6.2f} s (CPU {on['cpu']:5.2f}), off "
                f"{off['wall']:6.2f} s (CPU {off['cpu']:5.2f}): off/on wall "
                f"{off['wall'] / on['wall']:.2f}x; draws identical "
                f"{all(on['diag'][d]['draws'] == off['diag'][d]['draws'] for d in on['diag'])}"
            )
    print(f"# load average at end: {load()}; wall time {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
