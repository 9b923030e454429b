"""Independent units of work (config, seed) mapped over a grid, serially or on Dask.

A *unit* is a pure function ``unit(config, seed, **shared)`` of one grid point (a dict of
settings), an integer seed and read-only shared inputs. :func:`run_units` maps it over a
grid with :mod:`dask.distributed` — a new ``LocalCluster`` by default, any scheduler
address or ``Client`` when given — or serially in this process, and gathers the results
into one tidy :class:`pandas.DataFrame` (one row per result row, with the unit's config
and seed beside it).

* **Seeds** do not depend on scheduling: unit k of a grid of n gets
  ``SeedSequence(seed).spawn(n)[k]`` as a 32-bit integer (:func:`unit_seeds`), whatever
  ran before it, where and in which order; serial and Dask runs give the same numbers.
* **Failures** do not stop the run: a unit that raises is reported with its config,
  seed, error and traceback in :attr:`RunResult.failures` while the others complete
  (:meth:`RunResult.raise_failures` turns them into one error).
* **Shared inputs** (a battles table, a model's data) are sent to every worker once
  (``Client.scatter(broadcast=True)``), not once per unit.
* **Cores.** JAX stays inside the units. Workers of the default cluster are processes
  with one thread each and the environment :data:`WORKER_ENV` (``OMP_NUM_THREADS``,
  ``MKL_NUM_THREADS``, ``OPENBLAS_NUM_THREADS`` = 1 and ``XLA_FLAGS`` for a single-threaded
  XLA CPU backend), so ``n_workers`` processes use ``n_workers`` cores and no more. For a
  cluster of your own, start the workers the same way, e.g.
  ``env OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 XLA_FLAGS="…" dask worker ADDRESS
  --nworkers N --nthreads 1``; a unit that runs first in a worker process where JAX is
  not yet loaded sets these variables itself.

Dask is an optional extra (``pip install "judgebayes[dask]"``); ``scheduler="serial"``
needs none. Recipes run the package's studies through the runner: :func:`run_sweep`
(the sweep of Fiedler, *Bias and Uncertainty in LLM-as-a-Judge Estimation*, 2026, arXiv:2605.06939,
over J and ΔJ, one unit per sweep point), :func:`run_sbc` (simulation-based calibration in parts)
and :func:`run_held_out` (the held-out Soft-Elo protocol of Kargi & Salinas (*From Uncertain
Judgments to Calibrated Rankings: Conformal Elo Estimation for LLM Evaluation*, 2026,
arXiv:2606.13221), one unit per judge).
"""

from __future__ import annotations

import itertools
import os
import sys
import time
import traceback
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from judgebayes.core.results import ResultDisplay

if TYPE_CHECKING:
    from judgebayes.bayes.sbc import SBCResult
    from judgebayes.calibration.sweep import Sweep
    from judgebayes.core.battles import Battles

__all__ = [
    "WORKER_ENV",
    "RunResult",
    "UnitError",
    "run_held_out",
    "run_sbc",
    "run_sweep",
    "run_units",
    "unit_seeds",
]

#: Environment of the default cluster's worker processes: one thread per worker.
WORKER_ENV: dict[str, str] = {
    "OMP_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "XLA_FLAGS": "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1",
}

Unit = Callable[..., Any]
Grid = Sequence[Mapping[str, Any]] | Mapping[str, Sequence[Any]]


class UnitError(RuntimeError):
    """Some units of a run failed (see :attr:`RunResult.failures`)."""


def unit_seeds(seed: int, n: int) -> np.ndarray:
    """The seed of each of ``n`` units: ``SeedSequence(seed).spawn(n)[k]``, 32-bit.

    Unit k's seed depends on ``seed`` and k only (not on n beyond k, nor on the order
    units run in). 32 bits because ``jax.random.PRNGKey`` keeps only the low 32 bits of
    a larger seed.
    """
    children = np.random.SeedSequence(seed).spawn(n)
    return np.array([c.generate_state(1, np.uint32)[0] for c in children], dtype=np.int64)


def expand_grid(grid: Grid) -> list[dict[str, Any]]:
    """A list of configs: as given, or the Cartesian product of ``{key: values}``."""
    if isinstance(grid, Mapping):
        keys = list(grid)
        return [
            dict(zip(keys, values, strict=True))
            for values in itertools.product(*(grid[k] for k in keys))
        ]
    return [dict(config) for config in grid]


@dataclass(frozen=True)
class _Failed:
    error: str
    traceback: str


def _call(
    unit: Unit, config: Mapping[str, Any], seed: int, shared: Mapping[str, Any], client_pid: int
) -> tuple[Any, float]:
    """Run one unit: its value (an exception becomes a :class:`_Failed`) and wall time."""
    if os.getpid() != client_pid and "jax" not in sys.modules:
        for key, value in WORKER_ENV.items():  # a worker process started without them
            os.environ.setdefault(key, value)
    start = time.perf_counter()
    try:
        value = unit(dict(config), int(seed), **shared)
    except Exception as err:  # reported with the unit's config
        value = _Failed(f"{type(err).__name__}: {err}", traceback.format_exc())
    return value, time.perf_counter() - start


@dataclass(frozen=True, repr=False)
class RunResult(ResultDisplay):
    """What a run of units gave.

    Attributes
    ----------
    frame
        Tidy results: ``unit``, the config keys (unless a result has a column of that
        name), ``seed`` and the result's columns; a unit returning a mapping or a scalar
        (column ``value``) gives one row, a DataFrame (or anything with ``to_frame()``)
        its rows. Failed units give no rows.
    values
        Each unit's return value in grid order (``None`` where it failed).
    failures
        ``unit``, config keys, ``seed``, ``error``, ``traceback`` of the failed units.
    configs, seeds
        The grid and the unit seeds.
    scheduler
        Where it ran (``"serial"`` or the scheduler's address).
    seconds
        Wall time, cluster start-up included.
    unit_seconds
        Each unit's own wall time (NaN where its worker died); their sum over
        :attr:`seconds` is how many units ran at once, on average.
    """

    frame: pd.DataFrame
    values: list[Any]
    failures: pd.DataFrame
    configs: list[dict[str, Any]]
    seeds: np.ndarray
    scheduler: str
    seconds: float
    unit_seconds: np.ndarray

    @property
    def ok(self) -> bool:
        """No unit failed."""
        return len(self.failures) == 0

    def _headline(self) -> str:
        failed = f", {len(self.failures)} failed" if len(self.failures) else ""
        return (
            f"{len(self.configs)} units{failed} on {self.scheduler} in "
            f"{self.seconds:.1f} s; {len(self.frame):,} result rows"
        )

    def to_frame(self) -> pd.DataFrame:
        """:attr:`frame` (a copy)."""
        return self.frame.copy()

    def raise_failures(self) -> None:
        """Raise :class:`UnitError` naming each failed unit's config and error."""
        if self.ok:
            return
        lines = [
            f"unit {row['unit']} {self.configs[row['unit']]}: {row['error']}"
            for _, row in self.failures.iterrows()
        ]
        raise UnitError(f"{len(lines)} of {len(self.configs)} units failed: " + "; ".join(lines))


def _rows(value: Any, tidy: Callable[[Any], Any] | None) -> pd.DataFrame | None:
    if tidy is not None:
        value = tidy(value)
    if isinstance(value, pd.DataFrame):
        return value.reset_index(drop=True)
    if isinstance(value, pd.Series):
        return value.to_frame().T.reset_index(drop=True)
    if isinstance(value, Mapping):
        return pd.DataFrame([dict(value)])
    if hasattr(value, "to_frame"):
        return value.to_frame().reset_index(drop=True)
    if np.isscalar(value) or value is None:
        return pd.DataFrame({"value": [value]})
    return None


def _tidy(
    values: list[Any],
    configs: list[dict[str, Any]],
    seeds: np.ndarray,
    tidy: Callable[[Any], Any] | None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    frames, failed = [], []
    for k, (value, config) in enumerate(zip(values, configs, strict=True)):
        head = {"unit": k, **config, "seed": int(seeds[k])}
        if isinstance(value, _Failed):
            failed.append({**head, "error": value.error, "traceback": value.traceback})
            continue
        rows = _rows(value, tidy)
        if rows is None:
            continue
        front = pd.DataFrame(
            {c: [v] * len(rows) for c, v in head.items() if c not in rows.columns}, index=rows.index
        )
        frames.append(pd.concat([front, rows], axis=1))
    frame = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    columns = ["unit", *dict.fromkeys(k for c in configs for k in c), "seed", "error", "traceback"]
    return frame, pd.DataFrame(failed, columns=columns)


def _dask() -> Any:
    try:
        import distributed
    except ImportError:  # pragma: no cover - depends on the extra
        raise ImportError(
            "judgebayes.parallel needs dask for scheduler != 'serial': "
            "pip install 'judgebayes[dask]' (or pass scheduler='serial')"
        ) from None
    return distributed


def _client(scheduler: Any, n_workers: int) -> tuple[Any, list[Any]]:
    """A Client for ``scheduler`` and what to close afterwards (what we started)."""
    distributed = _dask()
    if isinstance(scheduler, distributed.Client):
        return scheduler, []
    if scheduler is None or scheduler == "local":
        import logging

        cluster = distributed.LocalCluster(
            n_workers=n_workers,
            threads_per_worker=1,
            processes=True,
            env=dict(WORKER_ENV),
            dashboard_address=None,
            silence_logs=logging.ERROR,
        )
        client = distributed.Client(cluster)
        return client, [client, cluster]
    client = distributed.Client(scheduler)  # an address, or a Cluster object
    return client, [client]


def run_units(
    unit: Unit,
    grid: Grid,
    *,
    seed: int = 0,
    scheduler: Any = None,
    n_workers: int = 2,
    shared: Mapping[str, Any] | None = None,
    tidy: Callable[[Any], Any] | None = None,
    progress: bool = True,
) -> RunResult:
    """Map ``unit(config, seed, **shared)`` over ``grid`` and gather the results.

    Parameters
    ----------
    unit
        A pure function of (config, seed) and the ``shared`` inputs; importable by the
        workers (a module-level function, not a lambda, on a process cluster). JAX and
        other heavy work stay inside it.
    grid
        A list of configs (dicts), or ``{key: values}`` for their Cartesian product.
    seed
        Root seed; unit k gets :func:`unit_seeds` ``(seed, n)[k]``.
    scheduler
        ``None`` or ``"local"``: a new ``LocalCluster`` of ``n_workers`` single-threaded
        processes (closed afterwards); ``"serial"``: this process, in grid order, no
        Dask; a scheduler address (``"tcp://…"``), a ``Cluster`` or a
        ``distributed.Client``: that cluster (left running).
    n_workers
        Workers of the default cluster (one per core you can spare).
    shared
        Read-only inputs passed to every unit by keyword, sent to each worker once.
    tidy
        Turns a unit's return value into a DataFrame or mapping for :attr:`RunResult.frame`
        (default: mappings, DataFrames, ``to_frame()`` results and scalars as they are).
    progress
        Show a progress bar over units.

    Returns
    -------
    RunResult
        ``frame`` (tidy results), ``values`` (raw, in grid order), ``failures``.
    """
    configs = expand_grid(grid)
    seeds = unit_seeds(seed, len(configs))
    shared = dict(shared or {})
    start = time.perf_counter()
    values: list[Any] = [None] * len(configs)
    unit_seconds = np.full(len(configs), np.nan)
    bar = tqdm(total=len(configs), desc="units", unit="unit", disable=not progress)
    if scheduler == "serial":
        where = "serial"
        for k, config in enumerate(configs):
            values[k], unit_seconds[k] = _call(unit, config, int(seeds[k]), shared, os.getpid())
            bar.update(1)
    else:
        client, owned = _client(scheduler, n_workers)
        try:
            where = str(client.scheduler.address)
            sent = {k: client.scatter([v], broadcast=True)[0] for k, v in shared.items()}
            futures = {
                client.submit(_call, unit, config, int(seeds[k]), sent, os.getpid(), pure=False): k
                for k, config in enumerate(configs)
            }
            for future in _dask().as_completed(futures):
                k = futures[future]
                try:
                    values[k], unit_seconds[k] = future.result()
                except Exception as err:  # the worker died: say so
                    values[k] = _Failed(f"{type(err).__name__}: {err}", "")
                bar.update(1)
        finally:
            for thing in owned:
                thing.close()
    bar.close()
    frame, failures = _tidy(values, configs, seeds, tidy)
    values = [None if isinstance(v, _Failed) else v for v in values]
    return RunResult(
        frame=frame,
        values=values,
        failures=failures,
        configs=configs,
        seeds=seeds,
        scheduler=where,
        seconds=time.perf_counter() - start,
        unit_seconds=unit_seconds,
    )


# ------------------------------------------------------------------ recipes
def _sweep_point(config: Mapping[str, Any], seed: int, **settings: Any) -> Sweep:
    """One point of Fiedler's (2026) sweep (a unit of :func:`run_sweep`)."""
    from judgebayes.calibration.sweep import simulate_sweep

    values = {"j_a_values": (), "delta_j_values": ()}
    values["j_a_values" if config["sweep"] == "J_A" else "delta_j_values"] = (config["x"],)
    return simulate_sweep(**values, seed=seed, progress=False, **settings)


def run_sweep(
    *,
    j_a_values: Sequence[float] | None = None,
    delta_j_values: Sequence[float] | None = None,
    seed: int = 0,
    scheduler: Any = None,
    n_workers: int = 2,
    progress: bool = True,
    **settings: Any,
) -> Sweep:
    """Fiedler's (2026) sweep over J_A and ΔJ (Figure 1), one unit per sweep point.

    Each point runs :func:`~judgebayes.calibration.sweep.simulate_sweep` on that point
    alone with the unit's seed, so the numbers are those of the runner's seeds (the
    same serially and on any cluster), not those of one ``simulate_sweep(seed=seed)``
    call, which spawns its per-point streams differently.

    Parameters
    ----------
    j_a_values, delta_j_values
        The sweep points (default: those of ``simulate_sweep``).
    seed, scheduler, n_workers, progress
        As for :func:`run_units`.
    settings
        Other keyword arguments of ``simulate_sweep`` (``n_reps``, ``n_boot``, ...).

    Returns
    -------
    Sweep
        Its ``frame`` has the columns of ``simulate_sweep``'s plus ``unit`` and ``seed``.
    """
    from judgebayes.calibration.sweep import simulate_sweep

    defaults = simulate_sweep.__kwdefaults__
    grid = [
        {"sweep": "J_A", "x": float(x)}
        for x in (defaults["j_a_values"] if j_a_values is None else j_a_values)
    ] + [
        {"sweep": "delta_J", "x": float(x)}
        for x in (defaults["delta_j_values"] if delta_j_values is None else delta_j_values)
    ]
    run = run_units(
        _sweep_point,
        grid,
        seed=seed,
        scheduler=scheduler,
        n_workers=n_workers,
        shared=settings,
        tidy=lambda sweep: sweep.frame,
        progress=progress,
    )
    run.raise_failures()
    first = run.values[0]
    return type(first)(run.frame, {**first.settings, "seed": seed, "unit_seeds": True})


def _sbc_part(
    config: Mapping[str, Any],
    seed: int,
    *,
    model: Callable,
    data: Mapping[str, Any],
    **options: Any,
) -> SBCResult:
    """``config["n_sims"]`` simulations of :func:`~judgebayes.bayes.sbc.sbc`."""
    from judgebayes.bayes.sbc import sbc

    return sbc(model, data, n_sims=config["n_sims"], seed=seed, progress=False, **options)


def run_sbc(
    model: Callable,
    data: Mapping[str, Any],
    *,
    n_sims: int = 100,
    parts: int | None = None,
    seed: int = 0,
    scheduler: Any = None,
    n_workers: int = 2,
    progress: bool = True,
    **options: Any,
) -> SBCResult:
    """Simulation-based calibration in ``parts`` units of about ``n_sims / parts`` each.

    Each part is :func:`~judgebayes.bayes.sbc.sbc` with its unit's seed (JAX compiles
    once per part); the ranks of all parts are tested together
    (:meth:`~judgebayes.bayes.sbc.SBCResult.from_draws`).

    Parameters
    ----------
    model, data, n_sims
        As for ``sbc``.
    parts
        Units (default ``n_workers``, whatever the scheduler: the same ``parts`` and
        ``seed`` give the same ranks serially and on a cluster).
    seed, scheduler, n_workers, progress
        As for :func:`run_units`.
    options
        Other keyword arguments of ``sbc`` (``draws``, ``warmup``, ``n_bins``, ...).
    """
    from judgebayes.bayes.sbc import SBCResult

    parts = parts or n_workers
    if not 1 <= parts <= n_sims // 2:
        raise ValueError(f"parts must be between 1 and n_sims / 2 = {n_sims // 2}")
    sizes = np.diff(np.linspace(0, n_sims, parts + 1).astype(int))
    run = run_units(
        _sbc_part,
        [{"part": k, "n_sims": int(s)} for k, s in enumerate(sizes)],
        seed=seed,
        scheduler=scheduler,
        n_workers=n_workers,
        shared={"model": model, "data": data, **options},
        tidy=lambda result: result.to_frame(),
        progress=progress,
    )
    run.raise_failures()
    done = run.values
    return SBCResult.from_draws(
        done[0].parameters,
        np.concatenate([r.prior for r in done]),
        np.concatenate([r.posterior for r in done]),
        n_bins=done[0].n_bins,
        alpha=done[0].alpha,
        n_divergent=np.concatenate([r.n_divergent for r in done]),
    )


def _held_out_judge(
    config: Mapping[str, Any], seed: int, *, battles: Battles, **options: Any
) -> pd.DataFrame:
    """The held-out protocol of Kargi & Salinas (2026) on one judge's battles."""
    from judgebayes.softelo.held_out import held_out_elo

    return held_out_elo(
        battles.for_judge(config["judge"]), seed=seed, progress=False, **options
    ).table


def run_held_out(
    battles: Battles,
    *,
    judges: Sequence[str] | None = None,
    seed: int = 0,
    scheduler: Any = None,
    n_workers: int = 2,
    progress: bool = True,
    **options: Any,
) -> RunResult:
    """Held-out Soft-Elo (Kargi & Salinas, 2026, Algorithm 1) of every judge, one unit per judge.

    Parameters
    ----------
    battles
        Battles of several judges (a ``judge`` column), sent to each worker once.
    judges
        Which judges (default: all).
    seed, scheduler, n_workers, progress
        As for :func:`run_units`; judge k's protocol runs with unit k's seed.
    options
        Keyword arguments of :func:`~judgebayes.softelo.held_out.held_out_elo`.

    Returns
    -------
    RunResult
        ``frame``: the ``held_out_elo`` table of each judge, with ``judge`` and ``seed``.
    """
    judges = list(battles.judges if judges is None else judges)
    return run_units(
        _held_out_judge,
        [{"judge": j} for j in judges],
        seed=seed,
        scheduler=scheduler,
        n_workers=n_workers,
        shared={"battles": battles, **options},
        progress=progress,
    )
