"""Speed of ``judgebayes softelo`` on the default arena, against the route it replaced.

What it measures
----------------
The input is the default simulated arena, ``jb.simulate_arena()``
with its defaults (55 models, 25,000 battles, every battle judged and human-labelled, seed 0),
written as a CSV. The command is ``judgebayes softelo FILE --format csv --no-progress --out DIR``
with its defaults: β on the human non-ties, the held-out protocol (Algorithm 1) of Kargi & Salinas
(*From Uncertain Judgments to Calibrated Rankings: Conformal Elo Estimation for LLM Evaluation*,
2026, arXiv:2606.13221; hard, soft and human targets for each of the 55 held-out models, 20
within-model bootstrap replicates for each judge method's SE) and split-conformal intervals on 5
random model splits. That is about 2,500 Bradley–Terry fits on 1,485 pairs.

Two routes, each run as its own process (``python -c``: interpreter, ``import
judgebayes.cli``, reading, the pipeline, printing and writing the CSVs), ``--repeats`` /
``--old-repeats`` times; the best (minimum) wall time of each is reported, with the
process's CPU time (user + system) and peak RSS (``ru_maxrss``: interpreter and imports
included):

* **new**: the command as it is (:func:`judgebayes.softelo.held_out_elo`: per-pair sums
  built once, a Newton–Cholesky fit of the anchors warm-started from the all-model fit, a
  vectorised one-model Newton for the held-out model and for all of its bootstrap
  replicates at once, β per fold on battles grouped by score);
* **old**: the same command with ``held_out_elo`` replaced by
  ``held_out_elo_reference`` of ``tests/_softelo_reference.py``, the previous route (per
  fold and method: pair statistics rebuilt from the battles, SciPy Newton-CG for the anchors
  and the held-out model, ``bootstrap_bt`` for the SE, Brent on the battles one by one for
  β), and the Poisson-table cache of ``bootstrap_bt`` (new with this change) switched off.

Each process also reports its import time and the time after the imports ("pipeline":
reading, fitting, printing, writing). One more process per route runs the pipeline under
``cProfile`` and the script prints its top entries by own time (time spent in
``bootstrap_bt``'s worker threads shows up there only as lock waits). The two routes'
``held_out.csv`` are compared column by column (largest absolute difference) and their
printed summaries for equality.

The target of issue 17 is the whole command in ≤ 3 s. It is printed with MET / NOT MET.
The timed runs go beside ``--busy`` CPU-bound processes (default 1, the condition of
issue 17's 11.8 s: "with one core busy elsewhere"); the load average is printed with
every timing. The SoftElo
reference code (github.com/kargibora/SoftElo) is **not** run here: its figure (622 s on
this arena, reported in issue 17) is printed as context only, not as a ratio.

How to run
----------
``python bench/softelo_speed.py`` (about a minute on 2 cores; ``--repeats 5 --old-repeats 2``
by default).
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

import _record as record  # bench/ is on sys.path when run as a script
from _busy import busy

TARGET_S = 3.0
PEER_SOFTELO_S = 622.0  # the SoftElo reference code on this file, issue 17 (not run here)

# One route in a fresh interpreter: imports, then the CLI; prints a JSON line last.
CHILD = r"""
import json, resource, sys, time
from contextlib import redirect_stdout
from io import StringIO
t0 = time.perf_counter()
import judgebayes.cli
import judgebayes.core.bootstrap as bootstrap
import judgebayes.softelo.pipeline as pipeline
route, path, out, profile = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4] == "1"
if route == "old":
    try:  # before issue 28
        from judgebayes.softelo.held_out import held_out_elo_reference
    except ImportError:  # the previous route lives with the tests
        sys.path.insert(0, "tests")
        from _softelo_reference import held_out_elo_reference
    pipeline.held_out_elo = held_out_elo_reference
    cached = bootstrap._poisson_rows
    def uncached(values):
        rows = cached(values)
        bootstrap._POISSON_ROWS.clear()
        return rows
    bootstrap._poisson_rows = uncached
t1 = time.perf_counter()
rss_imports = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
text = StringIO()
args = ["softelo", path, "--format", "csv", "--no-progress", "--out", out]
if profile:
    import cProfile, pstats
    prof = cProfile.Profile()
    with redirect_stdout(text):
        prof.runcall(judgebayes.cli.main, args)
    stats = pstats.Stats(prof, stream=sys.stderr).sort_stats("tottime")
    top = []
    for (file, line, name), (cc, nc, tt, ct, _) in list(stats.stats.items()):
        where = file.split("site-packages/")[-1].split("src/")[-1]
        top.append((tt, ct, nc, f"{where}:{line}({name})"))
    top.sort(reverse=True)
    print(json.dumps({"top": top[:10], "total": sum(t[0] for t in top)}))
    sys.exit(0)
with redirect_stdout(text):
    status = judgebayes.cli.main(args)
t2 = time.perf_counter()
open(out + "/stdout.txt", "w").write(text.getvalue())
print(json.dumps({"status": status, "import_s": t1 - t0, "pipeline_s": t2 - t1,
                  "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "rss_imports_mb": rss_imports}))
"""


def run_child(route: str, path: Path, out: Path, *, profile: bool = False) -> dict:
    """One route in a fresh process: its wall and CPU time and what it reports."""
    out.mkdir(parents=True, exist_ok=True)
    before = os.times()
    start = time.perf_counter()
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            CHILD,
            route,
            str(path.resolve()),
            str(out.resolve()),
            "1" if profile else "0",
        ],
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parents[1],  # tests/ holds the old route
    )
    wall = time.perf_counter() - start
    after = os.times()
    if proc.returncode != 0:
        raise RuntimeError(f"{route} route failed:\n{proc.stderr[-3000:]}")
    info = json.loads(proc.stdout.strip().splitlines()[-1])
    info["wall_s"] = wall
    info["cpu_s"] = (after.children_user - before.children_user) + (
        after.children_system - before.children_system
    )
    info["load"] = record.load()
    return info


def compare(new: Path, old: Path) -> list[str]:
    """Largest |difference| of each numeric column of the two held_out.csv, and the text."""
    import numpy as np
    import pandas as pd

    a, b = pd.read_csv(new / "held_out.csv"), pd.read_csv(old / "held_out.csv")
    assert list(a["model"]) == list(b["model"])
    diffs = {
        c: float(np.max(np.abs(a[c] - b[c])))
        for c in a.columns
        if c != "model" and c != "n_battles"
    }

    def printed(route: Path) -> list[str]:  # less the line naming the output folder
        text = (route / "stdout.txt").read_text().splitlines()
        return [line for line in text if not line.startswith("wrote ")]

    same = printed(new) == printed(old)
    groups = {
        "beta": ["beta"],
        "Elo": [c for c in diffs if c.startswith(("elo_", "residual_"))],
        "SE": [c for c in diffs if c.startswith("se_")],
    }
    parts = [f"{k} {max(diffs[c] for c in cols):.1e}" for k, cols in groups.items() if cols]
    return [
        f"held_out.csv new vs old, max |difference|: {', '.join(parts)} ({len(a)} models)",
        f"printed summary (3 decimals) identical: {same}",
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=5, help="runs of the new route")
    parser.add_argument("--old-repeats", type=int, default=2, help="runs of the old route")
    parser.add_argument("--no-profile", action="store_true")
    parser.add_argument(
        "--busy",
        type=int,
        default=1,
        help="CPU-bound processes beside the timed runs (issue 17 measured "
        "its 11.8 s with one core busy elsewhere)",
    )
    args = parser.parse_args()
    started = time.perf_counter()
    commit = record.commit()
    print(
        f"# command: python bench/softelo_speed.py --repeats {args.repeats} "
        f"--old-repeats {args.old_repeats} --busy {args.busy}"
    )
    print(
        f"# recorded: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, judgebayes at "
        f"commit {commit} (+ the working tree)"
    )
    print(f"# machine: {os.cpu_count()} CPU cores; Python {platform.python_version()}")
    print(f"# load average at start: {record.load()}")

    import judgebayes as jb

    with tempfile.TemporaryDirectory(prefix="jb-softelo-") as tmp:
        work = Path(tmp)
        path = work / "arena.csv"
        sim = jb.simulate_arena(seed=0)
        sim.battles.frame.to_csv(path, index=False)
        print(
            f"input: jb.simulate_arena(seed=0): {sim.battles.frame['model_a'].nunique()} "
            f"models, {len(sim.battles.frame):,} battles, CSV {path.stat().st_size / 2**20:.1f}"
            f" MiB\n"
        )
        runs: dict[str, list[dict]] = {"new": [], "old": []}
        print(f"{args.busy} CPU-bound process(es) spinning beside the timed runs\n")
        with busy(args.busy):
            for route, n in (("new", args.repeats), ("old", args.old_repeats)):
                for k in range(n):
                    info = run_child(route, path, work / f"{route}{k}")
                    runs[route].append(info)
                    print(
                        f"  {route} run {k + 1}: wall {info['wall_s']:6.2f} s (imports "
                        f"{info['import_s']:.2f} s, pipeline {info['pipeline_s']:.2f} s), CPU "
                        f"{info['cpu_s']:.2f} s, peak RSS {info['rss_mb']:.0f} MB; "
                        f"load {info['load']}"
                    )
        best = {
            r: {
                key: min(i[key] for i in runs[r])
                for key in ("wall_s", "import_s", "pipeline_s", "cpu_s", "rss_mb", "rss_imports_mb")
            }
            for r in runs
        }
        print()
        for line in compare(work / "new0", work / "old0"):
            print(line)

        profiles = {}
        if not args.no_profile:
            for route in ("old", "new"):
                profiles[route] = run_child(route, path, work / f"prof-{route}", profile=True)

    new, old = best["new"], best["old"]
    print(
        f"\nbest of {args.repeats} (new) and {args.old_repeats} (old) runs   "
        f"{'new':>9} {'old':>9} {'old/new':>8}"
    )
    rows = [
        ("whole process, wall [s]", "wall_s"),
        ("  imports [s]", "import_s"),
        ("  pipeline after imports [s]", "pipeline_s"),
        ("whole process, CPU [s]", "cpu_s"),
        ("peak RSS [MB]", "rss_mb"),
        ("  RSS after imports [MB]", "rss_imports_mb"),
    ]
    for label, key in rows:
        print(f"{label:<44}{new[key]:9.2f} {old[key]:9.2f} {old[key] / new[key]:7.1f}x")

    for route, prof in profiles.items():
        print(
            f"\nprofile, {route} route, pipeline after imports (cProfile, own time "
            f"{prof['total']:.2f} s in all; load {prof['load']}):"
        )
        for tt, ct, nc, name in prof["top"][:6]:
            print(f"  {tt:6.2f} s own {ct:6.2f} s cum {nc:7d} calls  {name}")

    print(
        f"\nSoftElo reference code on this file: {PEER_SOFTELO_S:.0f} s (issue 17's "
        f"figure, NOT measured here: context only, no ratio)"
    )
    print("\nTargets (issue 17):")
    met = "MET" if new["wall_s"] <= TARGET_S else "NOT MET"
    print(
        f"  judgebayes softelo, whole process <= {TARGET_S:g} s          "
        f"{new['wall_s']:6.2f} s   {met}  ({old['wall_s'] / new['wall_s']:.1f}x faster "
        f"than the old route; imports alone {new['import_s']:.2f} s)"
    )
    print(
        f"  (context, not a target: the same process took {new['cpu_s']:.2f} s of CPU, "
        f"which is about its wall time when a core is free)"
    )
    print(
        f"# load average at end: {record.load()}; wall time {time.perf_counter() - started:.0f} s"
    )


if __name__ == "__main__":
    main()
