"""The ``judgebayes`` command line.

Every verb prints a readable table; with ``--out DIR`` it also writes the same
results as CSV (a leaderboard: ``model, elo, elo_lo, elo_hi, se, n_battles``) and
a ``summary.json``. Bad input exits with status 2 and a one-line reason: argument
values are checked by the parser (one ``type=`` per kind of value, shared by every
verb), and files are read through :mod:`judgebayes.core.io`, which turns whatever goes
wrong in a file into one :class:`~judgebayes.DataError` naming the file and the line.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path

from judgebayes.core.battles import Battles
from judgebayes.core.bootstrap import BootstrapElo, bootstrap_bt
from judgebayes.core.io import file_format, in_file, read_frame, reading, require_file, write_json
from judgebayes.core.loaders import FORMATS, read_battles
from judgebayes.errors import DataError, JudgeBayesWarning
from judgebayes.simulate import simulate_arena

__all__ = ["main"]

_TARGETS = {"judge": "judge_label", "human": "human_label"}


# ------------------------------------------------------- argument values (type=)
def _int_at_least(low: int) -> Callable[[str], int]:
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


_count = _int_at_least(2)  # --n-boot, --models: at least two replicates or models
_positive_int = _int_at_least(1)  # --battles, --splits, --n-splits
_non_negative_int = _int_at_least(0)  # --seed


def _number(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"expected a finite number, got {text!r}")
    return value


def _probability(text: str) -> float:
    """An argparse ``type=``: a number strictly between 0 and 1 (``--alpha``)."""
    value = _number(text)
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"expected a number in (0, 1), got {text!r}")
    return value


def _non_negative(text: str) -> float:
    """An argparse ``type=``: a finite number >= 0 (``--lam``)."""
    value = _number(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a number >= 0, got {text!r}")
    return value


def _column_pair(text: str) -> tuple[str, str]:
    """An argparse ``type=``: ``--map THEIRS=OURS``."""
    key, sep, value = text.partition("=")
    if not (sep and key and value):
        raise argparse.ArgumentTypeError(f"expected THEIRS=OURS, got {text!r}")
    return key, value


def _label_pair(text: str) -> tuple[str, float]:
    """An argparse ``type=``: ``--label VALUE=P`` with P a number in [0, 1]."""
    key, sep, value = text.partition("=")
    try:
        p = float(value)
    except ValueError:
        p = math.nan
    if not (sep and key and 0 <= p <= 1):
        raise argparse.ArgumentTypeError(f"expected VALUE=P with P in [0, 1], got {text!r}")
    return key, p


def _write(out: Path | None, board: BootstrapElo, summary: dict, *, plot: bool,
           truth: dict[str, float] | None = None) -> list[Path]:
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


def _summary(board: BootstrapElo, **extra: object) -> dict:
    fit = board.fit
    return {"target": fit.target, "lam": fit.lam, "n_models": len(fit.models),
            "n_boot": len(board.replicates), "alpha": board.alpha, "scheme": board.scheme,
            "seed": board.seed, "rows": fit.report.to_dict(), "graph": fit.graph.to_dict(),
            **extra}


def _print_board(board: BootstrapElo, extra_cols: dict | None = None) -> None:
    frame = board.to_frame()
    for name, values in (extra_cols or {}).items():
        frame[name] = frame["model"].map(values)
    print(frame.to_string(index=False, float_format=lambda v: f"{v:.1f}"))


def _demo(args: argparse.Namespace) -> int:
    start = time.perf_counter()
    sim = simulate_arena(args.models, args.battles, seed=args.seed)
    board = bootstrap_bt(sim.battles, target="judge_label", n_boot=args.n_boot,
                         seed=args.seed, progress=not args.no_progress)
    elapsed = time.perf_counter() - start
    truth = sim.elo.to_dict()
    print(f"Simulated arena: {args.models} models, {args.battles} battles judged by an LLM "
          f"(seed {args.seed}). Hard-Elo from the judge's labels, "
          f"{100 * (1 - board.alpha):g}% bootstrap intervals ({args.n_boot} replicates):")
    _print_board(board, {"true_elo": truth})
    frame = board.to_frame()
    covered = ((frame["elo_lo"] <= frame["model"].map(truth))
               & (frame["model"].map(truth) <= frame["elo_hi"])).mean()
    print(f"\n{elapsed:.1f} s. The judge's hard labels stretch the Elo axis: the true ratings "
          f"span {min(truth.values()):.0f}-{max(truth.values()):.0f}, the judge's "
          f"{frame['elo'].min():.0f}-{frame['elo'].max():.0f}, and only {covered:.0%} of the "
          f"intervals cover the human-scale truth. Soft-Elo (seed 000) corrects the scale.")
    written = _write(args.out, board, _summary(board, simulated=True, seconds=elapsed),
                     plot=True, truth=truth)
    if written:
        print("wrote " + ", ".join(str(p) for p in written))
    return 0


def _one_judge(args: argparse.Namespace, *, may_pool: bool) -> Battles:
    """Read ``args.file`` (``--format``, ``--map``, ``--label``) and keep one judge's battles."""
    battles = read_battles(args.file, args.format, columns=dict(args.map or ()),
                           labels=dict(args.label or ()),
                           on_invalid="drop" if args.drop_invalid else "raise")
    if args.judge is not None:
        return battles.for_judge(args.judge)
    if len(battles.judges) > 1 and not (may_pool and args.pool_judges):
        raise DataError(f"{args.file} holds verdicts of {len(battles.judges)} judges; pick one "
                        f"with --judge NAME (e.g. --judge {battles.judges[0]})"
                        + (" or pass --pool-judges" if may_pool else ""))
    return battles


def _elo(args: argparse.Namespace) -> int:
    battles = _one_judge(args, may_pool=True)
    target = _TARGETS.get(args.target, args.target) if args.target else None
    board = bootstrap_bt(battles, target=target, lam=args.lam, n_boot=args.n_boot,
                         alpha=args.alpha, seed=args.seed, progress=not args.no_progress)
    print(board)
    written = _write(args.out, board, _summary(board, file=str(args.file), format=args.format,
                                               judge=args.judge), plot=args.out is not None)
    if written:
        print("wrote " + ", ".join(str(p) for p in written))
    return 0


def _consistency(args: argparse.Namespace) -> int:
    """Seed 002: each judge's Consistency score, optionally against its Arena Elo."""
    from judgebayes.consistency import (
        compare_elo,
        judge_consistency,
        position_bias,
        read_elo,
    )
    from judgebayes.core.loaders import read_consistency

    path: Path = args.path
    on_invalid = "drop" if args.drop_invalid else "raise"
    if args.format == "consistency" or (args.format == "auto" and (
            path.is_dir() or file_format(path, "csv") == "json")):
        battles = read_consistency(path, on_invalid=on_invalid)
    else:
        battles = read_battles(path, "csv", columns=dict(args.map or ()),
                               labels=dict(args.label or ()), on_invalid=on_invalid)
    if "judge" not in battles:
        raise DataError(f"{path} has no 'judge' column: Consistency is a per-judge score "
                        f"(map one with --map THEIRS=judge)", column="judge")
    matchups = None
    if args.matchups is not None:
        with reading(args.matchups):
            table = read_frame(args.matchups, text_columns=True, default="csv")
            if table.shape[1] < 2:
                raise DataError("needs two columns of model names",
                                expected="a CSV such as model_i,model_j")
        matchups = list(table.iloc[:, :2].astype(str).itertuples(index=False, name=None))
    result = judge_consistency(battles, matchups=matchups)
    frame = result.to_frame()
    if "position" in battles:
        bias = position_bias(result.counts).to_frame().set_index("judge")
        frame["p_first"] = frame["judge"].map(bias["p_first"])
    summary: dict = {"file": str(path), "n_judges": len(result.judges),
                     "n_matchups": result.counts.n_pairs, "rows": battles.report.to_dict(),
                     "consistency": dict(zip(result.judges, result.consistency.tolist(),
                                             strict=True))}
    lines = [str(result).split("\n")[0]]
    if args.judge_elo is not None:
        require_file(args.judge_elo)
        with reading(args.judge_elo):
            elo = read_elo(args.judge_elo)
        agreement = compare_elo(result, elo)
        extra = agreement.to_frame().set_index("judge")[
            ["arena_elo", "rank_consistency", "rank_elo", "elo_pred", "elo_pred_loo"]]
        frame = frame.join(extra, on="judge").sort_values("arena_elo", ascending=False,
                                                           ignore_index=True)
        summary["elo"] = agreement.to_dict()
        summary["judge_elo_file"] = str(args.judge_elo)
        lines.append(str(agreement))
    print(lines[0])
    print(frame.to_string(index=False, formatters={
        "consistency": "{:.3f}".format, "mean_variance": "{:.4f}".format,
        "p_first": "{:.3f}".format, "arena_elo": "{:.0f}".format,
        "rank_consistency": "{:g}".format, "rank_elo": "{:g}".format,
        "elo_pred": "{:.1f}".format, "elo_pred_loo": "{:.1f}".format}))
    for line in lines[1:]:
        print("\n" + line)
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        frame.to_csv(args.out / "consistency.csv", index=False)
        write_json(args.out / "summary.json", summary)
        print(f"wrote {args.out / 'consistency.csv'}, {args.out / 'summary.json'}")
    return 0


def _softelo(args: argparse.Namespace) -> int:
    """Seed 000: temperature, held-out hard vs soft Elo, and split-conformal intervals."""
    from judgebayes.softelo import run_softelo

    battles = _one_judge(args, may_pool=False)
    for col in ("score_diff", "human_label", "judge_label"):
        if col not in battles:
            raise DataError(f"Soft-Elo needs a {col!r} column (judge scores, human labels "
                            f"on some battles and judge labels)", column=col)
    methods = ("hard", "soft", *(f"smooth_{c:g}" for c in args.smoothing))
    result = run_softelo(battles, methods=methods, lam=args.lam, n_boot=args.n_boot,
                         alpha=args.alpha, n_splits=args.splits, seed=args.seed,
                         progress=not args.no_progress)
    temperature, held = result.temperature, result.held
    lo, hi = temperature.ci
    print(f"beta* = {temperature.beta:.3f} (95% CI {lo:.3f}-{hi:.3f}), ECE = "
          f"{temperature.ece:.3f}, kappa = {held.kappa:.3f}, mean |s| = {held.mean_abs_s:.2f}")
    if temperature.low_signal:
        print(f"warning: {temperature.message}")
    summary = result.summary()
    print("\nheld-out Elo and split-conformal intervals "
          f"({100 * (1 - args.alpha):g}% nominal, {args.splits} random model splits):")
    print(summary.to_string(index=False, float_format=lambda v: f"{v:.3f}"))
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        held.table.to_csv(args.out / "held_out.csv", index=False)
        summary.to_csv(args.out / "summary.csv", index=False)
        info = {"file": str(args.file), "judge": args.judge, "alpha": args.alpha,
                "n_boot": args.n_boot, "splits": args.splits, "seed": args.seed,
                "temperature": temperature.to_frame().iloc[0].to_dict(), "kappa": held.kappa,
                "mean_abs_s": held.mean_abs_s, "rows": battles.report.to_dict(),
                "summary": summary.to_dict(orient="records")}
        write_json(args.out / "summary.json", info)
        print(f"wrote {args.out / 'held_out.csv'}, {args.out / 'summary.csv'}, "
              f"{args.out / 'summary.json'}")
    return 0


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


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="judgebayes", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="verb", required=True)

    demo = sub.add_parser("demo", help="simulate a judged arena and fit Hard-Elo with "
                                       "bootstrap intervals")
    demo.add_argument("--models", type=_count, default=55)
    demo.add_argument("--battles", type=_positive_int, default=25_000)
    demo.add_argument("--n-boot", type=_count, default=1000)
    demo.add_argument("--seed", type=_non_negative_int, default=0)
    demo.add_argument("--out", type=Path, default=Path("judgebayes-demo"),
                      help="folder for leaderboard.csv, summary.json, forest.png")
    demo.add_argument("--no-progress", action="store_true")
    demo.set_defaults(run=_demo)

    elo = sub.add_parser("elo", help="Bradley–Terry Elo leaderboard with bootstrap intervals")
    elo.add_argument("file", type=Path)
    elo.add_argument("--format", choices=FORMATS, required=True)
    elo.add_argument("--target", default=None,
                     help="judge, human, or a column name (default: judge if present)")
    elo.add_argument("--judge", default=None, help="use this judge's verdicts only")
    elo.add_argument("--pool-judges", action="store_true",
                     help="fit all judges' verdicts together")
    elo.add_argument("--map", nargs="*", type=_column_pair, metavar="THEIRS=OURS",
                     help="column mapping for --format csv, e.g. left=model_a")
    elo.add_argument("--label", nargs="*", type=_label_pair, metavar="VALUE=P",
                     help="label mapping for --format csv, e.g. A=1 B=0 tie=0.5")
    elo.add_argument("--lam", type=_non_negative, default=0.01)
    elo.add_argument("--n-boot", type=_count, default=1000)
    elo.add_argument("--alpha", type=_probability, default=0.05)
    elo.add_argument("--seed", type=_non_negative_int, default=0)
    elo.add_argument("--drop-invalid", action="store_true",
                     help="drop invalid rows (counted in the summary) instead of failing")
    elo.add_argument("--out", type=Path, default=None)
    elo.add_argument("--no-progress", action="store_true")
    elo.set_defaults(run=_elo)

    soft = sub.add_parser("softelo", help="Soft-Elo (seed 000): temperature, held-out hard vs "
                                          "soft Elo, split-conformal intervals")
    soft.add_argument("file", type=Path)
    soft.add_argument("--format", choices=FORMATS, required=True)
    soft.add_argument("--judge", default=None, help="use this judge's battles only")
    soft.add_argument("--map", nargs="*", type=_column_pair, metavar="THEIRS=OURS")
    soft.add_argument("--label", nargs="*", type=_label_pair, metavar="VALUE=P")
    soft.add_argument("--lam", type=_non_negative, default=0.01)
    soft.add_argument("--n-boot", type=_count, default=20,
                      help="within-model bootstrap resamples for SE (seed 000: 20)")
    soft.add_argument("--alpha", type=_probability, default=0.1)
    soft.add_argument("--splits", type=_positive_int, default=5)
    soft.add_argument("--smoothing", type=_probability, nargs="*", default=[],
                      help="label-smoothing constants c to compare (Appendix H)")
    soft.add_argument("--seed", type=_non_negative_int, default=0)
    soft.add_argument("--drop-invalid", action="store_true")
    soft.add_argument("--out", type=Path, default=None)
    soft.add_argument("--no-progress", action="store_true")
    soft.set_defaults(run=_softelo)

    cons = sub.add_parser("consistency", help="each judge's Consistency score (seed 002), "
                                              "optionally against the judges' Arena Elo")
    cons.add_argument("path", type=Path,
                      help="a folder of <judge>_contest_data.json files, one contest file, or "
                           "a battles table with a judge column")
    cons.add_argument("--judge-elo", type=Path, default=None,
                      help="CSV judge,arena_elo: also print Pearson/Spearman r, rank "
                           "displacement and regression MAE")
    cons.add_argument("--format", choices=("auto", "consistency", "csv"), default="auto",
                      help="auto: contest JSON for a folder or .json file, else a table")
    cons.add_argument("--matchups", type=Path, default=None,
                      help="CSV of model pairs (two columns) to use; default: all pairs")
    cons.add_argument("--map", nargs="*", type=_column_pair, metavar="THEIRS=OURS",
                      help="column mapping for a table, e.g. grader=judge")
    cons.add_argument("--label", nargs="*", type=_label_pair, metavar="VALUE=P",
                      help="label mapping for a table, e.g. A=1 B=0 tie=0.5")
    cons.add_argument("--drop-invalid", action="store_true",
                      help="drop invalid rows (counted in the summary) instead of failing")
    cons.add_argument("--out", type=Path, default=None)
    cons.set_defaults(run=_consistency)

    cal = sub.add_parser("calibrate", help="judge misclassification (seed 001): naive, "
                                           "Rogan-Gladen, PPI++ with q0, q1, J and ΔJ")
    cal.add_argument("file", type=Path, help="judged items: model, item_id, judge_label, "
                                             "human_label (calibration subset), optional run")
    cal.add_argument("--baseline", default=None,
                     help="model whose calibration the shared RG reuses (default: most labels)")
    cal.add_argument("--map", nargs="*", type=_column_pair, metavar="THEIRS=OURS")
    cal.add_argument("--label", nargs="*", type=_label_pair, metavar="VALUE=P",
                     help="e.g. yes=1 no=0")
    cal.add_argument("--n-boot", type=_int_at_least(100), default=2000,
                     help="bootstrap replicates (at least 100)")
    cal.add_argument("--n-splits", type=_positive_int, default=20,
                     help="random calibration halves pooled for PPI++ 1x (Appendix E.4)")
    cal.add_argument("--alpha", type=_probability, default=0.05)
    cal.add_argument("--seed", type=_non_negative_int, default=0)
    cal.add_argument("--out", type=Path, default=None)
    cal.add_argument("--no-progress", action="store_true")
    cal.set_defaults(run=_calibrate)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``judgebayes`` command; returns the exit status."""
    args = build_parser().parse_args(argv)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", JudgeBayesWarning)
            status = args.run(args)
        for w in caught:
            print(f"note: {w.message}", file=sys.stderr)
        return status
    except (DataError, OSError, ValueError) as err:  # bad input: one line, no traceback
        source = getattr(args, "file", None) or getattr(args, "path", None)
        if isinstance(err, DataError) and source is not None:
            err = in_file(err, source)  # name the input file unless the error names one
        print("judgebayes: error: " + (" ".join(str(err).split()) or type(err).__name__),
              file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())

