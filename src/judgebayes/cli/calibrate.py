"""`judgebayes calibrate`: judge misclassification (seed 001)."""

from __future__ import annotations

import argparse
from pathlib import Path

from judgebayes.cli.common import (
    column_pair,
    int_at_least,
    label_pair,
    non_negative_int,
    positive_int,
    probability,
)
from judgebayes.core.io import reading, require_file, write_json


def _calibrate(args: argparse.Namespace) -> int:
    """Seed 001: naive, Rogan–Gladen and PPI++ accuracies with J / ΔJ diagnostics."""
    import pandas as pd

    from judgebayes.calibration import calibrate, read_judged_items

    require_file(args.file)
    with reading(args.file):
        items = read_judged_items(args.file, columns=dict(args.map or ()),
                                  labels=dict(args.label or ()))
    result = calibrate(items, baseline=args.baseline, n_boot=args.n_boot, alpha=args.alpha,
                       n_splits=args.n_splits, seed=args.seed, progress=not args.no_progress)
    print(result)
    print()
    print(result.report())
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        result.to_frame().to_csv(args.out / "estimates.csv", index=False)
        comparisons = pd.concat([c.to_frame() for c in result.comparisons()], ignore_index=True)
        comparisons.to_csv(args.out / "comparisons.csv", index=False)
        result.diagnostics().to_csv(args.out / "diagnostics.csv", index=False)
        info = {"file": str(args.file), "baseline": result.baseline, "n_boot": args.n_boot,
                "n_splits": args.n_splits, "alpha": args.alpha, "seed": args.seed,
                "models": list(result.models), "report": result.report().to_dict()}
        write_json(args.out / "summary.json", info)
        print(f"wrote {args.out / 'estimates.csv'}, {args.out / 'comparisons.csv'}, "
              f"{args.out / 'diagnostics.csv'}, {args.out / 'summary.json'}")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add the verb's parser."""
    cal = sub.add_parser("calibrate", help="judge misclassification (seed 001): naive, "
                                           "Rogan-Gladen, PPI++ with q0, q1, J and ΔJ")
    cal.add_argument("file", type=Path, help="judged items: model, item_id, judge_label, "
                                             "human_label (calibration subset), optional run")
    cal.add_argument("--baseline", default=None,
                     help="model whose calibration the shared RG reuses (default: most labels)")
    cal.add_argument("--map", nargs="*", type=column_pair, metavar="THEIRS=OURS")
    cal.add_argument("--label", nargs="*", type=label_pair, metavar="VALUE=P",
                     help="e.g. yes=1 no=0")
    cal.add_argument("--n-boot", type=int_at_least(100), default=2000,
                     help="bootstrap replicates (at least 100)")
    cal.add_argument("--n-splits", type=positive_int, default=20,
                     help="random calibration halves pooled for PPI++ 1x (Appendix E.4)")
    cal.add_argument("--alpha", type=probability, default=0.05)
    cal.add_argument("--seed", type=non_negative_int, default=0)
    cal.add_argument("--out", type=Path, default=None)
    cal.add_argument("--no-progress", action="store_true")
    cal.set_defaults(run=_calibrate)
