"""`judgebayes elo` on several judges' verdicts: reading them, and their boards side by side.

``judgebayes elo human.json --judge gpt4=FILE --judge claude=FILE`` joins the files by
battle id (:func:`judgebayes.read_aligned`); a folder with ``human.json`` and one file
per judge, or one table with a ``judge`` column and the humans as the judge ``human``
(``--format judges``), does the same. When the battles carry human labels and no single
judge is asked for (``--judge NAME``, ``--target``), the verb prints the all-human
Bradley–Terry board (:meth:`judgebayes.Battles.human_battles`) beside each judge's
board from the same battles, with each judge's Kendall τ and mean absolute error (MAE)
to the human Elo. ``--format auto`` (the default) prints the format it chose.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd

from judgebayes.core.battles import Battles
from judgebayes.core.bootstrap import BootstrapElo, bootstrap_bt
from judgebayes.core.io import write_json
from judgebayes.core.loaders import battle_format, read_battles
from judgebayes.errors import DataError

__all__ = [
    "add_judge_options",
    "judge_boards",
    "judge_option",
    "read_elo_battles",
    "resolve_inputs",
    "shows_judges_beside_humans",
]


def judge_option(text: str) -> str | tuple[str, Path]:
    """An argparse ``type=``: ``--judge NAME`` (pick a judge) or ``--judge NAME=FILE``."""
    name, sep, file = text.partition("=")
    if not sep:
        return text
    if not (name and file):
        raise argparse.ArgumentTypeError(f"expected NAME or NAME=FILE, got {text!r}")
    return name, Path(file)


def add_judge_options(parser: argparse.ArgumentParser) -> None:
    """``--judge`` (repeatable: a judge to use, or NAME=FILE of one judge's verdicts) and
    ``--baseline`` (the Arena-Hard baseline of judgment files that do not name it)."""
    parser.add_argument(
        "--judge",
        action="append",
        type=judge_option,
        default=None,
        metavar="NAME|NAME=FILE",
        help="NAME: use this judge's verdicts only; NAME=FILE (repeatable): one judge's "
        "verdicts on the battles of FILE (the human file), joined by battle id",
    )
    parser.add_argument(
        "--baseline",
        default=None,
        metavar="NAME",
        help="the baseline model: Arena-Hard judgment files that do not name it are read "
        "against it, and elo prints each model's predicted win rate against it in per cent "
        "(Arena-Hard's score) with its interval; with --out, baseline.csv",
    )


def resolve_inputs(args: argparse.Namespace) -> None:
    """Split ``--judge`` into the judge picked (``args.judge``) and judge files
    (``args.judge_files``); resolve ``--format auto`` and print the format chosen."""
    picked = [j for j in args.judge or () if isinstance(j, str)]
    files = dict(j for j in args.judge or () if isinstance(j, tuple))
    if len(picked) > 1:
        raise DataError(
            f"--judge NAME picks one judge, got {len(picked)} ({', '.join(picked)})",
            expected="one --judge NAME, or --judge NAME=FILE for each judge's file",
        )
    args.judge = picked[0] if picked else None
    args.judge_files = files
    if args.format != "auto":
        return
    path = Path(args.file)
    if path.suffix.lower() in (".parquet", ".pq") or (
        path.is_dir() and any(path.glob("**/*.parquet"))
    ):
        args.format = "csv"  # a Parquet table in the Battles schema: streamed
    else:
        args.format = battle_format(path, judges=files)
    print(f"format: {args.format} (--format auto: chosen from the content of {path.name})")


def read_elo_battles(args: argparse.Namespace) -> Battles:
    """The battles of ``args.file`` (and its judge files) in ``args.format``."""
    return read_battles(
        args.file,
        args.format,
        columns=dict(args.map or ()),
        labels=dict(args.label or ()),
        judges=args.judge_files or None,
        baseline=args.baseline,
        on_invalid="drop" if args.drop_invalid else "raise",
    )


def shows_judges_beside_humans(args: argparse.Namespace, battles: Battles) -> bool:
    """Several judges' battles with human labels, and no single judge or target asked for."""
    return (
        "battle_id" in battles
        and "human_label" in battles
        and len(battles.judges) >= 1
        and args.judge is None
        and args.target is None
        and not args.pool_judges
        and bool(np.isfinite(battles.column("human_label").astype(float)).any())
    )


def _agreement(battles: Battles, judge: str) -> float:
    """Share of battles neither the human nor the judge calls a tie on which they agree."""
    frame = battles.battle_frame().set_index("battle_id")
    wide = battles.judge_labels()
    human = frame["human_label"].reindex(wide.index).to_numpy(dtype=float)
    mine = wide[judge].to_numpy(dtype=float)
    decisive = np.isin(human, (0.0, 1.0)) & np.isin(mine, (0.0, 1.0))
    return float((human == mine)[decisive].mean()) if decisive.any() else float("nan")


def judge_boards(args: argparse.Namespace, battles: Battles) -> int:
    """The human board beside each judge's, with Kendall τ and MAE to the human Elo."""
    from scipy import stats  # ~1 s to import: only on this path

    common = {
        "lam": args.lam,
        "n_boot": args.n_boot,
        "alpha": args.alpha,
        "seed": args.seed,
        "progress": not args.no_progress,
    }
    human_battles = battles.human_battles()
    boards: dict[str, BootstrapElo] = {
        "human": bootstrap_bt(human_battles, target="human_label", **common)
    }
    for judge in battles.judges:
        boards[judge] = bootstrap_bt(battles.for_judge(judge), target="judge_label", **common)
    human = boards["human"].to_frame().set_index("model")
    side = human[["elo", "elo_lo", "elo_hi"]].rename(columns=lambda c: c.replace("elo", "human"))
    rows = []
    for judge in battles.judges:
        elo = boards[judge].to_frame().set_index("model")["elo"]
        side[judge] = elo.reindex(side.index)
        both = side[["human", judge]].dropna()
        tau = stats.kendalltau(both["human"], both[judge]).statistic
        rows.append(
            {
                "judge": judge,
                "n_battles": int(boards[judge].fit.report.n_used),
                "kendall_tau": float(tau),
                "mae_elo": float((both[judge] - both["human"]).abs().mean()),
                "agreement_non_ties": _agreement(battles, judge),
            }
        )
    judges = pd.DataFrame(rows)
    level = f"{100 * (1 - args.alpha):g}%"
    n_battles = len(battles.battle_frame())
    print(
        f"{n_battles:,} battles, {len(battles.judges)} judge(s): the human board "
        f"({len(human_battles):,} battles with a human label, {level} bootstrap interval) "
        f"beside each judge's board on the same battles (Bradley-Terry Elo, mean 1500)"
    )
    print(side.reset_index().to_string(index=False, float_format=lambda v: f"{v:.0f}"))
    print(
        "\nEach judge against the human Elo: Kendall τ of the two rankings, mean |Elo "
        "difference| (MAE), agreement with the human verdict on battles neither calls a tie"
    )
    print(judges.to_string(index=False, float_format=lambda v: f"{v:.3f}"))
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        written = [args.out / n for n in ("leaderboard.csv", "boards.csv", "judges.csv")]
        boards["human"].to_frame().to_csv(written[0], index=False)
        pd.concat(
            [b.to_frame().assign(board=name) for name, b in boards.items()], ignore_index=True
        )[["board", "model", "elo", "elo_lo", "elo_hi", "se", "n_battles"]].to_csv(
            written[1], index=False
        )
        judges.to_csv(written[2], index=False)
        written.append(
            write_json(
                args.out / "summary.json",
                {
                    "file": str(args.file),
                    "judge_files": {k: str(v) for k, v in args.judge_files.items()},
                    "format": args.format,
                    "n_battles": n_battles,
                    "n_human_labels": len(human_battles),
                    "lam": args.lam,
                    "n_boot": args.n_boot,
                    "alpha": args.alpha,
                    "seed": args.seed,
                    "judges": judges.to_dict("records"),
                    "rows": battles.report.to_dict(),
                },
            )
        )
        print("wrote " + ", ".join(str(p) for p in written))
    return 0
