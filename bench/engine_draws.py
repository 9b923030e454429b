"""The draws of every route of the Bayesian engine, hashed: do two revisions draw the same?

What it measures
----------------
Every route through the engine, on every model builder of :mod:`judgebayes.models`
(small data, short runs): NUTS (``jb.fit``), MAP + Laplace, ADVI, the prior and posterior
predictive, simulation-based calibration, ``fit_calibration`` (every design) and
leave-one-battle-out with exact refits. Each prints a SHA-1 of what it drew (every
variable of every group, in name order) and a few summary numbers, so that the output
of two revisions can be compared line by line (``diff``): an engine refactoring that
keeps the draws prints the same hashes. Float rounding counts: a hash differs where
one draw differs in its last bit, so a changed line is then read with its summary
numbers beside it.

How to run
----------
``python bench/engine_draws.py`` (about 3 minutes on 2 cores); ``--save PATH`` writes
the output there too. No timing: the machine's load does not matter.
"""

from __future__ import annotations

import argparse
import hashlib
import time
import warnings
from collections.abc import Callable

import arviz as az
import numpy as np

import _record as record  # bench/ is on sys.path when run as a script
import judgebayes as jb


def digest(idata: az.InferenceData) -> str:
    """SHA-1 of every variable of every group (name order), first 12 hex digits."""
    h = hashlib.sha1()
    for group in sorted(idata.groups()):
        ds = idata[group]
        for name in sorted(ds.data_vars):
            h.update(f"{group}/{name}".encode())
            h.update(np.ascontiguousarray(ds[name].values).tobytes())
    return h.hexdigest()[:12]


def summary(idata: az.InferenceData) -> str:
    """Mean of the first posterior (or prior) variable: a number to read beside a hash."""
    group = "posterior" if "posterior" in idata.groups() else "prior"
    name = sorted(idata[group].data_vars)[0]
    return f"{group}.{name} mean {float(idata[group][name].mean()):+.6f}"


def specs() -> dict[str, jb.ModelSpec]:
    """One spec per builder, on small simulated data."""
    from judgebayes.calibration.sweep import simulate_items

    bt = jb.simulate_bt(6, 900, tie_nu=0.5, seed=101).battles
    arena = jb.simulate_arena(6, 900, seed=102).battles
    judges = jb.simulate_judges(5, 3, 600, seed=103)
    items = simulate_items([0.7, 0.75], q0=(0.7, 0.8), q1=(0.7, 0.8), n_cal=150, n_test=300, seed=1)
    out = {
        "bt": jb.models.bt(bt, "human_label"),
        "soft_bt": jb.models.soft_bt(arena, beta=0.5),
        "davidson": jb.models.davidson(bt, "human_label"),
        "multi_judge": jb.models.multi_judge(judges.battles),
        "temperature": jb.models.temperature(arena),
        "judge_discrimination": jb.models.judge_discrimination(judges.battles),
        "matchup_dirichlet": jb.models.matchup_dirichlet(judges.battles),
    }
    for design in ("shared", "hierarchical", "paired"):
        out[f"calibration_{design}"] = jb.models.calibration(items.items, design)
    from judgebayes import anchors

    verdicts = anchors.simulate_verdicts(6, 40, seed=7)
    out["anchors"] = anchors.ordered_logistic_spec(
        verdicts.table(anchor=verdicts.anchor_at("strongest"))
    )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--save", default=None, metavar="PATH")
    args = parser.parse_args()
    say = record.Log()

    def route(label: str, call: Callable[[], az.InferenceData]) -> None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                idata = call()
            except Exception as error:  # a route a model does not support: said, not hidden
                say(f"{label:<46} {type(error).__name__}: {str(error).splitlines()[0][:60]}")
                return
        say(f"{label:<46} {digest(idata)}  {summary(idata)}")

    start = time.perf_counter()
    say("# command: python bench/engine_draws.py")
    nuts = {"chains": 2, "draws": 150, "warmup": 150, "progress": False}
    for name, spec in specs().items():
        route(f"{name} nuts", lambda s=spec: jb.fit(s, seed=0, **nuts))
        route(f"{name} nuts again, seed 1", lambda s=spec: jb.fit(s, seed=1, **nuts))
        route(f"{name} map", lambda s=spec: jb.fit(s, method="map", draws=100, seed=0))
        route(f"{name} prior predictive", lambda s=spec: jb.prior_predictive(s, draws=50, seed=0))
        route(
            f"{name} posterior predictive",
            lambda s=spec: jb.posterior_predictive(s, jb.fit(s, seed=0, **nuts), seed=1),
        )
    bt = specs()["bt"]
    route("bt advi", lambda: jb.fit(bt, method="advi", advi_steps=300, draws=100, seed=0))

    def sbc_as_idata(spec: jb.ModelSpec, **options: object) -> az.InferenceData:
        result = jb.sbc(
            spec, n_sims=6, draws=60, warmup=60, batch_size=3, progress=False, **options
        )
        return az.from_dict(posterior={"ranks": result.ranks[None], "post": result.posterior[None]})

    route("bt sbc", lambda: sbc_as_idata(bt, seed=0))
    route("calibration_shared sbc", lambda: sbc_as_idata(specs()["calibration_shared"], seed=0))
    route("davidson sbc", lambda: sbc_as_idata(specs()["davidson"], seed=0))
    from judgebayes.calibration import fit_calibration
    from judgebayes.calibration.sweep import simulate_items

    items = simulate_items([0.7, 0.75], q0=(0.7, 0.8), q1=(0.7, 0.8), n_cal=150, n_test=300, seed=1)
    fits = fit_calibration(items.items, chains=2, draws=150, warmup=150, seed=0, progress=False)
    for design, idata in fits.fits.items():
        route(f"fit_calibration {design}", lambda i=idata: i)
    battles = jb.simulate_bt(5, 400, seed=3).battles
    spec = jb.models.bt(battles, "human_label")

    def loo() -> az.InferenceData:
        fit = jb.fit(spec, seed=0, **nuts)
        result = jb.battle_loo(
            spec, battles, fit, target="human_label", k_threshold=0.2, fallback="refit", seed=0
        )
        return az.from_dict(posterior={"elpd": result.pointwise()[None, None]})

    route("bt battle_loo refit", loo)
    say(f"# {time.perf_counter() - start:.0f} s")
    say.save(args.save)


if __name__ == "__main__":
    main()
