"""What every recorded run names in its header: the commit it ran at and the machine's load."""

from __future__ import annotations

import os
import subprocess
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
