"""`judgebayes consistency`: each judge's Consistency score.

Ramaswamy, Demeure & Rrapaj, *Model Consistency as a Cheap yet Predictive Proxy for LLM Elo Scores*
(EMNLP 2025, arXiv:2509.23510).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from judgebayes.cli.common import (
    column_pair,
    label_pair,
)
from judgebayes.cli.papers import PAPERS, described
from judgebayes.core.io import read_frame, reading, require_file, write_json
from judgebayes.core.loaders import FORMATS, battle_format, read_battles
from judgebayes.errors import DataError


def _consistency(args: argparse.Namespace) -> int:
    """Each judge's Consistency score (Ramaswamy et al.), optionally against its Arena Elo."""
    from judgebayes.consistency import (
        compare_elo,
        judge_consistency,
        position_bias,
        read_elo,
    )
    from judgebayes.core.loaders import read_consistency

    path: Path = args.path
    on_invalid = "drop" if args.drop_invalid else "raise"
    fmt = args.format
    if fmt == "auto":
        fmt = battle_format(path)
        print(f"format: {fmt} (--format auto: chosen from the content of {path.name})")
    if fmt == "consistency":
        battles = read_consistency(path, on_invalid=on_invalid)
    else:
        battles = read_battles(
            path,
            fmt,
            columns=dict(args.map or ()),
            labels=dict(args.label or ()),
            baseline=args.baseline,
            on_invalid=on_invalid,
        )
    if "judge" not in battles:
        raise DataError(
            f"{path} has no 'judge' column: Consistency is a per-judge score "
            f"(map one with --map THEIRS=judge)",
            column="judge",
        )
    matchups = None
    if args.matchups is not None:
        with reading(args.matchups):
            table = read_frame(args.matchups, text_columns=True, default="csv")
            if table.shape[1] < 2:
                raise DataError(
                    "needs two columns of model names", expected="a CSV such as model_i,model_j"
                )
        matchups = list(table.iloc[:, :2].astype(str).itertuples(index=False, name=None))
    result = judge_consistency(battles, matchups=matchups)
    frame = result.to_frame()
    if "position" in battles:
        bias = position_bias(result.counts).to_frame().set_index("judge")
        frame["p_first"] = frame["judge"].map(bias["p_first"])
    summary: dict = {
        "file": str(path),
        "n_judges": len(result.judges),
        "n_matchups": result.counts.n_pairs,
        "rows": battles.report.to_dict(),
        "consistency": dict(zip(result.judges, result.consistency.tolist(), strict=True)),
    }
    lines = [str(result).split("\n")[0]]
    if args.judge_elo is not None:
        require_file(args.judge_elo)
        with reading(args.judge_elo):
            elo = read_elo(args.judge_elo)
        agreement = compare_elo(result, elo)
        extra = agreement.to_frame().set_index("judge")[
            ["arena_elo", "rank_consistency", "rank_elo", "elo_pred", "elo_pred_loo"]
        ]
        frame = frame.join(extra, on="judge").sort_values(
            "arena_elo", ascending=False, ignore_index=True
        )
        summary["elo"] = agreement.to_dict()
        summary["judge_elo_file"] = str(args.judge_elo)
        lines.append(str(agreement))
    print(lines[0])
    print(
        frame.to_string(
            index=False,
            formatters={
                "consistency": "{:.3f}".format,
                "se": "{:.3f}".format,
                "mean_variance": "{:.4f}".format,
                "p_first": "{:.3f}".format,
                "arena_elo": "{:.0f}".format,
                "rank_consistency": "{:g}".format,
                "rank_elo": "{:g}".format,
                "elo_pred": "{:.1f}".format,
                "elo_pred_loo": "{:.1f}".format,
            },
        )
    )
    for line in lines[1:]:
        print("\n" + line)
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        frame.to_csv(args.out / "consistency.csv", index=False)
        write_json(args.out / "summary.json", summary)
        print(f"wrote {args.out / 'consistency.csv'}, {args.out / 'summary.json'}")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add the verb's parser."""
    cons = sub.add_parser(
        "consistency",
        help=f"each judge's Consistency score ({PAPERS['consistency'].short}), optionally "
        "against the judges' Arena Elo",
        description=described(
            "Each judge's Consistency score, 1 − 4·V̄ (Eq. 2) over the contests it judged in both "
            "orders, and, with --judge-elo, its correlation with the judges' Arena Elo: which "
            "judge to trust, without human labels.",
            PAPERS["consistency"],
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    cons.add_argument(
        "path",
        type=Path,
        help="a folder of <judge>_contest_data.json files, one contest file, or "
        "a battles table with a judge column",
    )
    cons.add_argument(
        "--judge-elo",
        type=Path,
        default=None,
        help="CSV judge,arena_elo: also print Pearson/Spearman r, rank "
        "displacement and regression MAE",
    )
    cons.add_argument(
        "--format",
        choices=FORMATS,
        default="auto",
        help="auto (default): chosen from the content (contest JSON files: consistency)",
    )
    cons.add_argument(
        "--baseline",
        default=None,
        help="arena-hard: the baseline model of judgment files that do not name it",
    )
    cons.add_argument(
        "--matchups",
        type=Path,
        default=None,
        help="CSV of model pairs (two columns) to use; default: all pairs",
    )
    cons.add_argument(
        "--map",
        nargs="*",
        type=column_pair,
        metavar="THEIRS=OURS",
        help="column mapping for a table, e.g. grader=judge",
    )
    cons.add_argument(
        "--label",
        nargs="*",
        type=label_pair,
        metavar="VALUE=P",
        help="label mapping for a table, e.g. A=1 B=0 tie=0.5",
    )
    cons.add_argument(
        "--drop-invalid",
        action="store_true",
        help="drop invalid rows (counted in the summary) instead of failing",
    )
    cons.add_argument("--out", type=Path, default=None)
    cons.set_defaults(run=_consistency)
