"""What every verb shares: argument-value types, the leaderboard writer, one-judge selection.

Argument values are checked by the parser (one ``type=`` per kind of value, shared by every
verb), so a bad value is a usage error (exit 2), never a traceback.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from pathlib import Path

from judgebayes.core.battles import Battles
from judgebayes.core.board import EloBoard
from judgebayes.core.bootstrap import BootstrapElo
from judgebayes.core.io import write_json
from judgebayes.core.loaders import read_battles
from judgebayes.errors import DataError

TARGETS = {"judge": "judge_label", "human": "human_label"}


def int_at_least(low: int) -> Callable[[str], int]:
    """An argparse ``type=``: an integer >= ``low``; anything else is a usage error."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = low - 1
        if value < low:
            raise argparse.ArgumentTypeError(f"expected an integer >= {low}, got {text!r}")
        return value

    parse.__name__ = f"integer >= {low}"
    return parse


count = int_at_least(2)  # --n-boot, --models: at least two replicates or models
positive_int = int_at_least(1)  # --battles, --splits, --n-splits
non_negative_int = int_at_least(0)  # --seed


def number(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"expected a finite number, got {text!r}")
    return value


def probability(text: str) -> float:
    """An argparse ``type=``: a number strictly between 0 and 1 (``--alpha``)."""
    value = number(text)
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"expected a number in (0, 1), got {text!r}")
    return value


def non_negative(text: str) -> float:
    """An argparse ``type=``: a finite number >= 0 (``--lam``)."""
    value = number(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a number >= 0, got {text!r}")
    return value


def column_pair(text: str) -> tuple[str, str]:
    """An argparse ``type=``: ``--map THEIRS=OURS``."""
    key, sep, value = text.partition("=")
    if not (sep and key and value):
        raise argparse.ArgumentTypeError(f"expected THEIRS=OURS, got {text!r}")
    return key, value


def label_pair(text: str) -> tuple[str, float]:
    """An argparse ``type=``: ``--label VALUE=P`` with P a number in [0, 1]."""
    key, sep, value = text.partition("=")
    try:
        p = float(value)
    except ValueError:
        p = math.nan
    if not (sep and key and 0 <= p <= 1):
        raise argparse.ArgumentTypeError(f"expected VALUE=P with P in [0, 1], got {text!r}")
    return key, p


def write_board(
    out: Path | None,
    board: EloBoard,
    summary: dict,
    *,
    plot: bool,
    truth: dict[str, float] | None = None,
) -> list[Path]:
    if out is None:
        return []
    out.mkdir(parents=True, exist_ok=True)
    written = [out / "leaderboard.csv", out / "summary.json"]
    board.to_frame().to_csv(written[0], index=False)
    write_json(written[1], summary)
    if plot:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        ax = board.plot(truth=truth)
        ax.figure.tight_layout()
        ax.figure.savefig(out / "forest.png", dpi=130)
        plt.close(ax.figure)
        written.append(out / "forest.png")
    return written


def board_summary(board: EloBoard, **extra: object) -> dict:
    fit = board.fit
    resampling = (
        {"n_boot": len(board.replicates), "scheme": board.scheme}
        if isinstance(board, BootstrapElo)
        else {}
    )
    return {
        "target": fit.target,
        "lam": fit.lam,
        "n_models": len(fit.models),
        **resampling,
        "alpha": board.alpha,
        "seed": board.seed,
        "tie_nu": fit.tie_nu,
        "cluster": board.cluster,
        "n_clusters": board.n_clusters,
        "design_effect": None if board.cluster is None else board.median_design_effect,
        "rank_sets": {
            "alpha": board.rank_sets.alpha,
            "method": board.rank_sets.method,
            "critical_value": board.rank_sets.critical_value,
            "mean_size": float(board.rank_sets.size.mean()),
            "n_tiers": board.rank_sets.n_tiers,
        },
        "rows": fit.report.to_dict(),
        "graph": fit.graph.to_dict(),
        **extra,
    }


def print_board(board: BootstrapElo, extra_cols: dict | None = None) -> None:
    frame = board.to_frame()
    for name, values in (extra_cols or {}).items():
        frame[name] = frame["model"].map(values)
    print(frame.to_string(index=False, float_format=lambda v: f"{v:.1f}"))


def one_judge(
    args: argparse.Namespace, *, may_pool: bool, battles: Battles | None = None
) -> Battles:
    """Read ``args.file`` (``--format``, ``--map``, ``--label``) and keep one judge's battles.

    ``battles``: already read (``judgebayes elo`` reads judge files too).
    """
    if battles is None:
        battles = read_battles(
            args.file,
            args.format,
            columns=dict(args.map or ()),
            labels=dict(args.label or ()),
            on_invalid="drop" if args.drop_invalid else "raise",
        )
    if args.judge is not None:
        return battles.for_judge(args.judge)
    if len(battles.judges) > 1 and not (may_pool and args.pool_judges):
        raise DataError(
            f"{args.file} holds verdicts of {len(battles.judges)} judges; pick one "
            f"with --judge NAME (e.g. --judge {battles.judges[0]})"
            + (" or pass --pool-judges" if may_pool else "")
        )
    return battles
