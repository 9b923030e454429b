"""`judgebayes softelo`: the Soft-Elo protocol (temperature, held-out Elo, conformal intervals).

Kargi & Salinas, *From Uncertain Judgments to Calibrated Rankings: Conformal Elo Estimation for LLM
Evaluation* (2026, arXiv:2606.13221).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from judgebayes.cli.common import (
    column_pair,
    count,
    label_pair,
    non_negative,
    non_negative_int,
    one_judge,
    positive_int,
    probability,
)
from judgebayes.cli.papers import PAPERS, described
from judgebayes.core.io import write_json
from judgebayes.core.loaders import FORMATS
from judgebayes.errors import DataError


def _softelo(args: argparse.Namespace) -> int:
    """Temperature, held-out hard vs soft Elo, and split-conformal intervals (Kargi & Salinas)."""
    from judgebayes.softelo import keep_labels, run_softelo

    battles = one_judge(args, may_pool=False)
    needed = {
        "judge_label": "the judge's verdicts",
        "human_label": "human labels on some battles",
    }
    if args.soft == "score":
        needed["score_diff"] = "judge scores; a judge without scores: --soft verdict"
    for col, what in needed.items():
        if col not in battles:
            raise DataError(f"Soft-Elo needs a {col!r} column ({what})", column=col)
    soft = "soft" if args.soft == "score" else "verdict"
    methods = ("hard", soft, *(f"smooth_{c:g}" for c in args.smoothing))
    calibrate_on = None
    if args.calibration_size is not None:
        battles = keep_labels(battles, args.calibration_size, seed=args.seed)
        calibrate_on = "calibration_label"
        print(
            f"calibration: the human labels of {args.calibration_size:,} random battles "
            f"(seed {args.seed}); the reference human Elo uses every human label"
        )
    result = run_softelo(
        battles,
        methods=methods,
        lam=args.lam,
        n_boot=args.n_boot,
        alpha=args.alpha,
        n_splits=args.splits,
        seed=args.seed,
        conformal=args.conformal,
        calibrate_on=calibrate_on,
        verdict_ties=args.verdict_ties,
        progress=not args.no_progress,
    )
    temperature, held = result.temperature, result.held
    if temperature is not None:
        lo, hi = temperature.ci
        print(
            f"beta* = {temperature.beta:.3f} (95% CI {lo:.3f}-{hi:.3f}), ECE = "
            f"{temperature.ece:.3f}, kappa = {held.kappa:.3f}, mean |s| = {held.mean_abs_s:.2f}"
        )
        if temperature.low_signal:
            print(f"warning: {temperature.message}")
    if result.verdicts is not None:
        print(f"{result.verdicts}\nkappa = {held.kappa:.3f}")
    summary = result.summary()
    print(
        f"\nheld-out Elo and {100 * (1 - args.alpha):g}% conformal intervals "
        f"({result.conformal.design}):"
    )
    print(summary.to_string(index=False, float_format=lambda v: f"{v:.3f}"))
    if result.conformal.note is not None:
        print(f"note: {result.conformal.note}")
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        held.table.to_csv(args.out / "held_out.csv", index=False)
        summary.to_csv(args.out / "summary.csv", index=False)
        info = {
            "file": str(args.file),
            "judge": args.judge,
            "alpha": args.alpha,
            "n_boot": args.n_boot,
            "splits": args.splits,
            "seed": args.seed,
            "conformal": args.conformal,
            "conformal_note": result.conformal.note,
            "soft": args.soft,
            "calibration_size": args.calibration_size,
            "temperature": None
            if temperature is None
            else temperature.to_frame().iloc[0].to_dict(),
            "verdict_classes": None
            if result.verdicts is None
            else result.verdicts.to_frame().to_dict(orient="records"),
            "kappa": held.kappa,
            "mean_abs_s": held.mean_abs_s,
            "rows": battles.report.to_dict(),
            "summary": summary.to_dict(orient="records"),
        }
        write_json(args.out / "summary.json", info)
        print(
            f"wrote {args.out / 'held_out.csv'}, {args.out / 'summary.csv'}, "
            f"{args.out / 'summary.json'}"
        )
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add the verb's parser."""
    soft = sub.add_parser(
        "softelo",
        help=f"Soft-Elo ({PAPERS['softelo'].short}): temperature, held-out hard vs soft Elo, "
        "split-conformal intervals",
        description=described(
            "Soft-Elo: the temperature β of the judge's score differences fitted on the human "
            "labels, held-out Hard-Elo vs Soft-Elo against the human Elo (Algorithm 1), and "
            "conformal intervals on the human Elo scale (split or jackknife+).",
            PAPERS["softelo"],
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    soft.add_argument("file", type=Path)
    soft.add_argument(
        "--format", choices=FORMATS, default="auto", help="auto (default): chosen from the content"
    )
    soft.add_argument("--judge", default=None, help="use this judge's battles only")
    soft.add_argument("--map", nargs="*", type=column_pair, metavar="THEIRS=OURS")
    soft.add_argument("--label", nargs="*", type=label_pair, metavar="VALUE=P")
    soft.add_argument("--lam", type=non_negative, default=0.01)
    soft.add_argument(
        "--n-boot",
        type=count,
        default=20,
        help="within-model bootstrap resamples for SE (the paper: 20)",
    )
    soft.add_argument("--alpha", type=probability, default=0.1)
    soft.add_argument("--splits", type=positive_int, default=5)
    soft.add_argument(
        "--conformal",
        choices=("split", "jackknife+"),
        default="split",
        help="split: random model splits (the paper's); jackknife+: each model "
        "calibrated on all others (finite with few models)",
    )
    soft.add_argument(
        "--smoothing",
        type=probability,
        nargs="*",
        default=[],
        help="label-smoothing constants c to compare (Appendix H)",
    )
    soft.add_argument(
        "--soft",
        choices=("score", "verdict"),
        default="score",
        help="score (default): soft targets sigma(beta*s) from score_diff; verdict: one soft "
        "target per verdict class, P(humans prefer the first shown | verdict), for a judge "
        "that gives verdicts and no scores",
    )
    soft.add_argument(
        "--verdict-ties",
        choices=("half", "exclude"),
        default="half",
        help="human ties in the verdict-class table: as 1/2 (default) or left out",
    )
    soft.add_argument(
        "--calibration-size",
        type=positive_int,
        default=None,
        metavar="N",
        help="calibrate on the human labels of N random battles only; the reference human "
        "Elo still uses every label (what a user with N labels gets)",
    )
    soft.add_argument("--seed", type=non_negative_int, default=0)
    soft.add_argument("--drop-invalid", action="store_true")
    soft.add_argument("--out", type=Path, default=None)
    soft.add_argument("--no-progress", action="store_true")
    soft.set_defaults(run=_softelo)
