"""`judgebayes anchors`: anchor-based evaluation.

Don-Yehiya, Yehudai, Choshen & Abend, *Mediocrity is the key for LLM as a Judge Anchor Selection*
(ACL 2026, arXiv:2603.16848).

``judgebayes anchors power [--ties 0.39 0.55]`` prints the sign-test sample sizes of
Table 2 (win rates 55–75 %, with the totals at the given tie rates);
``judgebayes anchors FILE`` prints, per anchor, its informativeness I(p, A), Kendall τ
of the ranking it induces with the human ranking (``--human``) and, where every pair
was judged, with the quadratic ranking, each with a bootstrap interval over prompts,
and N_total at +5 %. The anchors are the models every other model meets: one or a few
in an Arena-Hard / AlpacaEval / WildBench table (whose rankings are printed too), every
model in a full matrix.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from judgebayes.cli.common import count, non_negative_int, number, probability
from judgebayes.cli.papers import PAPERS, described
from judgebayes.core.io import read_frame, reading, require_file, write_json
from judgebayes.errors import DataError

if TYPE_CHECKING:
    from judgebayes.anchors.recommend import AnchorAnalysis
    from judgebayes.anchors.verdicts import VerdictTable


def tie_rate(text: str) -> float:
    """An argparse ``type=``: a tie rate in [0, 1)."""
    value = number(text)
    if not 0 <= value < 1:
        raise argparse.ArgumentTypeError(f"expected a tie rate in [0, 1), got {text!r}")
    return value


def grade_gap(text: str) -> float:
    """An argparse ``type=``: a grade gap > 0 (``--clear-gap``)."""
    value = number(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"expected a grade gap > 0, got {text!r}")
    return value


def _read_human(path: Path) -> dict[str, float]:
    """``model`` and one score column (``score``, ``elo`` or the only other column)."""
    frame = read_frame(path, text_columns=["model"])
    with reading(path):
        if "model" not in frame.columns:
            raise DataError(
                "missing column 'model'",
                column="model",
                expected="columns model and score (or elo)",
            )
        others = [c for c in ("score", "elo") if c in frame.columns] or [
            c for c in frame.columns if c != "model"
        ]
        if len(others) != 1:
            raise DataError(
                f"cannot tell the score column among {list(frame.columns)}",
                expected="columns model and score (or elo)",
            )
        column = others[0]
        for row, (model, value) in enumerate(zip(frame["model"], frame[column], strict=True)):
            if not isinstance(value, int | float) or value != value:
                raise DataError(
                    "not a number",
                    row=row,
                    column=column,
                    got=value,
                    expected="a finite score per model",
                )
            if not isinstance(model, str) or not model:
                raise DataError("missing model name", row=row, column="model")
        return dict(zip(frame["model"], frame[column].astype(float), strict=True))


def _power(args: argparse.Namespace) -> int:
    from judgebayes.anchors.power import power_table

    table = power_table(ties=args.ties, alpha=args.alpha, power=args.power)
    print(
        f"One-sided sign test (Don-Yehiya et al., 2026, Table 2): α = {args.alpha:g}, "
        f"power {args.power:g}; "
        f"base N = discordant pairs, total = N / (1 - ties)"
    )
    print(table)
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        table.to_frame().to_csv(args.out / "power.csv", index=False)
        write_json(
            args.out / "summary.json",
            {
                "alpha": args.alpha,
                "power": args.power,
                "ties": list(args.ties),
                "win_rate": table.win_rate.tolist(),
                "n_base": table.n_normal.tolist(),
                "n_exact": table.n_exact.tolist(),
                "totals": table.totals.tolist(),
            },
        )
        print(f"wrote {args.out / 'power.csv'}, {args.out / 'summary.json'}")
    return 0


def _anchors(args: argparse.Namespace) -> int:
    """Per anchor informativeness, its ranking, τ with humans / π_quad, N_total (Don-Yehiya)."""
    if str(args.file) == "power":
        return _power(args)
    from judgebayes.anchors.verdicts import read_verdicts, verdict_format

    if not args.file.is_dir():
        require_file(args.file)
    fmt = args.format
    if fmt == "auto":
        fmt = verdict_format(args.file)
        print(f"format: {fmt} (--format auto: chosen from the content of {args.file.name})")
        args.format = fmt  # summary.json records the format read
    table = read_verdicts(args.file, format=fmt, baseline=args.baseline, clear_gap=args.clear_gap)
    human = None
    if args.human is not None:
        require_file(args.human)
        human = _read_human(args.human)
    return _report(args, table, human)


def _report(args: argparse.Namespace, table: VerdictTable, human: dict[str, float] | None) -> int:
    """The per-anchor report of a verdict table: printed, and written with ``--out``."""
    from judgebayes.anchors.rankings import human_vector
    from judgebayes.anchors.recommend import analyze_anchors

    with reading(args.file):
        table = table.one_judge(args.judge)
    if human is not None:
        with reading(args.human):  # names the human file when its models do not match
            human_vector(table.models, human)
    with reading(args.file):
        result = analyze_anchors(
            table,
            human=human,
            anchors=args.anchors,
            scale=args.scale,
            n_boot=args.n_boot,
            seed=args.seed,
            progress=args.progress,
        )
    layout = result.layout
    kind = "full matrix" if layout.is_full_matrix else "anchor layout"
    print(
        f"{args.file}: {len(table):,} verdicts, {len(table.models)} models, "
        f"{len(table.prompts):,} prompts ({kind}: {len(layout.anchors)} anchor(s))"
    )
    if layout.human is not None:
        missing = [m for m, h in zip(layout.models, layout.human, strict=True) if h != h]
        print(
            f"human scores for {len(layout.models) - len(missing)} of {len(layout.models)} "
            "models" + (f" (none for {', '.join(missing)}: left out of τ)" if missing else "")
        )
    print(result)
    if args.out is not None:
        _write_report(args, table, result)
    return 0


def _write_report(args: argparse.Namespace, table: VerdictTable, result: AnchorAnalysis) -> None:
    """anchors.csv (one row per anchor), rankings.csv (anchor × model), summary.json."""
    layout = result.layout
    args.out.mkdir(parents=True, exist_ok=True)
    frame = result.to_frame()
    frame.astype({"n_total_5pct": "Int64"}).to_csv(args.out / "anchors.csv", index=False)
    layout.rankings().to_csv(args.out / "rankings.csv", index=False)
    info = layout.info.informativeness
    known = np.isfinite(info).any()
    reason = "no prompt holds two targets of an anchor"
    write_json(
        args.out / "summary.json",
        {
            "file": str(args.file),
            "format": args.format,
            "judge": table.judges[0],
            "scale": args.scale,
            "n_verdicts": len(table),
            "n_models": len(table.models),
            "n_prompts": len(table.prompts),
            "full_matrix": layout.is_full_matrix,
            "n_debiased": table.n_debiased,
            "effect": result.effect,
            "n_base": result.n_base,
            "n_boot": layout.n_boot,
            "level": layout.level,
            "seed": layout.seed,
            "anchors": list(layout.anchors),
            "most_informative": layout.anchors[int(np.nanargmax(info))] if known else None,
            "least_informative": layout.anchors[int(np.nanargmin(info))] if known else None,
            "informativeness_null_reason": None if known else reason,
            "human_models": None
            if layout.human is None
            else [m for m, h in zip(layout.models, layout.human, strict=True) if h == h],
            "rows": table.report.to_dict(),
        },
    )
    print(
        f"wrote {args.out / 'anchors.csv'}, {args.out / 'rankings.csv'}, "
        f"{args.out / 'summary.json'}"
    )


def register(sub: argparse._SubParsersAction) -> None:
    """Add the verb's parser."""
    p = sub.add_parser(
        "anchors",
        help=f"anchor-based evaluation ({PAPERS['anchors'].short}): informativeness, τ, power",
        description=described(
            "judgebayes anchors FILE: per anchor (the models every other model meets) its "
            "informativeness I(p, A), the ranking it induces, Kendall τ with the human ranking "
            "(--human) and, on a full matrix, the quadratic ranking, with bootstrap intervals "
            "over prompts, and N_total at +5%.",
            PAPERS["anchors"],
            "judgebayes anchors power: the sign-test table (Table 2). (A verdict file named "
            "'power' is ./power.)",
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "file",
        type=Path,
        metavar="FILE|power",
        help="verdicts: prompt_id, model_a, model_b, verdict (2..-2 or A>>B, A>B, "
        "A=B, B>A, B>>A), optional judge; Arena-Hard judgments or single grades (a file "
        "or folder, see --format); or the word 'power'",
    )
    p.add_argument(
        "--format",
        choices=("auto", "table", "arena-hard", "grades"),
        default="auto",
        help="auto (default): chosen from the content; table (prompt_id, model_a, model_b, "
        "verdict); arena-hard (model_judgment files, two games per question); grades "
        "(single 1-10 grades: a verdict per prompt and pair from the two grades)",
    )
    p.add_argument(
        "--clear-gap",
        type=grade_gap,
        default=None,
        metavar="K",
        help="grades: five-point verdicts, a grade gap of K or more 'clearly better', "
        "below K 'slightly' (default: the sign of the gap, three-point)",
    )
    p.add_argument(
        "--baseline",
        default=None,
        help="arena-hard: the baseline model of judgment files that do not name it",
    )
    p.add_argument("--judge", default=None, help="the judge to analyse (when several)")
    p.add_argument(
        "--scale",
        choices=("five", "three"),
        default="five",
        help="verdict scale of the informativeness (default five-point)",
    )
    p.add_argument(
        "--human",
        type=Path,
        default=None,
        help="human scores (model, score) for τ with the human ranking",
    )
    p.add_argument(
        "--anchors",
        nargs="+",
        default=None,
        metavar="MODEL",
        help="the anchors (default: the models every other model meets)",
    )
    p.add_argument(
        "--n-boot",
        type=count,
        default=1000,
        help="bootstrap resamples of the prompts for the intervals (default 1000)",
    )
    p.add_argument("--seed", type=non_negative_int, default=0, help="bootstrap seed (default 0)")
    p.add_argument("--no-progress", dest="progress", action="store_false", help="no progress bar")
    p.add_argument(
        "--ties",
        nargs="+",
        type=tie_rate,
        default=[0.39, 0.55],
        help="power: tie rates of the total columns (default 0.39 0.55)",
    )
    p.add_argument("--alpha", type=probability, default=0.05, help="power: one-sided level")
    p.add_argument("--power", type=probability, default=0.8, help="power: target power")
    p.add_argument(
        "--out",
        type=Path,
        default=None,
        help="write anchors.csv, rankings.csv (or power.csv) and summary.json here",
    )
    p.set_defaults(run=_anchors)
