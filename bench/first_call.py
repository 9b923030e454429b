"""The first NUTS fit in a new process, and warm fits: judgebayes against PyMC (issue 17).

What it measures
----------------
The soft Bradley–Terry posterior of ``bench/bayes_speed.py`` (``jb.simulate_arena(seed=0)``:
55 models, 1,485 pairs; soft targets σ(0.5·score_diff); λ = 0.01), 4 chains × 1,000 draws
after 1,000 warm-up iterations, every route targeting acceptance 0.8. Each route runs in
its own new process (``python bench/first_call.py --child ROUTE``): the process imports
what it needs (timed apart), builds the data, then times its **first call** (seed 0) and
``--warm-calls`` **warm calls** (seeds 1, 2, …) of

* **judgebayes**: ``judgebayes.bayes.inference.fit(bt_model, data, ...)`` (the chunked
  NUTS driver of ``judgebayes.bayes.engine.nuts``), InferenceData with the pointwise
  log-likelihood and the R-hat/ESS checks included, with JAX's persistent compilation
  cache in a fresh folder (**cold**: the first process that ever fits this layout on the
  machine compiles and writes it) and then in that same folder (**warm cache**: every
  later process loads the compiled sampler instead of compiling it);
* **PyMC**: ``pm.sample`` of the PyMC twin (``judgebayes.bayes.pymc_twins.bt_model_pymc``,
  ``nuts_sampler="pymc"``, its C backend, chains in ``min(chains, cores)`` processes),
  the model built before the timed call as ``bench/bayes_speed.py`` does. PyTensor's own
  disk cache of compiled C code (``~/.pytensor``) is left as it is: warm on a machine that
  has run PyMC before, i.e. PyMC's first call is measured in its warm-cache state;
* **stock NumPyro** (``--numpyro``): ``MCMC(NUTS(model), chain_method="parallel",
  jit_model_args=True, progress_bar=False)`` built once per process and ``run`` for every
  call (the model's static arguments bound with ``functools.partial``; one JAX CPU device
  per chain), InferenceData by ``az.from_numpyro`` with the pointwise log-likelihood,
  with JAX's persistent compilation cache in a fresh folder (**numpyro cold**) and then
  in that same folder (**numpyro warm cache**), as judgebayes';
* with ``--before REV``: judgebayes at git revision ``REV`` (``git archive`` into a
  temporary folder, put first on ``PYTHONPATH``), the route this one replaces.
* with ``--pymc-cold``: PyMC again with PyTensor's cache in a fresh folder
  (``PYTENSOR_FLAGS=compiledir=...``), i.e. PyMC's first call on a machine where it
  never ran: the like-for-like peer of judgebayes' cold cache.

Each route runs ``--repeats`` processes, interleaved (cold, warm cache, PyMC, PyMC
cold, before; then again), so that they share the machine's load. A timing is the **minimum** wall
time over the processes (first call) or over all warm calls (warm); the ESS is the
**median** over the same calls (it depends on the seed, not on the load); the ratio of
two routes is the ratio of ESS/s = median minimum bulk ESS over the 55 θ / minimum wall
time. ESS/s ratios, not wall-time ratios, are the targets, as in ``bench/bayes_speed.py``
(wall-time ratios are printed beside them).

The judgebayes processes also report where their first call went (JAX's own
``jax.monitoring`` events: tracing, lowering to StableHLO, XLA compilation or loading
from the persistent cache; the rest is sampling, InferenceData and diagnostics, compare
the warm call).

Targets (issue 17, third row): the first fit in a new process ≥ 2× PyMC's first call
(ESS/s), warm fits ≥ 9× PyMC's warm calls. Each is printed with MET / NOT MET: the
first fit with judgebayes' cache cold and warm against PyMC's first call with its
cache as it is (warm), and, with ``--pymc-cold``, cold against cold.

How to run
----------
``python bench/first_call.py`` (about 5 minutes on 2 cores with the defaults
``--repeats 3 --warm-calls 3``); ``--before 4e7efe9`` adds the previous driver, ``--pymc-cold`` PyMC
with a cold PyTensor cache, ``--numpyro`` stock NumPyro;
``--save bench/results/first_call.txt`` also writes the output there.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import _record as record  # bench/ is on sys.path when run as a script

MARK = "FIRST-CALL-RESULT "
TARGET_FIRST = 2.0
TARGET_WARM = 9.0
ROOT = Path(__file__).resolve().parents[1]
EVENTS = {
    "/jax/core/compile/jaxpr_trace_duration": "trace",
    "/jax/core/compile/jaxpr_to_mlir_module_duration": "lower",
    "/jax/core/compile/backend_compile_duration": "compile",
    "/jax/compilation_cache/cache_retrieval_time_sec": "cache_load",
}


def _child(route: str, warm_calls: int) -> None:
    """Import, build the data, time the first call and the warm calls; print JSON."""
    t0 = time.perf_counter()
    import hashlib

    import arviz as az
    import jax
    import numpy as np
    from scipy.special import expit

    import judgebayes as jb
    from judgebayes.bayes.bt_models import bt_data, bt_model

    if route == "pymc":
        from judgebayes.bayes.pymc_twins import bt_model_pymc, sample_pymc
    elif route == "numpyro":
        import numpyro
        from numpyro.infer import MCMC, NUTS

        numpyro.set_host_device_count(4)  # one per chain, before JAX starts its backend
    else:
        from judgebayes.bayes.inference import fit
    imports = time.perf_counter() - t0
    events: dict[str, float] = {}

    def listen(name: str, seconds: float, **_: object) -> None:
        if name in EVENTS:
            events[EVENTS[name]] = events.get(EVENTS[name], 0.0) + seconds

    jax.monitoring.register_event_duration_secs_listener(listen)
    battles = jb.simulate_arena(seed=0).battles
    stats = battles.pair_stats(expit(0.5 * np.asarray(battles.column("score_diff"), float)))
    data = bt_data(stats, lam=0.01)
    coords = {"model": list(stats.models)}
    dims = {"theta": ["model"], "elo": ["model"], "y": ["pair"]}
    run = {"chains": 4, "draws": 1000}
    if route == "pymc":
        import warnings

        warnings.simplefilter("ignore")  # fork-after-JAX and BLAS notices
        twin = bt_model_pymc(data, coords)

        def call(seed: int) -> object:
            return sample_pymc(
                twin, tune=1000, seed=seed, nuts_sampler="pymc", progress=False, **run
            )
    elif route == "numpyro":
        import functools

        static = {k: v for k, v in data.items() if not isinstance(v, np.ndarray | jax.Array)}
        arrays = {k: v for k, v in data.items() if k not in static}
        mcmc = MCMC(
            NUTS(functools.partial(bt_model, **static), target_accept_prob=0.8),
            num_warmup=1000,
            num_samples=run["draws"],
            num_chains=run["chains"],
            chain_method="parallel",
            jit_model_args=True,
            progress_bar=False,
        )

        def call(seed: int) -> object:
            mcmc.run(jax.random.PRNGKey(seed), **arrays, extra_fields=("diverging", "accept_prob"))
            return az.from_numpyro(mcmc, coords=coords, dims=dims, log_likelihood=True)
    else:

        def call(seed: int) -> object:
            return fit(
                bt_model,
                data,
                warmup=1000,
                seed=seed,
                coords=coords,
                dims=dims,
                progress=False,
                **run,
            )

    calls = []
    for seed in range(1 + warm_calls):
        events.clear()
        load = os.getloadavg()[0]
        t, c = time.perf_counter(), time.process_time()
        idata = call(seed)
        wall, cpu = time.perf_counter() - t, time.process_time() - c
        ess = float(az.ess(idata, var_names=["theta"], method="bulk")["theta"].min())
        digest = hashlib.sha1()  # the draws, so that two revisions can be compared
        for name in sorted(idata.posterior.data_vars):
            digest.update(np.ascontiguousarray(idata.posterior[name].values).tobytes())
        calls.append(
            {
                "wall": wall,
                "cpu": cpu,
                "ess": ess,
                "load": load,
                "accept": float(idata.sample_stats["acceptance_rate"].mean()),
                "events": dict(events),
                "draws": digest.hexdigest()[:12],
            }
        )
    cache = jax.config.jax_compilation_cache_dir
    files = len(list(Path(cache).iterdir())) if cache and Path(cache).is_dir() else 0
    print(MARK + json.dumps({"imports": imports, "calls": calls, "cache_files": files}))


def _run_child(route: str, args: argparse.Namespace, env: dict[str, str]) -> dict:
    cmd = [
        sys.executable,
        str(Path(__file__).resolve()),
        "--child",
        route,
        "--warm-calls",
        str(args.warm_calls),
    ]
    t = time.perf_counter()
    out = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, **env}, cwd=ROOT)
    if out.returncode:
        raise RuntimeError(f"{route} child failed:\n{out.stderr[-3000:]}")
    line = next(x for x in out.stdout.splitlines() if x.startswith(MARK))
    found = json.loads(line[len(MARK) :])
    found["process"] = time.perf_counter() - t
    return found


def main(args: argparse.Namespace) -> None:
    say = record.Log()
    say.header("first_call.py")
    say(
        "arena: jb.simulate_arena(seed=0), 55 models, 1,485 pairs; NUTS 4 chains x 1,000 "
        "draws after 1,000 warm-up",
    )
    routes: dict[str, list[dict]] = {"cold": [], "warm cache": [], "pymc": []}
    with tempfile.TemporaryDirectory() as tmp:
        before_env = None
        if args.pymc_cold:
            routes["pymc cold"] = []
        if args.numpyro:
            routes["numpyro cold"] = []
            routes["numpyro warm"] = []
        if args.before:
            routes["before"] = []
            src = Path(tmp) / "before"
            src.mkdir()
            archive = subprocess.run(
                ["git", "archive", args.before, "src"], cwd=ROOT, capture_output=True, check=True
            ).stdout
            subprocess.run(["tar", "-x", "-C", str(src)], input=archive, check=True)
            before_env = {"PYTHONPATH": str(src / "src"), "JUDGEBAYES_JAX_CACHE": "off"}
        for r in range(args.repeats):
            cache = str(Path(tmp) / f"jax-cache-{r}")
            todo = [
                ("cold", "judgebayes", {"JUDGEBAYES_JAX_CACHE": cache}),
                ("warm cache", "judgebayes", {"JUDGEBAYES_JAX_CACHE": cache}),
                ("pymc", "pymc", {"JUDGEBAYES_JAX_CACHE": "off"}),
            ]
            if args.numpyro:
                jax_cache = {
                    "JUDGEBAYES_JAX_CACHE": "off",
                    "JAX_COMPILATION_CACHE_DIR": str(Path(tmp) / f"numpyro-cache-{r}"),
                    "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS": "0.2",
                }
                todo += [
                    ("numpyro cold", "numpyro", jax_cache),
                    ("numpyro warm", "numpyro", jax_cache),
                ]
            if args.pymc_cold:
                todo.append(
                    (
                        "pymc cold",
                        "pymc",
                        {
                            "JUDGEBAYES_JAX_CACHE": "off",
                            "PYTENSOR_FLAGS": f"compiledir={Path(tmp) / f'pytensor-{r}'}",
                        },
                    )
                )
            if before_env:
                todo.append(("before", "judgebayes", before_env))
            for name, route, env in todo:
                found = _run_child(route, args, env)
                routes[name].append(found)
                first = found["calls"][0]
                warm = ", ".join(f"{c['wall']:.2f}" for c in found["calls"][1:])
                draws = " ".join(c["draws"] for c in found["calls"])
                say(
                    f"  run {r + 1} {name:<11} imports {found['imports']:5.2f} s, first call "
                    f"{first['wall']:6.2f} s (CPU {first['cpu']:5.2f} s, ESS {first['ess']:5.0f},"
                    f" load {first['load']:4.1f}), warm calls {warm} s; cache files "
                    f"{found['cache_files']}; draws (SHA-1 by seed) {draws}",
                )
    report(routes, args, say)
    say.save(args.save)


def _best(runs: list[dict], first: bool) -> tuple[float, float]:
    """(minimum wall time, median ESS) over the first calls or over all warm calls."""
    calls = [r["calls"][0] for r in runs] if first else [c for r in runs for c in r["calls"][1:]]
    return min(c["wall"] for c in calls), statistics.median(c["ess"] for c in calls)


def report(routes: dict[str, list[dict]], args: argparse.Namespace, say: record.Log) -> None:
    best = {
        (name, first): _best(runs, first)
        for name, runs in routes.items()
        for first in (True, False)
    }
    say(
        f"\nbest of {args.repeats} processes (first call) / of all their warm calls: "
        "wall = minimum, ESS = median (min bulk ESS over 55 theta)",
    )
    say(f"{'route':<34}{'wall s':>8}{'ESS':>7}{'ESS/s':>8}{'imports s':>11}")
    for (name, first), (wall, ess) in best.items():
        imports = min(r["imports"] for r in routes[name])
        say(
            f"{name + (' first call' if first else ' warm call'):<34}{wall:8.2f}{ess:7.0f}"
            f"{ess / wall:8.0f}{imports:11.2f}",
        )
    for name in ("cold", "warm cache", "before"):
        if name not in routes:
            continue
        run = min(routes[name], key=lambda r: r["calls"][0]["wall"])
        ev = run["calls"][0]["events"]
        rest = run["calls"][0]["wall"] - sum(ev.values())
        say(
            f"  {name} first call {run['calls'][0]['wall']:.2f} s = JAX tracing "
            f"{ev.get('trace', 0):.2f} + lowering {ev.get('lower', 0):.2f} + XLA compile "
            f"{ev.get('compile', 0):.2f} (of which loading from the persistent cache "
            f"{ev.get('cache_load', 0):.2f}) + sampling, InferenceData, diagnostics "
            f"{rest:.2f} (a warm call of that process: "
            f"{min(c['wall'] for c in run['calls'][1:]):.2f} s)",
        )

    def ratio(a: tuple, b: tuple) -> float:
        return (a[1] / a[0]) / (b[1] / b[0])

    say("\nTargets (ESS/s ratios; wall-time ratio in brackets)")
    pymc_first, pymc_warm = best[("pymc", True)], best[("pymc", False)]
    for name, label in (("cold", "cold cache"), ("warm cache", "warm persistent cache")):
        r = ratio(best[(name, True)], pymc_first)
        say(
            f"  first fit in a new process ({label}) vs PyMC first call: {r:.1f}x "
            f"[{pymc_first[0] / best[(name, True)][0]:.1f}x], target >= {TARGET_FIRST:.0f}x: "
            f"{'MET' if r >= TARGET_FIRST else 'NOT MET'}",
        )
    if "pymc cold" in routes:
        r = ratio(best[("cold", True)], best[("pymc cold", True)])
        say(
            f"  first fit in a new process (cold cache) vs PyMC first call (cold PyTensor "
            f"cache): {r:.1f}x [{best[('pymc cold', True)][0] / best[('cold', True)][0]:.1f}x]"
            f", target >= {TARGET_FIRST:.0f}x: {'MET' if r >= TARGET_FIRST else 'NOT MET'}",
        )
    ours_warm = (
        best[("warm cache", False)]
        if best[("warm cache", False)][0] <= best[("cold", False)][0]
        else best[("cold", False)]
    )
    r = ratio(ours_warm, pymc_warm)
    say(
        f"  warm fit vs PyMC warm call: {r:.1f}x [{pymc_warm[0] / ours_warm[0]:.1f}x], "
        f"target >= {TARGET_WARM:.0f}x: {'MET' if r >= TARGET_WARM else 'NOT MET'}",
    )
    if "numpyro cold" in routes:
        for name in ("numpyro cold", "numpyro warm"):
            ours = "cold" if name == "numpyro cold" else "warm cache"
            r = ratio(best[(ours, True)], best[(name, True)])
            say(
                f"  context: first fit ({ours}) vs stock NumPyro MCMC(jit_model_args=True) "
                f"first call ({name.split()[1]} JAX cache): ESS/s {r:.1f}x, wall "
                f"{best[(name, True)][0] / best[(ours, True)][0]:.1f}x",
            )
        warm_np = min(best[("numpyro cold", False)], best[("numpyro warm", False)])
        say(
            f"  context: warm fit vs stock NumPyro MCMC(jit_model_args=True) warm call "
            f"(same MCMC object, recompiles nothing): ESS/s {ratio(ours_warm, warm_np):.1f}x, "
            f"wall {warm_np[0] / ours_warm[0]:.1f}x",
        )
    if "before" in routes:
        for first in (True, False):
            b = best[("before", first)]
            now = best[("warm cache", True)] if first else ours_warm
            which = "first call (warm cache)" if first else "warm call"
            say(
                f"  context: {which} vs the replaced driver ({args.before}): ESS/s "
                f"{ratio(now, b):.1f}x, wall {b[0] / now[0]:.1f}x; cold first call vs it: "
                f"wall {best[('before', True)][0] / best[('cold', True)][0]:.1f}x"
                if first
                else f"  context: {which} vs the replaced driver ({args.before}): ESS/s "
                f"{ratio(now, b):.1f}x, wall {b[0] / now[0]:.1f}x",
            )


def _parse() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3, help="processes per route")
    parser.add_argument("--warm-calls", type=int, default=3, help="warm calls per process")
    parser.add_argument(
        "--before", default=None, metavar="REV", help="also run judgebayes at this git revision"
    )
    parser.add_argument(
        "--pymc-cold", action="store_true", help="also run PyMC with a fresh PyTensor cache"
    )
    parser.add_argument(
        "--numpyro",
        action="store_true",
        help="also run stock NumPyro MCMC(jit_model_args=True), cold and warm JAX cache",
    )
    parser.add_argument("--save", default=None, metavar="PATH", help="write the output here")
    parser.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.repeats < 1 or args.warm_calls < 1:
        parser.error("--repeats and --warm-calls must be at least 1")
    return args


if __name__ == "__main__":
    arguments = _parse()
    if arguments.child:
        _child(arguments.child, arguments.warm_calls)
    else:
        main(arguments)
