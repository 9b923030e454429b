"""Shared fixtures: paths to the public data beside the repository."""

from __future__ import annotations

from pathlib import Path

import pytest

SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
CONSISTENCY_DIR = SHARED_DATA / "llm_consistency"


@pytest.fixture(scope="session")
def consistency_dir() -> Path:
    """Folder of the seed-002 contest files (24 judges)."""
    path = CONSISTENCY_DIR / "contests"
    assert path.is_dir(), f"the shared data is missing: {path} (CI places ../shared beside the repo)"
    return path


@pytest.fixture(scope="session")
def consistency_battles(consistency_dir: Path):  # noqa: ANN201
    import judgebayes as jb

    return jb.read_consistency(consistency_dir)
