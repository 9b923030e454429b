"""Predictive checks in notebook cells: judgebayes' compiled programs against NumPyro op by op.

What it measures
----------------
The predictive calls of the notebooks' cells, each case in its own new process with no
persistent compilation cache (what a user's first run of the cell pays), by two routes:

* **engine**: ``jb.prior_predictive``, ``jb.posterior_predictive`` and
  ``BayesCalibration.ppc`` as they are (NumPyro's ``Predictive`` compiled into one
  program by judgebayes' engine);
* **numpyro**: the same calls with the engine's program replaced by NumPyro's
  ``Predictive`` called directly (op by op: every JAX operation dispatched, and
  compiled once per shape, on its own), what the engine would be without its
  predictive programs.

Each case times the cell's predictive call(s) once (**first**: what running the cell
costs) and once more on the same data (**again**: re-running the cell); the fits the
cells check are made before the clock starts. Wall and CPU time are printed with the
load average; so is a SHA-1 of every replicated array (the two routes draw the same
integers: NumPyro's sampler on the same key).

Cases (the notebooks' own sizes, ``notebooks/*.ipynb`` without ``JUDGEBAYES_QUICK``):

* ``bt_ppc``: ``bayesian_elo`` cell 8, the per-model win rates of 20 models under a
  4 × 1,000-draw NUTS fit: ``ppc(bt_model, data, idata, stat=win_rate)`` (500 draws) up to
  fe5753a, ``predictive_statistic(jb.posterior_predictive(...), win_rate)`` (every draw)
  since issue 28 removed ``ppc``;
* ``bt_prior``: cell 11, two ``prior_predictive`` calls (λ = 0.01, 0.5), 4,000 draws each;
* ``bt_posterior``: cell 13, ``posterior_predictive`` of the 4,000-draw NUTS fit;
* ``davidson_posterior``: cell 15, Davidson (a Multinomial: the model reads its counts);
* ``calibration_prior``: ``shared_vs_model_specific_calibration`` cell 13, the paired
  design's prior predictive, 1,000 draws;
* ``calibration_ppc``: cell 19, ``BayesCalibration.ppc`` of the shared, hierarchical
  and paired designs (2 chains × 500 draws).

How to run
----------
``python bench/predictive_speed.py`` (about 5 minutes on 2 loaded cores);
``--cases bt_ppc,bt_prior`` runs some; ``--save PATH`` writes the output there too.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import _record as record  # bench/ is on sys.path when run as a script

ROOT = Path(__file__).resolve().parents[1]
MARK = "PREDICTIVE-RESULT "
CASES = (
    "bt_ppc",
    "bt_prior",
    "bt_posterior",
    "davidson_posterior",
    "calibration_prior",
    "calibration_ppc",
)

CHILD = r'''
import hashlib, json, sys, time, warnings
import numpy as np
import jax
import judgebayes as jb
from numpyro.infer import Predictive

case, route = sys.argv[1], sys.argv[2]
warnings.simplefilter("ignore")


def numpyro_predict(model, free, rng_key, sites, elements, *, samples=None, num_samples=None,
                    parallel=True):
    """NumPyro's Predictive, op by op (the route without the engine's programs)."""
    return Predictive(model, posterior_samples=samples, num_samples=num_samples,
                      return_sites=list(sites), parallel=parallel)(rng_key, **free)


if route == "numpyro":
    import judgebayes.bayes.predictive as pred
    if hasattr(pred, "_predict"):  # 3a5bdf7 and before: one function draws for every check
        pred._predict = numpyro_predict
    else:
        from judgebayes.bayes.engine import predict
        predict.draw = numpyro_predict

digests = []


def digest(*arrays):
    h = hashlib.sha1()
    for a in arrays:
        h.update(np.ascontiguousarray(np.asarray(a)).tobytes())
    digests.append(h.hexdigest()[:12])


from judgebayes.bayes.bt_models import bt_data, bt_model
from judgebayes.bayes.inference import fit

if case.startswith(("bt", "davidson")):
    sim = jb.simulate_arena(n_models=20, n_battles=6000, seed=3)
    stats = sim.battles.pair_stats("human_label")
    coords, dims = {"model": list(stats.models)}, {"theta": ["model"], "elo": ["model"]}
    data = bt_data(stats, lam=0.01)
    i, j, n = (np.asarray(data[k]) for k in ("i", "j", "n"))
    m = stats.n_models
if case in ("bt_ppc", "bt_posterior"):
    idata = fit(bt_model, data, chains=4, draws=1000, warmup=1000, seed=0, coords=coords,
                dims=dims, progress=False)
if case == "bt_ppc":
    import judgebayes.bayes.inference as inference

    def win_rate(y):
        y = np.asarray(y, dtype=float)
        wins = np.bincount(i, y, minlength=m) + np.bincount(j, n - y, minlength=m)
        return wins / (np.bincount(i, n, minlength=m) + np.bincount(j, n, minlength=m))

    if hasattr(inference, "ppc"):  # the notebook's cell up to fe5753a

        def cell():
            check = inference.ppc(bt_model, data, idata, stat=win_rate, seed=1)
            digest(check["replicated"].values)
    else:  # the cell since issue 28 removed ppc

        def cell():
            from judgebayes.bayes import predictive_statistic

            pp = jb.posterior_predictive(bt_model, data, idata, coords=coords, dims=dims, seed=1)
            check = predictive_statistic(pp, win_rate, name="win_rate", dims=["model"])
            digest(check.posterior_predictive["win_rate"].values)
elif case == "bt_prior":
    from judgebayes.bayes.bt_models import prior_sd_from_lam

    def cell():
        for lam in (0.01, 0.5):
            prior = jb.prior_predictive(bt_model, {**data, "prior_sd": prior_sd_from_lam(lam)},
                                        coords, dims, draws=4000, seed=0)
            digest(prior.prior_predictive["y"].values)
elif case == "bt_posterior":
    def cell():
        pp = jb.posterior_predictive(bt_model, data, idata, coords=coords, dims=dims, seed=1)
        digest(pp.posterior_predictive["y"].values)
elif case == "davidson_posterior":
    dav = jb.models.davidson(stats)
    dfit = jb.fit(dav, method="map", draws=4000, seed=0)

    def cell():
        pp = jb.posterior_predictive(dav, dfit, seed=1)
        digest(pp.posterior_predictive["counts"].values)
else:
    from judgebayes.calibration import fit_calibration
    from judgebayes.calibration.sweep import paper_table6, simulate_items

    t6 = paper_table6()
    case6 = t6[(t6["subject"] == "biology") & (t6["judge"] == "Mistral Large")]
    case6 = case6.set_index("model").loc[["Gemma 3 12B", "Qwen 2.5 7B"]]
    n_items = int(case6["n_items"].iloc[0])
    sim = simulate_items(case6["theta"], case6["q0"], case6["q1"], models=["Gemma", "Qwen"],
                         n_cal=n_items // 3, n_test=n_items - n_items // 3, seed=3)
    if case == "calibration_prior":
        spec = jb.models.calibration(sim.items, design="paired")

        def cell():
            prior = jb.prior_predictive(spec, draws=1000, seed=0)
            digest(prior.prior_predictive["judge_label"].values)
    else:
        bayes = fit_calibration(sim.items, designs=("shared", "hierarchical", "paired"),
                                chains=2, draws=500, warmup=500, seed=0, progress=False)

        def cell():
            for d in ("shared", "hierarchical", "paired"):
                digest(bayes.ppc(d)[["observed", "replicated", "lo", "hi"]].to_numpy())

out = {}
for call in ("first", "again"):
    t, c = time.perf_counter(), time.process_time()
    cell()
    out[call] = {"wall": time.perf_counter() - t, "cpu": time.process_time() - c}
out["draws"] = digests[: len(digests) // 2]
out["same_again"] = digests[: len(digests) // 2] == digests[len(digests) // 2 :]
print("PREDICTIVE-RESULT " + json.dumps(out))
'''


def run(case: str, route: str, env: dict[str, str]) -> dict:
    """One case by one route in a new process."""
    proc = subprocess.run(
        [sys.executable, "-c", CHILD, case, route],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "JUDGEBAYES_JAX_CACHE": "off", **env},
    )
    if proc.returncode:
        raise RuntimeError(f"{case}/{route} failed:\n{proc.stderr[-3000:]}")
    line = next(x for x in proc.stdout.splitlines() if x.startswith(MARK))
    found = json.loads(line[len(MARK) :])
    found["load"] = os.getloadavg()[0]
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", default=",".join(CASES))
    parser.add_argument("--save", default=None, metavar="PATH")
    args = parser.parse_args()
    say = record.Log()
    say.header("predictive_speed.py")
    say(
        f"{'case':<20}{'route':<9}{'first wall':>11}{'CPU':>7}{'again wall':>11}{'CPU':>7}"
        f"{'load':>6}  draws (SHA-1)"
    )
    totals: dict[str, list[float]] = {"engine": [0.0, 0.0], "numpyro": [0.0, 0.0]}
    for case in args.cases.split(","):
        found = {route: run(case, route, {}) for route in ("engine", "numpyro")}
        for route, r in found.items():
            totals[route][0] += r["first"]["wall"]
            totals[route][1] += r["again"]["wall"]
            say(
                f"{case:<20}{route:<9}{r['first']['wall']:11.2f}{r['first']['cpu']:7.2f}"
                f"{r['again']['wall']:11.2f}{r['again']['cpu']:7.2f}{r['load']:6.1f}  "
                f"{' '.join(r['draws'])}" + ("" if r["same_again"] else " (again: other draws)")
            )
        same = found["engine"]["draws"] == found["numpyro"]["draws"]
        say(f"{'':<20}same draws by both routes: {same}")
    e, o = totals["engine"], totals["numpyro"]
    say(
        f"\nall cases, wall s: first engine {e[0]:.1f}, numpyro {o[0]:.1f} "
        f"({o[0] / e[0]:.2f}x); again engine {e[1]:.1f}, numpyro {o[1]:.1f} ({o[1] / e[1]:.2f}x)"
    )
    say(f"# load average at end: {record.load()}")
    say.save(args.save)


if __name__ == "__main__":
    main()
