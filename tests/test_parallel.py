"""The unit runner: serial and Dask give the same numbers; failures are reported, not fatal."""

from __future__ import annotations

import importlib
import sys
import time

import numpy as np
import pandas as pd
import pytest

import judgebayes as jb
from judgebayes.parallel import (
    RunResult,
    UnitError,
    run_held_out,
    run_sbc,
    run_sweep,
    run_units,
    unit_seeds,
)

distributed = pytest.importorskip("distributed")


def noisy_mean(config: dict, seed: int, *, scale: float = 1.0) -> dict:
    """A unit: the mean of draws around ``x``; ``x = 3`` fails; slow units finish late."""
    if config["x"] == 3:
        raise ValueError("three is not allowed")
    time.sleep(0.05 * (config["x"] % 2))  # completion order differs from grid order
    draws = np.random.default_rng(seed).normal(config["x"] * scale, 1.0, 500)
    return {"mean": float(draws.mean()), "sd": float(draws.std())}


GRID = {"x": [0, 1, 2, 3, 4, 5], "tag": ["a", "b"]}


@pytest.fixture(scope="module")
def client():
    """An in-process cluster (threads): fast to start, enough to test the runner."""
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as c,
    ):
        yield c


def test_runner_on_a_cluster_gives_the_serial_results(client) -> None:
    serial = run_units(
        noisy_mean, GRID, seed=7, scheduler="serial", shared={"scale": 2.0}, progress=False
    )
    dask = run_units(
        noisy_mean, GRID, seed=7, scheduler=client, shared={"scale": 2.0}, progress=False
    )
    assert isinstance(dask, RunResult) and dask.scheduler.startswith("inproc://")
    pd.testing.assert_frame_equal(serial.frame, dask.frame)
    assert serial.values == dask.values
    assert list(serial.frame.columns) == ["unit", "x", "tag", "seed", "mean", "sd"]
    assert serial.frame["unit"].tolist() == [k for k in range(12) if k not in (6, 7)]


def test_a_failing_unit_is_reported_with_its_config_while_the_others_complete(client) -> None:
    result = run_units(noisy_mean, GRID, seed=7, scheduler=client, progress=False)
    assert not result.ok and len(result.frame) == 10
    failed = result.failures
    assert failed[["unit", "x", "tag"]].values.tolist() == [[6, 3, "a"], [7, 3, "b"]]
    assert failed["error"].eq("ValueError: three is not allowed").all()
    assert "noisy_mean" in failed["traceback"].iloc[0]
    assert result.values[6] is None and result.values[8]["mean"] > 0
    with pytest.raises(UnitError, match=r"2 of 12 units failed: unit 6 \{'x': 3, 'tag': 'a'\}"):
        result.raise_failures()
    assert "2 failed" in repr(result)


def test_seeds_depend_on_the_grid_position_only() -> None:
    seeds = unit_seeds(11, 5)
    children = np.random.SeedSequence(11).spawn(5)
    assert seeds.tolist() == [int(c.generate_state(1, np.uint32)[0]) for c in children]
    assert unit_seeds(11, 9)[:5].tolist() == seeds.tolist()  # more units: same first seeds
    assert len(set(seeds.tolist())) == 5 and (seeds < 2**32).all()
    # the same unit in another run gets the same seed, whatever ran around it
    whole = run_units(noisy_mean, GRID, seed=2, scheduler="serial", progress=False)
    one = run_units(noisy_mean, [{"x": 0, "tag": "a"}], seed=2, scheduler="serial", progress=False)
    assert one.seeds[0] == whole.seeds[0] and one.values[0] == whole.values[0]


def test_sweep_recipe_is_the_same_serially_and_on_a_cluster(client) -> None:
    settings = {
        "j_a_values": (0.2, 0.6),
        "delta_j_values": (0.1,),
        "n_reps": 30,
        "n_boot": 60,
        "seed": 3,
        "progress": False,
    }
    serial = run_sweep(scheduler="serial", **settings)
    dask = run_sweep(scheduler=client, **settings)
    pd.testing.assert_frame_equal(serial.frame, dask.frame)
    assert len(serial.frame) == 3 * 5 and serial.settings["n_reps"] == 30
    assert serial.frame.groupby("unit")["seed"].nunique().eq(1).all()


def test_held_out_recipe_runs_one_unit_per_judge(client) -> None:
    frames = []
    for k, judge in enumerate(("j1", "j2")):
        sim = jb.simulate_arena(6, 900, judge=judge, seed=k)
        frames.append(sim.battles.frame)
    battles = jb.Battles(pd.concat(frames, ignore_index=True))
    serial = run_held_out(battles, n_boot=0, scheduler="serial", seed=1, progress=False)
    dask = run_held_out(battles, n_boot=0, scheduler=client, seed=1, progress=False)
    pd.testing.assert_frame_equal(serial.frame, dask.frame)
    assert serial.frame.groupby("judge").size().to_dict() == {"j1": 6, "j2": 6}
    assert {"elo_soft", "elo_human", "beta"} <= set(serial.frame.columns)


def test_sbc_recipe_pools_the_ranks_of_its_parts(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each part is ``sbc`` with its unit's seed; the parts' draws are tested together.

    ``sbc`` itself is replaced by a cheap stand-in with the same signature (a real one
    compiles NUTS once per part: ``bench/scale.py`` runs it).
    """
    sbc_module = importlib.import_module("judgebayes.bayes.sbc")

    def fake_sbc(model, data, *, n_sims, seed, progress, draws=10, **options):
        rng = np.random.default_rng(seed)
        return sbc_module.SBCResult.from_draws(
            ["theta[0]", "theta[1]"],
            rng.normal(size=(n_sims, 2)),
            rng.normal(size=(n_sims, draws, 2)),
            n_bins=5,
            n_divergent=np.full(n_sims, seed % 3),
        )

    monkeypatch.setattr(sbc_module, "sbc", fake_sbc)
    pooled = run_sbc(
        print, {"y": None}, n_sims=7, parts=2, seed=4, scheduler="serial", progress=False, draws=10
    )
    seeds = unit_seeds(4, 2)
    first = fake_sbc(print, {}, n_sims=3, seed=int(seeds[0]), progress=False)
    second = fake_sbc(print, {}, n_sims=4, seed=int(seeds[1]), progress=False)
    assert pooled.n_sims == 7 and pooled.n_post == 10 and pooled.n_bins == 5
    np.testing.assert_array_equal(pooled.ranks, np.concatenate([first.ranks, second.ranks]))
    np.testing.assert_array_equal(pooled.n_divergent[[0, 3]], [seeds[0] % 3, seeds[1] % 3])
    with pytest.raises(ValueError, match="parts must be between 1 and"):
        run_sbc(print, {}, n_sims=7, parts=4, scheduler="serial")


def test_serial_runs_need_no_dask(monkeypatch: pytest.MonkeyPatch) -> None:
    import judgebayes.parallel as parallel

    real = parallel._dask

    def missing() -> None:
        with monkeypatch.context() as m:  # as if dask were not installed
            m.setitem(sys.modules, "distributed", None)
            real()

    monkeypatch.setattr(parallel, "_dask", missing)
    assert run_units(noisy_mean, [{"x": 1}], scheduler="serial", progress=False).ok
    with pytest.raises(ImportError, match=r"pip install 'judgebayes\[dask\]'"):
        run_units(noisy_mean, [{"x": 1}], progress=False)
