"""Reference posteriors for the model catalogue (posteriordb-style).

For every model in ``CATALOGUE`` this script rebuilds the fixed simulated data
set named in its spec, runs a long NUTS (4 chains × 5,000 draws after 2,000
warm-up) and writes ``models/<name>/reference.json`` with the posterior mean, SD
and Monte Carlo SE of every scalar of interest. Tests
(``tests/test_reference_posteriors.py``) compare MAP + Laplace, a short NUTS run
and the PyMC twin against these files.

Run from the repository root::

    python models/make_reference.py            # all models
    python models/make_reference.py bt_hard    # one model
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import arviz as az

from judgebayes.bayes.catalogue import CATALOGUE, build
from judgebayes.bayes.inference import fit

HERE = Path(__file__).resolve().parent


def main(names: list[str]) -> None:
    for name in names or list(CATALOGUE):
        spec = CATALOGUE[name]
        model, data, coords, dims = build(name)
        start = time.perf_counter()
        idata = fit(
            model,
            data,
            chains=4,
            draws=5000,
            warmup=2000,
            seed=20261123,
            coords=coords,
            dims=dims,
            progress=False,
        )
        summary = az.summary(idata, var_names=spec["summarise"], round_to="none")
        out = {
            "model": name,
            "data": spec["data"],
            "nuts": {
                "chains": 4,
                "draws": 5000,
                "warmup": 2000,
                "seed": 20261123,
                "seconds": round(time.perf_counter() - start, 1),
                "max_r_hat": float(summary["r_hat"].max()),
                "min_ess_bulk": float(summary["ess_bulk"].min()),
            },
            "summary": {
                row: {
                    "mean": float(r["mean"]),
                    "sd": float(r["sd"]),
                    "mcse_mean": float(r["mcse_mean"]),
                }
                for row, r in summary.iterrows()
            },
        }
        path = HERE / name / "reference.json"
        path.parent.mkdir(exist_ok=True)
        path.write_text(json.dumps(out, indent=1) + "\n")
        print(f"{name}: {out['nuts']}")


if __name__ == "__main__":
    main(sys.argv[1:])
