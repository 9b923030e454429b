"""XLA's classic CPU emitters for small kernels: compile time, sampling time and draws.

What it measures
----------------
``judgebayes.bayes.engine.xla.compiler_options`` compiles the kernels of models whose
array arguments hold at most ``SMALL_DATA`` entries with ``xla_cpu_use_fusion_emitters=False``
(XLA's classic CPU emitters) and larger ones with XLA's defaults. The two emitters round
some operations (``exp``, ``log1p``) differently in the last bits, so a seed gives other
draws under each: this bench checks that the *quality* of the draws does not depend on
the choice. It runs, each route in its own new process with no persistent compilation
cache,

* ``fit_calibration`` of the hierarchical design (the one with a funnel, whose R-hat and
  ESS vary most from seed to seed) on ``bench/calibration_fit_speed.py``'s input (2
  models × 3,000 items), 2 chains × (500 + 500), for seeds 0 … ``--seeds`` − 1, and
  prints each seed's max R-hat, min bulk ESS and divergences, and their median / mean
  over seeds under each emitter (what must agree within seed-to-seed variation);
* the first call's CPU (compilation) and the later calls' CPU (sampling).

``--route classic`` is the package as it is; ``--route default`` sets ``SMALL_DATA`` to
−1, so every kernel gets XLA's defaults.

How to run
----------
``python bench/xla_emitters.py`` (about 2 minutes on 2 idle cores).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

CHILD = r"""
import hashlib, json, sys, time, warnings
import numpy as np, arviz as az
try:  # the engine of issue 28
    import judgebayes.bayes.engine.xla as C
except ImportError:  # before it
    import judgebayes.bayes.compiled as C
import judgebayes.calibration.posterior as P
from judgebayes.calibration.sweep import simulate_items
route, seeds = sys.argv[1], int(sys.argv[2])
if route == "default":
    C.SMALL_DATA = -1
q = ((1 + 0.3) / 2, (1 + 0.45) / 2)
sim = simulate_items([0.70, 0.75], q0=q, q1=q, n_cal=1000, n_test=2000, corr=0.5, seed=1)
rows, cpu, hashes = [], [], []
for seed in range(seeds):
    c0 = time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        idata = P.fit_calibration(sim.items, designs=["hierarchical"], chains=2, draws=500,
                                  warmup=500, seed=seed, progress=False).fits["hierarchical"]
    cpu.append(time.process_time() - c0)
    sampled = [v for v in idata.posterior.data_vars if v not in ("q0", "q1", "J")]
    r, e = az.rhat(idata, var_names=sampled), az.ess(idata, var_names=sampled)
    rows.append([max(float(r[v].max()) for v in r.data_vars),
                 min(float(e[v].min()) for v in e.data_vars),
                 int(idata.sample_stats["diverging"].sum())])
    h = hashlib.sha1()
    for v in sorted(idata.posterior.data_vars):
        h.update(np.ascontiguousarray(idata.posterior[v].values).tobytes())
    hashes.append(h.hexdigest()[:12])
print(json.dumps({"rows": rows, "hashes": hashes, "first_cpu": cpu[0],
                  "later_cpu": float(np.median(cpu[1:]))}))
"""


def run(route: str, seeds: int) -> dict:
    env = {**os.environ, "JUDGEBAYES_JAX_CACHE": "off"}
    out = subprocess.run(
        [sys.executable, "-c", CHILD, route, str(seeds)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=12)
    args = parser.parse_args()
    import numpy as np

    print(f"# command: python bench/xla_emitters.py --seeds {args.seeds}")
    print(
        f"# recorded: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; "
        f"load average at start: {' '.join(f'{v:.2f}' for v in os.getloadavg())}"
    )
    print(
        "hierarchical design, 2 models x 3,000 items, 2 chains x (500 + 500), no persistent cache"
    )
    for route in ("default", "classic"):
        res = run(route, args.seeds)
        rows = np.array(res["rows"])
        print(
            f"\n{route:8s} first call CPU {res['first_cpu']:5.2f} s (compile + sample), "
            f"later calls {res['later_cpu']:4.2f} s (sample); load {os.getloadavg()[0]:.2f}"
        )
        print("  seed  max R-hat  min bulk ESS  divergences  draws (SHA-1)")
        for s, (rh, ess, div) in enumerate(rows):
            print(f"  {s:4d}  {rh:9.3f}  {ess:12.0f}  {div:11.0f}  {res['hashes'][s]}")
        print(
            f"  median R-hat {np.median(rows[:, 0]):.3f}, ESS median {np.median(rows[:, 1]):.0f} "
            f"mean {rows[:, 1].mean():.0f}, seeds with R-hat > 1.05: "
            f"{int((rows[:, 0] > 1.05).sum())}, divergences median "
            f"{np.median(rows[:, 2]):.0f}"
        )


if __name__ == "__main__":
    main()
