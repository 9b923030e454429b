"""`judgebayes softelo`: the seed-000 protocol (temperature, held-out Elo, conformal intervals)."""

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
from judgebayes.core.io import write_json
from judgebayes.core.loaders import FORMATS
from judgebayes.errors import DataError


def _softelo(args: argparse.Namespace) -> int:
    """Seed 000: temperature, held-out hard vs soft Elo, and split-conformal intervals."""
    from judgebayes.softelo import run_softelo

    battles = one_judge(args, may_pool=False)
    for col in ("score_diff", "human_label", "judge_label"):
        if col not in battles:
            raise DataError(
                f"Soft-Elo needs a {col!r} column (judge scores, human labels "
                f"on some battles and judge labels)",
                column=col,
            )
    methods = ("hard", "soft", *(f"smooth_{c:g}" for c in args.smoothing))
    result = run_softelo(
        battles,
        methods=methods,
        lam=args.lam,
        n_boot=args.n_boot,
        alpha=args.alpha,
        n_splits=args.splits,
        seed=args.seed,
        conformal=args.conformal,
        progress=not args.no_progress,
    )
    temperature, held = result.temperature, result.held
    lo, hi = temperature.ci
    print(
        f"beta* = {temperature.beta:.3f} (95% CI {lo:.3f}-{hi:.3f}), ECE = "
        f"{temperature.ece:.3f}, kappa = {held.kappa:.3f}, mean |s| = {held.mean_abs_s:.2f}"
    )
    if temperature.low_signal:
        print(f"warning: {temperature.message}")
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
            "temperature": temperature.to_frame().iloc[0].to_dict(),
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
        help="Soft-Elo (seed 000): temperature, held-out hard vs "
        "soft Elo, split-conformal intervals",
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
        help="within-model bootstrap resamples for SE (seed 000: 20)",
    )
    soft.add_argument("--alpha", type=probability, default=0.1)
    soft.add_argument("--splits", type=positive_int, default=5)
    soft.add_argument(
        "--conformal",
        choices=("split", "jackknife+"),
        default="split",
        help="split: random model splits (seed 000); jackknife+: each model "
        "calibrated on all others (finite with few models)",
    )
    soft.add_argument(
        "--smoothing",
        type=probability,
        nargs="*",
        default=[],
        help="label-smoothing constants c to compare (Appendix H)",
    )
    soft.add_argument("--seed", type=non_negative_int, default=0)
    soft.add_argument("--drop-invalid", action="store_true")
    soft.add_argument("--out", type=Path, default=None)
    soft.add_argument("--no-progress", action="store_true")
    soft.set_defaults(run=_softelo)
