"""`judgebayes rank`: a calibrated board from many judge verdicts and a few human labels.

Battles where every battle carries the judges' verdicts and some carry a human label (the
human ``winner`` null elsewhere) go to one estimator of :mod:`judgebayes.rankings`
(:func:`judgebayes.rankings.rank_battles`): the board with Elo intervals, simultaneous
rank-sets and tiers, and what each judge contributed (:func:`judgebayes.rankings.judge_report`).
With ``--judge NAME=FILE`` the battles file holds the human verdicts and each judge's
verdicts come in its own file, joined by battle id (the PPR layout,
:func:`judgebayes.read_aligned`).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from judgebayes.cli.common import non_negative_int, probability
from judgebayes.core.io import write_json
from judgebayes.core.loaders import FORMATS, read_battles
from judgebayes.rankings.data import RankingData
from judgebayes.rankings.rank import METHODS, judge_report, rank_battles

BOARD_COLUMNS = ["model", "elo", "elo_lo", "elo_hi", "rank_lo", "rank_hi", "tier"]


def judge_file(text: str) -> tuple[str, Path]:
    """An argparse ``type=``: ``--judge NAME=FILE``."""
    name, sep, path = text.partition("=")
    if not (sep and name and path):
        raise argparse.ArgumentTypeError(f"expected NAME=FILE, got {text!r}")
    return name, Path(path)


def _rank(args: argparse.Namespace) -> int:
    judges = dict(args.judge or ())
    battles = read_battles(
        args.file,
        "aligned" if judges else args.format,
        judges=judges or None,
        on_invalid="drop" if args.drop_invalid else "raise",
    )
    data = RankingData.from_battles(battles)
    board = rank_battles(
        data, args.method, alpha=args.alpha, seed=args.seed, progress=not args.no_progress
    )
    print(board)
    contributions = judge_report(data, board)
    for judge, entry in contributions.items():
        agree = "n/a" if entry["agreement"] is None else f"{entry['agreement']:.2f}"
        lam = f", λ = {entry['lambda']:.2f}" if "lambda" in entry else ""
        print(
            f"judge {judge}: {entry['n_verdicts']:,} verdicts, agrees with the humans on "
            f"{agree} of {entry['n_labelled']:,} labelled battles, names position A in "
            f"{entry['says_a']:.0%} (humans {entry['human_says_a']:.0%}){lam}"
        )
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        frame = board.to_frame()
        columns = [c.replace("elo", board.scale) for c in BOARD_COLUMNS]
        frame[columns].to_csv(args.out / "leaderboard.csv", index=False)
        summary = {
            "file": str(args.file),
            "judge_files": {k: str(v) for k, v in judges.items()},
            "method": args.method,
            "scale": board.scale,
            "alpha": args.alpha,
            "seed": args.seed,
            "n_models": len(board.models),
            "n_labelled": board.n_labelled,
            "n_judge_only": board.n_judged,
            "rank_sets": {
                "method": board.rank_sets.method,
                "critical_value": board.rank_sets.critical_value,
                "mean_size": board.mean_size,
                "n_tiers": board.rank_sets.n_tiers,
            },
            "details": dict(board.details),
            "judges": contributions,
            "rows": battles.report.to_dict(),
        }
        write_json(args.out / "summary.json", summary)
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        ax = board.plot()
        ax.figure.tight_layout()
        ax.figure.savefig(args.out / "forest.png", dpi=130)
        plt.close(ax.figure)
        print(f"wrote {args.out / 'leaderboard.csv'}, {args.out / 'summary.json'}, forest.png")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    rank = sub.add_parser(
        "rank",
        help="calibrated board with rank-sets from judge verdicts and a few human labels",
        description=__doc__.split("\n")[0],
    )
    rank.add_argument(
        "file",
        type=Path,
        help="battles with judge verdicts and, on some, a human label (with --judge: the "
        "human verdicts, null winner where unlabelled)",
    )
    rank.add_argument(
        "--judge",
        action="append",
        type=judge_file,
        metavar="NAME=FILE",
        help="a judge's verdicts on the same battles, joined by battle id (repeatable)",
    )
    rank.add_argument("--format", choices=FORMATS, default="auto")
    rank.add_argument(
        "--method",
        choices=list(METHODS),
        default="ppi-bt",
        help="; ".join(f"{k}: {v}" for k, v in METHODS.items()),
    )
    rank.add_argument("--alpha", type=probability, default=0.1)
    rank.add_argument("--seed", type=non_negative_int, default=0)
    rank.add_argument(
        "--drop-invalid",
        action="store_true",
        help="drop invalid verdicts (counted in the summary) instead of failing",
    )
    rank.add_argument("--out", type=Path, default=None)
    rank.add_argument("--no-progress", action="store_true")
    rank.set_defaults(run=_rank)
