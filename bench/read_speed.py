"""Speed of reading several judges' verdicts: the four PPR files, loaded and joined.

What it measures
----------------
The data of Chatzi et al., *Prediction-Powered Ranking of Large Language Models*
(NeurIPS 2024, arXiv:2402.17826): humans and three LLM judges on the same 26,919 Chatbot
Arena battles, one JSON-lines file each (``human.json``, ``gpt-4-0125-preview.json``,
``claude-3-opus-20240229.json``, ``gpt-3.5-turbo.json``, 3.7 MB each), read from
``../shared/data/ppr`` (or ``--data``). Two routes, in one process after the imports,
each the median of ``--repeats`` runs after one warm-up run:

* **judgebayes**: ``jb.read_aligned(human, {judge: file})``: parse the four files,
  check that every file holds the same battles with the same models in the same order,
  convert every verdict to P(A beats B), and validate the joined multi-judge
  ``Battles`` (80,757 rows: battle × judge).
* **pandas** (the peer): ``pd.read_json(path, lines=True)`` of the same four files, and
  the same plus the join a user writes by hand (``winner`` mapped to a label, the three
  judge frames merged on ``num`` with the human one); neither checks anything.

Both routes must give the same labels (checked). The target is the issue's: the four
files load and join in ≤ 2 s on this machine (MET / NOT MET); the ratio to pandas is
printed beside it. ``--busy N`` keeps N CPU-bound processes spinning beside the timed
runs (the machine is shared).

How to run
----------
``python bench/read_speed.py`` (``--repeats 5``, ``--busy 0``); the result is recorded in
``bench/results/read_speed.txt``.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).parent))
import _record as record
import judgebayes as jb
from _busy import busy

TARGET_S = 2.0
JUDGES = ("gpt-4-0125-preview", "claude-3-opus-20240229", "gpt-3.5-turbo")
WINNER = {"model_a": 1.0, "model_b": 0.0, "tie": 0.5, "tie (bothbad)": 0.5}


def timed(fn: Callable[[], object], repeats: int) -> tuple[float, list[float], object]:
    """Median wall time of ``repeats`` runs after a warm-up, all times, the last result."""
    result = fn()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), times, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--busy", type=int, default=0, help="CPU-bound processes beside")
    parser.add_argument(
        "--data",
        type=Path,
        default=Path(__file__).resolve().parents[2] / "shared" / "data" / "ppr",
        help="the folder of the four PPR files",
    )
    args = parser.parse_args()
    commit = record.commit()
    print(f"# command: python bench/read_speed.py --repeats {args.repeats} --busy {args.busy}")
    print(
        f"# recorded: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, judgebayes at "
        f"commit {commit} (+ the working tree)"
    )
    print(
        f"# machine: {os.cpu_count()} CPU cores; Python {platform.python_version()}, "
        f"numpy {np.__version__}, pandas {pd.__version__}"
    )
    print(f"# load average at start: {record.load()}")
    human = args.data / "human.json"
    files = {j: args.data / f"{j}.json" for j in JUDGES}
    size = sum(p.stat().st_size for p in (human, *files.values())) / 2**20
    print(f"input: {args.data} (4 JSON-lines files, {size:.1f} MiB)\n")

    def ours() -> jb.Battles:
        return jb.read_aligned(human, files)

    def pandas_read() -> list[pd.DataFrame]:
        return [pd.read_json(p, lines=True) for p in (human, *files.values())]

    def pandas_join() -> pd.DataFrame:
        frames = pandas_read()
        out = frames[0].assign(human_label=frames[0]["winner"].map(WINNER))
        for judge, frame in zip(JUDGES, frames[1:], strict=True):
            labels = frame.assign(**{judge: frame["winner"].map(WINNER)})[["num", judge]]
            out = out.merge(labels, on="num", how="left", validate="one_to_one")
        return out

    print(f"{args.busy} CPU-bound process(es) spinning beside the timed runs")
    with busy(args.busy):
        t_ours, all_ours, battles = timed(ours, args.repeats)
        t_read, all_read, _ = timed(pandas_read, args.repeats)
        t_join, all_join, joined = timed(pandas_join, args.repeats)
    print(f"load average at end: {record.load()}\n")

    wide = battles.judge_labels()  # type: ignore[union-attr]
    peer = joined.set_index("num")  # type: ignore[union-attr]
    same = all(
        np.array_equal(wide[j].to_numpy(), peer.loc[wide.index, j].to_numpy()) for j in JUDGES
    )
    human_same = np.array_equal(
        battles.battle_frame()["human_label"].to_numpy(),  # type: ignore[union-attr]
        peer.loc[wide.index, "human_label"].to_numpy(),
    )
    print(f"judgebayes: {battles}")
    print(f"labels identical to the pandas join: judges {same}, humans {human_same}\n")

    def runs(times: list[float]) -> str:
        return ", ".join(f"{t:.3f}" for t in times)

    rows = [
        ("judgebayes read_aligned (load, check, join)", t_ours, all_ours),
        ("pandas read_json(lines=True), 4 files", t_read, all_read),
        ("pandas read_json + map + merge on num", t_join, all_join),
    ]
    for name, t, times in rows:
        print(f"{name:<46} median {t:6.3f} s   runs [{runs(times)}]")
    print(f"\nratio judgebayes / pandas read_json: {t_ours / t_read:.2f}x")
    print(f"ratio judgebayes / pandas read + join: {t_ours / t_join:.2f}x")
    verdict = "MET" if t_ours <= TARGET_S else "NOT MET"
    print(f"target: the four files load and join in <= {TARGET_S:g} s: {t_ours:.3f} s, {verdict}")


if __name__ == "__main__":
    main()
