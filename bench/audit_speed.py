"""Speed of ``judgebayes audit`` on real data, as a user runs it: the whole process.

What it measures
----------------
The audit of the data of Chatzi et al., *Prediction-Powered Ranking of Large Language
Models* (NeurIPS 2024, arXiv:2402.17826): humans and three LLM judges on the same 26,919
Chatbot Arena battles of 20 models (``../shared/data/ppr``, or ``--data``), 500 human labels
kept at random, every judge's family named with ``--own``. The command, run as a fresh
process each time (``python -m judgebayes.cli audit ...``: start-up, imports, reading the four
files, every section, the HTML, JSON and CSV files), is timed from start to exit:

* **MAP route, cold**: a new, empty JAX compilation cache (``JUDGEBAYES_JAX_CACHE``): the
  first audit after installing, every kernel of the calibration designs compiled;
* **MAP route, warm**: the same command again with that cache: every later audit;
* **--bayes (NUTS), warm**: the calibration designs sampled by NUTS (2 chains × 1,000 draws),
  with the cache of its own first run (``--bayes`` runs twice; the first, cold, is printed too).

Wall time and the CPU time of the process (user + system, from ``getrusage``) are printed
with the load average: the machine is shared, and wall time grows with its load. The issue's
targets (MET / NOT MET, on wall time): the MAP route ≤ 30 s, ``--bayes`` ≤ 3 minutes. No
peer tool produces this report (arena-hard-auto, AlpacaEval, ppi_py, the PPR code each answer
one section), so there is no ratio to a peer; the sections' own benches (``read_speed``,
``ppr_protocol``, ``calibration_fit_speed``) compare their parts with peers.

How to run
----------
``python bench/audit_speed.py`` (``--skip-bayes`` for the MAP route only); the result is
recorded in ``bench/results/audit_speed.txt`` with ``--out bench/results``.
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import _record as record

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "ppr"
JUDGES = {
    "gpt-4-0125-preview": "gpt-4-0125-preview.json",
    "claude-3-opus": "claude-3-opus-20240229.json",
    "gpt-3.5-turbo": "gpt-3.5-turbo.json",
}
OWN = {
    "gpt-4-0125-preview": ("gpt-4", "gpt-3.5-turbo"),
    "claude-3-opus": ("claude-v1", "claude-instant-v1"),
    "gpt-3.5-turbo": ("gpt-3.5-turbo", "gpt-4"),
}
TARGET_MAP_S = 30.0
TARGET_BAYES_S = 180.0


def command(data: Path, out: Path, *, bayes: bool) -> list[str]:
    argv = [sys.executable, "-m", "judgebayes.cli", "audit", str(data / "human.json")]
    for name, file in JUDGES.items():
        argv += ["--judge", f"{name}={data / file}"]
    for judge, models in OWN.items():
        for model in models:
            argv += ["--own", f"{judge}={model}"]
    argv += ["--human-labels", "500", "--out", str(out), "--no-progress"]
    return [*argv, "--bayes"] if bayes else argv


def run(argv: list[str], cache: Path) -> tuple[float, float, str]:
    """Wall and CPU seconds of one process, and its standard output."""
    env = {**os.environ, "JUDGEBAYES_JAX_CACHE": str(cache)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, text=True, env=env, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"the audit failed:\n{proc.stderr[-3000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, proc.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--skip-bayes", action="store_true")
    parser.add_argument("--out", type=Path, default=None, help="folder for audit_speed.txt")
    args = parser.parse_args()
    lines = [
        f"# command: python bench/audit_speed.py{' --skip-bayes' if args.skip_bayes else ''}",
        f"# recorded: {datetime.now(UTC):%Y-%m-%d %H:%M} UTC, judgebayes at commit "
        f"{record.commit()} (+ the working tree)",
        f"# machine: {os.cpu_count()} CPU cores; Python {platform.python_version()}",
        f"# load average at start: {record.load()}",
        f"input: {args.data} (human.json and 3 judges), 500 human labels kept, --own for "
        "each judge's family",
        "",
    ]
    print("\n".join(lines), flush=True)
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        cache = Path(tmp) / "jax-cache"
        routes = [("MAP, cold cache", False), ("MAP, warm cache", False)]
        if not args.skip_bayes:
            routes += [("--bayes, cold cache", True), ("--bayes, warm cache", True)]
        for name, bayes in routes:
            wall, cpu, out = run(command(args.data, Path(tmp) / "report", bayes=bayes), cache)
            results[name] = wall
            line = f"{name:<22} wall {wall:6.1f} s   cpu {cpu:6.1f} s   load {record.load()}"
            print(line, flush=True)
            lines.append(line)
        verdicts = [v for v in out.splitlines() if "TRUST" in v]
    lines += ["", "verdicts of the last run:", *verdicts, ""]
    checks = [("MAP route", results["MAP, warm cache"], TARGET_MAP_S)]
    checks.append(("MAP route, first run (cold cache)", results["MAP, cold cache"], TARGET_MAP_S))
    if not args.skip_bayes:
        checks.append(("--bayes", results["--bayes, warm cache"], TARGET_BAYES_S))
    for what, seconds, target in checks:
        state = "MET" if seconds <= target else "NOT MET"
        lines.append(f"target: {what} <= {target:.0f} s wall: {seconds:.1f} s, {state}")
    lines.append(f"load average at end: {record.load()}")
    print("\n".join(lines[-len(checks) - 1 :]))
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "audit_speed.txt").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
