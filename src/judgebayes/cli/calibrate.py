"""`judgebayes calibrate`: judge misclassification.

Fiedler, *Bias and Uncertainty in LLM-as-a-Judge Estimation* (2026, arXiv:2605.06939).

The frequentist table (naive, Rogan–Gladen, PPI++ with the paired bootstrap) and, with
``--bayes``, the Bayesian latent-class designs of :mod:`judgebayes.calibration.designs`
and :mod:`judgebayes.calibration.paired` fitted to the same items: their Δθ posteriors
against the baseline (quantities named as in ``comparisons.csv``, e.g.
``theta[B] - theta[A]``) and the PSIS-LOO comparison of the designs.

A fully labelled benchmark (every item with its human verdict, e.g. the
debias-llm-as-a-judge battles: ``judgebayes calibrate debias_judge/ --judge gpt-4o-mini``)
has no test items; ``--calibration-size`` keeps the human labels of a random calibration
set only and scores the estimates against the hidden ones (the ``true θ (test)`` column).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from judgebayes.cli.common import (
    column_pair,
    int_at_least,
    label_pair,
    non_negative_int,
    positive_int,
    probability,
)
from judgebayes.cli.papers import PAPERS, described
from judgebayes.core.io import reading, require_file, write_json

if TYPE_CHECKING:
    from judgebayes.calibration import JudgedItems


# judgebayes.calibration.readers.ITEM_FORMATS, named here so that the parser imports
# neither the calibration estimators nor SciPy.
ITEM_FORMAT_NAMES = ("auto", "table", "prevalence", "inspect")
# The Bayesian designs (judgebayes.calibration.designs.DESIGNS), named here so that the
# parser does not import JAX.
DESIGN_NAMES = ("shared", "model_specific", "hierarchical", "paired", "paired_hierarchical")


def calibration_size(text: str) -> float | int:
    """An argparse ``type=``: a fraction in (0, 1) or a count >= 1 (``--calibration-size``)."""
    try:
        value: float | int = int(text)
    except ValueError:
        try:
            value = float(text)
        except ValueError:
            value = 0
    if (isinstance(value, int) and value < 1) or (isinstance(value, float) and not 0 < value < 1):
        raise argparse.ArgumentTypeError(
            f"expected a fraction in (0, 1) or a count >= 1, got {text!r}"
        )
    return value


def _bayes(args: argparse.Namespace, items: JudgedItems, baseline: str) -> list[Path]:
    """``--bayes``: fit the designs, print Δθ posteriors and LOO; write the two CSVs."""
    import warnings

    import pandas as pd

    from judgebayes.calibration.posterior import fit_calibration

    bayes = fit_calibration(
        items,
        designs=args.designs,
        method=args.method,
        chains=args.chains,
        draws=args.draws,
        warmup=args.draws,
        seed=args.seed,
        alpha=args.alpha,
        progress=not args.no_progress,
    )
    others = [m for m in bayes.models if m != baseline]
    rows = bayes.summary(baseline, baseline).to_dict("records")  # per model: θ, q0, q1, J
    for design in bayes.fits:
        for m in others:
            for q in ("theta", "J"):
                rows.append(
                    bayes.difference(m, baseline, design=design, quantity=q)
                    .to_frame()
                    .iloc[0]
                    .to_dict()
                )
    table = pd.DataFrame(rows)[["design", "quantity", "estimate", "lo", "hi"]]
    level = f"{100 * (1 - args.alpha):g}%"
    print(
        f"\nBayesian calibration designs ({', '.join(bayes.fits)}; "
        f"{'NUTS' if args.method == 'nuts' else 'MAP + Laplace'}): posterior medians and "
        f"{level} credible intervals of Δθ against {baseline}"
    )
    delta = table[table["quantity"].str.contains(" - ")]
    text = [
        f"{e:+.3f} [{lo:+.3f}, {hi:+.3f}]"
        for e, lo, hi in zip(delta["estimate"], delta["lo"], delta["hi"], strict=True)
    ]
    print(
        delta.assign(posterior=text)
        .pivot(index="quantity", columns="design", values="posterior")
        .reindex(columns=list(bayes.fits))
        .to_string()
    )
    loo = None
    if len(bayes.fits) > 1:
        with warnings.catch_warnings():  # ArviZ's own sort_values(inplace=True) deprecation
            warnings.filterwarnings("ignore", message="The inplace keyword")
            loo = bayes.loo().rename_axis("design").reset_index()
        print("\nPSIS-LOO, one term per item (every model's answer to it):")
        print(
            loo[["design", "rank", "elpd_loo", "p_loo", "elpd_diff", "dse", "weight"]].to_string(
                index=False, float_format=lambda v: f"{v:.2f}"
            )
        )
    if args.out is None:
        return []
    written = [args.out / "bayes_designs.csv"]
    table.to_csv(written[0], index=False)
    if loo is not None:
        written.append(args.out / "loo.csv")
        loo.to_csv(written[1], index=False)
    return written


def _read_items(args: argparse.Namespace) -> JudgedItems:
    """The judged items of ``args.file`` in ``--format`` (auto: printed as chosen)."""
    from judgebayes.calibration.readers import item_format, read_judged_items

    if not Path(args.file).is_dir():
        require_file(args.file)
    fmt = args.format
    if fmt == "auto":
        fmt = item_format(args.file)
        print(f"format: {fmt} (--format auto: chosen from the content of {args.file.name})")
    if fmt == "prevalence" and args.calibration_size is None:
        args.calibration_size, args.per_model = 0.1, True
        print(
            "calibration set: 10% of each opponent's battles drawn at random "
            f"(seed {args.seed}); the rest are test items whose human labels only score the "
            "estimates (--calibration-size)"
        )
    with reading(args.file):
        return read_judged_items(
            args.file,
            format=fmt,
            columns=dict(args.map or ()),
            labels=dict(args.label or ()),
            target=args.target,
            judge=args.judge,
            seed=args.seed,
            human=args.human,
            scorer=args.scorer,
        )


def _calibrate(args: argparse.Namespace) -> int:
    """Naive, Rogan–Gladen and PPI++ accuracies with J / ΔJ diagnostics (Fiedler)."""
    import pandas as pd

    from judgebayes.calibration import calibrate

    items = _read_items(args)
    if args.calibration_size is not None:
        items = items.calibration_split(
            args.calibration_size, seed=args.seed, per_model=args.per_model
        )
        s = items.summary()
        print(
            f"calibration split (seed {args.seed}): {int(s['n_cal'].sum()):,} human-labelled "
            f"items kept, {int(s['n_test'].sum()):,} test items whose human labels are hidden "
            "from the estimators and shown as the true θ (test)\n"
        )
    result = calibrate(
        items,
        baseline=args.baseline,
        n_boot=args.n_boot,
        alpha=args.alpha,
        n_splits=args.n_splits,
        seed=args.seed,
        progress=not args.no_progress,
    )
    print(result)
    print()
    print(result.report())
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
    bayes_files = _bayes(args, items, result.baseline) if args.bayes else []
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        result.to_frame().to_csv(args.out / "estimates.csv", index=False)
        comparisons = pd.concat([c.to_frame() for c in result.comparisons()], ignore_index=True)
        comparisons.to_csv(args.out / "comparisons.csv", index=False)
        result.diagnostics().to_csv(args.out / "diagnostics.csv", index=False)
        info = {
            "file": str(args.file),
            "format": args.format,
            "baseline": result.baseline,
            "n_boot": args.n_boot,
            "n_splits": args.n_splits,
            "alpha": args.alpha,
            "seed": args.seed,
            "models": list(result.models),
            "report": result.report().to_dict(),
            "rows": items.report.to_dict(),
        }
        if args.bayes:
            info["bayes"] = {
                "designs": list(args.designs or ()) or "default",
                "method": args.method,
                "chains": args.chains,
                "draws": args.draws,
            }
        write_json(args.out / "summary.json", info)
        files = [
            args.out / n
            for n in ("estimates.csv", "comparisons.csv", "diagnostics.csv", "summary.json")
        ] + bayes_files
        print(f"wrote {', '.join(map(str, files))}")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add the verb's parser."""
    cal = sub.add_parser(
        "calibrate",
        help=f"judge misclassification ({PAPERS['calibration'].short}): naive, Rogan-Gladen, "
        "PPI++ with q0, q1, J and ΔJ",
        description=described(
            "Each model's accuracy from an imperfect judge and a human-labelled calibration "
            "subset: naive, Rogan-Gladen and PPI++ estimates with the judge's q0, q1, Youden's J "
            "per model and ΔJ; with --bayes, the shared, model-specific and hierarchical "
            "calibration designs compared by PSIS-LOO.",
            PAPERS["calibration"],
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    cal.add_argument(
        "file",
        type=Path,
        help="judged items: model, item_id, judge_label, "
        "human_label (calibration subset), optional run; or a prevalence file or folder "
        "(human_winner, judge_pick), or an Inspect log (.eval, .json)",
    )
    cal.add_argument(
        "--format",
        choices=ITEM_FORMAT_NAMES,
        default="auto",
        help="auto (default): chosen from the content; table; prevalence (pairwise "
        "battles of one model against others: theta = P(humans prefer it)); inspect",
    )
    cal.add_argument(
        "--target",
        default=None,
        help="prevalence: the model whose preference rate is estimated (default: the one "
        "in every battle)",
    )
    cal.add_argument(
        "--judge", default=None, help="prevalence: the judge of a folder of several judges"
    )
    cal.add_argument(
        "--human",
        type=Path,
        default=None,
        help="inspect: human labels (id, human_label[, model]) joined by sample id",
    )
    cal.add_argument(
        "--scorer", default=None, help="inspect: the model-graded scorer, when several"
    )
    cal.add_argument(
        "--baseline",
        default=None,
        help="model whose calibration the shared RG reuses (default: most labels)",
    )
    cal.add_argument("--map", nargs="*", type=column_pair, metavar="THEIRS=OURS")
    cal.add_argument(
        "--calibration-size",
        type=calibration_size,
        default=None,
        metavar="SIZE",
        help="keep the human labels of a random calibration set only (a fraction in (0, 1) "
        "or a count of items, drawn with --seed); the hidden labels are the truth. "
        "prevalence: default 0.1 of each opponent's battles (the upstream vignette's)",
    )
    cal.add_argument(
        "--per-model",
        action="store_true",
        help="with --calibration-size: draw each model's calibration set separately",
    )
    cal.add_argument(
        "--label", nargs="*", type=label_pair, metavar="VALUE=P", help="e.g. yes=1 no=0"
    )
    cal.add_argument(
        "--n-boot", type=int_at_least(100), default=2000, help="bootstrap replicates (at least 100)"
    )
    cal.add_argument(
        "--n-splits",
        type=positive_int,
        default=20,
        help="random calibration halves pooled for PPI++ 1x (Appendix E.4)",
    )
    cal.add_argument("--alpha", type=probability, default=0.05)
    cal.add_argument("--seed", type=non_negative_int, default=0)
    cal.add_argument(
        "--out",
        type=Path,
        default=None,
        help="write estimates.csv, comparisons.csv, diagnostics.csv, summary.json "
        "(with --bayes also bayes_designs.csv and loo.csv)",
    )
    bayes = cal.add_argument_group("Bayesian latent-class designs (--bayes)")
    bayes.add_argument(
        "--bayes",
        action="store_true",
        help="also fit the Bayesian designs (shared, model_specific, "
        "hierarchical, paired) and print their Δθ posteriors and LOO",
    )
    bayes.add_argument(
        "--designs",
        nargs="+",
        choices=DESIGN_NAMES,
        default=None,
        help="designs to fit (default: shared model_specific hierarchical "
        "paired; paired only up to 6 models)",
    )
    bayes.add_argument(
        "--method",
        choices=("nuts", "map"),
        default="nuts",
        help="NUTS, or MAP with Laplace draws (faster, approximate)",
    )
    bayes.add_argument("--chains", type=positive_int, default=2)
    bayes.add_argument(
        "--draws",
        type=int_at_least(50),
        default=500,
        help="draws per chain after as many warm-up iterations",
    )
    cal.add_argument("--no-progress", action="store_true")
    cal.set_defaults(run=_calibrate)
