"""What every recorded run names in its header: the commit it ran at and the machine's load;
:class:`Log`, the lines a bench prints and writes with ``--save PATH``."""

from __future__ import annotations

import os
import platform
import subprocess
import sys
import time
from pathlib import Path


def commit() -> str:
    """The short hash of the checkout's HEAD (``?`` outside a git checkout)."""
    out = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"],
        capture_output=True,
        text=True,
        cwd=Path(__file__).parent,
    )
    return out.stdout.strip() or "?"


def load() -> str:
    """The load average (1, 5, 15 minutes), as printed beside each timing."""
    return " ".join(f"{v:.2f}" for v in os.getloadavg())


class Log:
    """``say(text)``: print a line at once and keep it; :meth:`save` writes the lines kept."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def __call__(self, text: str) -> None:
        print(text, flush=True)
        self.lines.append(text)

    def save(self, path: str | None) -> None:
        """Write the lines to ``path`` (``--save PATH``); nothing where ``path`` is None."""
        if path:
            Path(path).write_text("\n".join(self.lines) + "\n")

    def header(self, script: str) -> None:
        """The command, the time and commit, the machine and its load at the start."""
        self(f"# command: python bench/{script} {' '.join(sys.argv[1:])}")
        self(
            f"# recorded: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, judgebayes at "
            f"commit {commit()} (+ the working tree)"
        )
        self(f"# machine: {os.cpu_count()} CPU cores; Python {platform.python_version()}")
        self(f"# load average at start: {load()}")
