"""A paired battle bootstrap of several judges (and the humans) on the same battles.

When every judge and a human annotator label the *same* battles (the layout of
:func:`judgebayes.datasets.load_ppr`: one row per (battle, judge), the human label
repeated on each), any comparison between their boards must resample the battles, not
each annotator's labels separately: a replicate draws battles with replacement and
keeps every label of a drawn battle (all judges' and the human's) together. Differences
between boards (a consensus minus the best judge) are then paired, and their intervals
carry the shared uncertainty of which battles were played.

The draw is **stratified by model pair**: within each unordered pair {i, j}, as many
battles are drawn (with replacement) as the pair has. Chatbot Arena chooses the pairs
(the platform's sampler), so the per-pair counts are design, not outcome; keeping them
keeps every pair of the comparison graph in every replicate, so a model fitted to the
replicates (the multi-judge Bradley–Terry of :mod:`judgebayes.consensus.bayes`) has the
same data shapes each time and compiles once.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pandas as pd

from judgebayes.core.battles import Battles
from judgebayes.errors import DataError

# require_paired_labels: the check of agreement.compare_with_humans and
# self_check.self_preference_check, not re-exported by judgebayes.consensus.
__all__ = ["battle_counts", "require_paired_labels", "resample_battles"]


def require_paired_labels(battles: Battles, caller: str) -> None:
    """A :class:`~judgebayes.DataError` naming the first of ``judge``, ``judge_label`` and
    ``human_label`` that ``battles`` lacks: ``caller`` compares judges with the human label
    of the same battles (the layout of :func:`judgebayes.datasets.load_ppr`)."""
    for column in ("judge", "judge_label", "human_label"):
        if column not in battles:
            raise DataError(
                f"{caller} needs a {column!r} column: judges' labels and the human label "
                "of the same battles",
                column=column,
                expected="a multi-judge table such as jb.datasets.load_ppr()",
            )


def _battle_index(frame: pd.DataFrame) -> tuple[np.ndarray, int]:
    """Each row's battle (0 … B − 1, in the order of first appearance) and B."""
    if "battle_id" not in frame:
        return np.arange(len(frame)), len(frame)
    codes, uniques = pd.factorize(frame["battle_id"], sort=False)
    return codes.astype(np.int64), len(uniques)


def battle_counts(
    battles: Battles, *, n_boot: int, seed: int = 0, stratify: bool = True
) -> Iterator[np.ndarray]:
    """How many times each battle is drawn in each bootstrap replicate.

    Parameters
    ----------
    battles
        Battles; with a ``battle_id`` column the rows of one battle (one per judge)
        are one battle, without one every row is a battle.
    n_boot
        Number of replicates.
    seed
        Seed of the draws (the same seed gives the same replicates).
    stratify
        ``True`` (default): draw within each unordered model pair as many battles as
        it has (every pair stays in every replicate); ``False``: draw the same number
        of battles from all of them.

    Yields
    ------
    numpy.ndarray
        One integer count per battle, battles in the order of their first row (the
        order of :meth:`~judgebayes.Battles.battle_frame`); counts sum to the number of
        battles, and within each pair to the pair's battles when ``stratify``.
        Weighting each battle by its count is resampling it.
    """
    if n_boot < 1:
        raise ValueError(f"n_boot must be at least 1, got {n_boot}")
    battle, n = _battle_index(battles.frame)
    first = np.unique(battle, return_index=True)[1]  # a row of each battle
    a, b = battles.codes()
    m = len(battles.models)
    if stratify:
        stratum = np.minimum(a[first], b[first]) * m + np.maximum(a[first], b[first])
    else:
        stratum = np.zeros(n, np.int64)
    order = np.argsort(stratum, kind="stable")
    starts = np.flatnonzero(np.r_[True, np.diff(stratum[order]) != 0])
    sizes = np.diff(np.r_[starts, n])
    offsets, lengths = np.repeat(starts, sizes), np.repeat(sizes, sizes)
    rng = np.random.default_rng(seed)
    for _ in range(n_boot):
        # For each stratum, as many uniform draws among its battles as it has battles.
        picks = offsets + (rng.random(n) * lengths).astype(np.int64)
        yield np.bincount(order[picks], minlength=n)


def resample_battles(
    battles: Battles, *, n_boot: int, seed: int = 0, stratify: bool = True
) -> Iterator[Battles]:
    """Bootstrap replicates of battles, all labels of a battle kept together.

    The replicates of :func:`battle_counts` (same arguments, same draws) as tables, for
    methods that need the battles themselves (an online Elo, a model fit).

    Yields
    ------
    Battles
        A replicate: each drawn battle's rows in their original order (copies of a
        battle one after the other), ``battle_id`` renumbered so that every copy is a
        battle of its own.
    """
    frame = battles.frame
    battle, _ = _battle_index(frame)
    for copies in battle_counts(battles, n_boot=n_boot, seed=seed, stratify=stratify):
        per_row = copies[battle]
        rows = np.repeat(np.arange(len(frame)), per_row)
        replicate = frame.iloc[rows].reset_index(drop=True)
        if "battle_id" in frame:
            # Copy k of battle b becomes battle offset[b] + k (offsets by battle order).
            offset = np.cumsum(copies) - copies
            k = np.arange(len(rows)) - np.repeat(np.cumsum(per_row) - per_row, per_row)
            replicate["battle_id"] = offset[battle[rows]] + k
        yield Battles(replicate)
