"""The ``judgebayes`` command line.

Every verb prints a readable table; with ``--out DIR`` it also writes the same
results as CSV (a leaderboard: ``model, elo, elo_lo, elo_hi, se, n_battles``) and
a ``summary.json``. Bad input exits with status 2 and a one-line reason.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from collections.abc import Sequence
from pathlib import Path

from judgebayes.bootstrap import BootstrapElo, bootstrap_bt
from judgebayes.errors import DataError, JudgeBayesWarning
from judgebayes.loaders import FORMATS, read_battles
from judgebayes.simulate import simulate_arena

__all__ = ["main"]

_TARGETS = {"judge": "judge_label", "human": "human_label"}


def _pairs(items: Sequence[str] | None, what: str) -> dict[str, str]:
    out = {}
    for item in items or ():
        if "=" not in item:
            raise DataError(f"{what} {item!r} is not of the form KEY=VALUE")
        key, value = item.split("=", 1)
        out[key] = value
    return out


def _write(out: Path | None, board: BootstrapElo, summary: dict, *, plot: bool,
           truth: dict[str, float] | None = None) -> list[Path]:
    if out is None:
        return []
    out.mkdir(parents=True, exist_ok=True)
    written = [out / "leaderboard.csv", out / "summary.json"]
    board.to_frame().to_csv(written[0], index=False)
    written[1].write_text(json.dumps(summary, indent=2, default=float) + "\n")
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


def _elo(args: argparse.Namespace) -> int:
    battles = read_battles(args.file, args.format, columns=_pairs(args.map, "--map"),
                           labels={k: float(v) for k, v in _pairs(args.label, "--label").items()},
                           on_invalid="drop" if args.drop_invalid else "raise")
    if args.judge is not None:
        battles = battles.for_judge(args.judge)
    elif len(battles.judges) > 1 and not args.pool_judges:
        raise DataError(f"{args.file} holds verdicts of {len(battles.judges)} judges; pick one "
                        f"with --judge NAME (e.g. --judge {battles.judges[0]}) or pass "
                        f"--pool-judges")
    target = _TARGETS.get(args.target, args.target) if args.target else None
    board = bootstrap_bt(battles, target=target, lam=args.lam, n_boot=args.n_boot,
                         alpha=args.alpha, seed=args.seed, progress=not args.no_progress)
    print(board)
    written = _write(args.out, board, _summary(board, file=str(args.file), format=args.format,
                                               judge=args.judge), plot=args.out is not None)
    if written:
        print("wrote " + ", ".join(str(p) for p in written))
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="judgebayes", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="verb", required=True)

    demo = sub.add_parser("demo", help="simulate a judged arena and fit Hard-Elo with "
                                       "bootstrap intervals")
    demo.add_argument("--models", type=int, default=55)
    demo.add_argument("--battles", type=int, default=25_000)
    demo.add_argument("--n-boot", type=int, default=1000)
    demo.add_argument("--seed", type=int, default=0)
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
    elo.add_argument("--map", nargs="*", metavar="THEIRS=OURS",
                     help="column mapping for --format csv, e.g. left=model_a")
    elo.add_argument("--label", nargs="*", metavar="VALUE=P",
                     help="label mapping for --format csv, e.g. A=1 B=0 tie=0.5")
    elo.add_argument("--lam", type=float, default=0.01)
    elo.add_argument("--n-boot", type=int, default=1000)
    elo.add_argument("--alpha", type=float, default=0.05)
    elo.add_argument("--seed", type=int, default=0)
    elo.add_argument("--drop-invalid", action="store_true",
                     help="drop invalid rows (counted in the summary) instead of failing")
    elo.add_argument("--out", type=Path, default=None)
    elo.add_argument("--no-progress", action="store_true")
    elo.set_defaults(run=_elo)
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
    except (DataError, OSError) as err:
        print(f"judgebayes: error: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())

