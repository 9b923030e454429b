"""Pair statistics streamed from Parquet equal the in-memory ones; bad rows name their file."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

import judgebayes as jb
from judgebayes.cli import main
from judgebayes.core.bootstrap import _PoissonCounts
from judgebayes.core.stream import scan_pairs, stream_pair_stats

pytest.importorskip("pyarrow")  # the optional extra judgebayes[parquet]

FIELDS = ("i", "j", "n", "y", "cell_pair", "cell_target", "cell_weight", "cell_count")


def assert_same(streamed: jb.PairStats, memory: jb.PairStats) -> None:
    """Bit for bit: models, pairs, cells, sums and the drop report."""
    assert streamed.models == memory.models
    for name in FIELDS:
        np.testing.assert_array_equal(getattr(streamed, name), getattr(memory, name), err_msg=name)
    assert streamed.report == memory.report


def arena(n: int = 2400, seed: int = 0) -> pd.DataFrame:
    """Three judges, hard labels with ties, a few missing, a soft target and weights."""
    rng = np.random.default_rng(seed)
    names = np.array([f"m{k:02d}" for k in range(9)])
    a = rng.integers(0, 9, n)
    b = (a + rng.integers(1, 9, n)) % 9
    judge = np.array(["gpt", "claude", "gemini"])[rng.integers(0, 3, n)]
    judge[(judge == "gemini") & (a == 8)] = "gpt"  # one judge never saw model m08 as A
    label = rng.choice([0.0, 0.5, 1.0], n)
    label[rng.random(n) < 0.02] = np.nan
    return pd.DataFrame(
        {
            "model_a": names[a],
            "model_b": names[b],
            "judge_label": label,
            "soft": np.round(rng.random(n), 3),
            "judge": judge,
            "weight": np.where(rng.random(n) < 0.1, 2.0, 1.0),
        }
    )


def split(frame: pd.DataFrame, parts: int) -> list[pd.DataFrame]:
    edges = np.linspace(0, len(frame), parts + 1).astype(int)
    return [frame.iloc[lo:hi] for lo, hi in itertools.pairwise(edges)]


def write_partitioned(frame: pd.DataFrame, root: Path, files: int = 2) -> Path:
    """``root/judge=<name>/part-<k>.parquet``: hive partitions, several files each."""
    for name, rows in frame.groupby("judge"):
        folder = root / f"judge={name}"
        folder.mkdir(parents=True)
        for k, part in enumerate(split(rows.drop(columns="judge"), files)):
            part.to_parquet(folder / f"part-{k}.parquet", index=False)
    return root


@pytest.fixture
def folder(tmp_path: Path) -> tuple[Path, jb.Battles]:
    """A partitioned arena and its in-memory table (the same rows, read by pandas)."""
    frame = arena()
    root = write_partitioned(frame.drop(columns=["soft", "weight"]), tmp_path / "arena")
    memory = jb.Battles(pd.read_parquet(root).astype({"judge": str}))
    return root, memory


def test_streamed_statistics_equal_in_memory_ones_on_a_partitioned_folder(folder) -> None:
    root, memory = folder
    scan = scan_pairs(root, batch_size=150, progress=False)  # many batches per file
    assert scan.judges == memory.judges and scan.models == memory.models
    assert_same(scan.pair_stats(), memory.pair_stats("judge_label"))
    per_judge = scan_pairs(root, batch_size=150, progress=False).by_judge()
    assert set(per_judge) == {"claude", "gemini", "gpt"}
    for judge, streamed in per_judge.items():
        assert_same(streamed, memory.for_judge(judge).pair_stats("judge_label"))
    assert len(per_judge["gemini"].models) <= len(memory.models)
    assert scan.to_frame()["n_battles"].sum() == len(memory)


def test_soft_targets_and_weights_keep_their_distinct_cells(tmp_path: Path) -> None:
    frame = arena(seed=1)
    for k, part in enumerate(split(frame, 3)):
        part.to_parquet(tmp_path / f"p{k}.parquet", index=False)
    memory = jb.Battles(pd.read_parquet(tmp_path))
    for target in ("soft", "judge_label"):  # weights from the `weight` column, as in memory
        streamed = stream_pair_stats(tmp_path, target=target, batch_size=100, progress=False)
        assert_same(streamed, memory.pair_stats(target))
    assert_same(
        stream_pair_stats(tmp_path, target="soft", judge="claude", progress=False),
        memory.for_judge("claude").pair_stats("soft"),
    )


def test_a_bad_row_raises_naming_its_file_and_row_or_is_dropped_and_counted(folder) -> None:
    root, _ = folder
    victim = root / "judge=gpt" / "part-1.parquet"
    rows = pd.read_parquet(victim)
    rows.loc[7, "judge_label"] = 2.0
    rows.loc[11, "model_b"] = None
    rows.loc[12, "model_b"] = rows.loc[12, "model_a"]
    rows.to_parquet(victim, index=False)
    with pytest.raises(
        jb.DataError,
        match=r"judge=gpt/part-1\.parquet, row 11, column "
        r"'model_b': missing model name",
    ) as info:
        scan_pairs(root, progress=False)
    assert info.value.row == 11 and Path(info.value.path) == victim
    frame = pd.read_parquet(root).astype({"judge": str})
    for read in (lambda: scan_pairs(victim, progress=False), lambda: jb.read_table(victim)):
        with pytest.raises(
            jb.DataError,
            match=r"^part-1\.parquet, row 11, column 'model_b': "
            "missing model name",
        ):
            read()  # the in-memory loader words it the same way
    scan = scan_pairs(root, on_invalid="drop", progress=False)
    memory = jb.Battles(frame, on_invalid="drop")
    assert scan.report.dropped == {
        "missing model name in 'model_b'": 1,
        "a model battling itself in 'model_b'": 1,
        "unknown label in 'judge_label'": 1,
    }
    assert_same(scan.pair_stats(), memory.pair_stats("judge_label"))
    assert_same(scan.pair_stats("gpt"), memory.for_judge("gpt").pair_stats("judge_label"))


def test_arena_winners_and_label_mappings_convert_as_the_loaders_do(tmp_path: Path) -> None:
    frame = arena(seed=2).dropna()
    winner = np.where(
        frame["judge_label"] == 1,
        "model_a",
        np.where(frame["judge_label"] == 0, "model_b", " Tie "),
    )
    records = frame[["model_a", "model_b"]].assign(winner=winner, judge=frame["judge"])
    records.iloc[5, 2] = "??"
    path = tmp_path / "arena.parquet"
    records.to_parquet(path, index=False)
    with pytest.raises(jb.DataError, match=r"arena\.parquet, row 5, column 'winner'"):
        scan_pairs(path, format="arena", progress=False)
    scan = scan_pairs(path, format="arena", on_invalid="drop", progress=False)
    assert scan.judges == ()  # an Arena `judge` is a voter
    assert_same(scan.pair_stats(), jb.read_arena(path, on_invalid="drop").pair_stats("human_label"))
    mapped = frame.rename(columns={"model_a": "left", "model_b": "right"}).assign(
        judge_label=np.where(frame["judge_label"] == 1, "A", "B")
    )
    mapped.to_parquet(tmp_path / "mapped.parquet", index=False)
    how = {"columns": {"left": "model_a", "right": "model_b"}, "labels": {"a": 1, "b": 0}}
    assert_same(
        stream_pair_stats(tmp_path / "mapped.parquet", progress=False, **how),
        jb.read_table(tmp_path / "mapped.parquet", **how).pair_stats("judge_label"),
    )


def test_fit_and_bootstrap_take_streamed_statistics(folder) -> None:
    root, memory = folder
    streamed = stream_pair_stats(root, judge="claude", progress=False)
    battles = memory.for_judge("claude")
    np.testing.assert_array_equal(jb.fit_bt(streamed).elo, jb.fit_bt(battles).elo)
    a = jb.bootstrap_bt(streamed, target="judge_label", n_boot=40, seed=5, progress=False)
    b = jb.bootstrap_bt(battles, n_boot=40, seed=5, progress=False)
    np.testing.assert_array_equal(a.replicates, b.replicates)
    assert a.fit.target == b.fit.target == "judge_label"


def test_cli_elo_streams_parquet(folder, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    root, memory = folder
    assert main(["elo", str(root), "--format", "parquet", "--no-progress"]) == 2
    assert "holds verdicts of 3 judges" in capsys.readouterr().err
    out = tmp_path / "out"
    assert (
        main(
            [
                "elo",
                str(root),
                "--format",
                "parquet",
                "--judge",
                "gpt",
                "--n-boot",
                "20",
                "--no-progress",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    board = pd.read_csv(out / "leaderboard.csv").set_index("model")["elo"]
    fit = jb.fit_bt(memory.for_judge("gpt"))
    np.testing.assert_allclose(board[list(fit.models)], fit.elo, atol=1e-6)


def test_bootstrap_poisson_draws_are_exact() -> None:
    """The table-inversion sampler: Poisson(c) for each cell count c, chi-square test."""
    means = np.array([1.0, 4.0, 17.0, 250.0, 1000.0, 1500.0])  # the last by NumPy
    draws = _PoissonCounts(means).draw(np.random.default_rng(0), 100_000)
    pvalues = []
    for c, x in zip(means, draws, strict=True):
        lo, hi = (int(v) for v in sps.poisson.ppf([1e-4, 1 - 1e-4], c))
        observed = np.bincount(np.clip(x.astype(int), lo, hi) - lo, minlength=hi - lo + 1)
        p = np.diff(np.r_[0.0, sps.poisson.cdf(np.arange(lo, hi), c), 1.0])
        pvalues.append(sps.chisquare(observed, p * len(x)).pvalue)
    assert min(pvalues) > 0.001 / len(means), pvalues
