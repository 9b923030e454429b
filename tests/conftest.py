"""Shared fixtures: paths to the public data beside the repository.

``JUDGEBAYES_DATA`` points :mod:`judgebayes.datasets` at that copy for the whole session
(and the notebooks, whose kernels inherit this environment), so no test downloads.
"""

from __future__ import annotations

import atexit
import json
import os
import shutil
import tempfile
from pathlib import Path

import pytest

import judgebayes as jb

SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
os.environ.setdefault("JUDGEBAYES_DATA", str(SHARED_DATA))
# One persistent JAX compilation cache for the session (bayes.engine.xla), in a new temporary
# folder rather than the user's home: the first process that compiles a kernel writes it,
# and every other process of the run (the other xdist worker, the notebook kernels, the
# CLI and README subprocesses, which inherit this environment) loads it instead of
# compiling it again. The folder starts empty, so a run never reuses an earlier run's code.
if "JUDGEBAYES_JAX_CACHE" not in os.environ:
    _CACHE = tempfile.mkdtemp(prefix="judgebayes-test-jax-")
    os.environ["JUDGEBAYES_JAX_CACHE"] = _CACHE
    atexit.register(shutil.rmtree, _CACHE, ignore_errors=True)
CONSISTENCY_DIR = SHARED_DATA / "llm_consistency"
PPR_PEER = SHARED_DATA.parent / "peers" / "prediction-powered-ranking"
PPR_MODELS = json.loads((PPR_PEER / "scripts" / "config.json").read_text())["models"]
"""The 12 models of Prediction-Powered Ranking's protocol (its ``config.json``)."""


def pytest_configure(config: pytest.Config) -> None:
    """Turn the session's compilation cache on in this process from the start.

    The engine turns it on before it first compiles; doing it here lets the JAX code
    outside the engine (the UDA adapter's training, the anchors' and consensus' own
    jitted functions) use it too.
    """
    from judgebayes.bayes.engine.xla import enable_persistent_cache

    enable_persistent_cache()  # a no-op where JUDGEBAYES_JAX_CACHE=off


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Run the notebooks first, then the tests marked ``slow``, then the rest in file order.

    The README's command runs the suite on two workers (``-n 2``, pytest-xdist) that
    steal work from each other: starting the longest items first lets the short ones
    fill the gaps, instead of one worker finishing on a two-minute notebook alone.
    """

    def rank(item: pytest.Item) -> int:
        if item.nodeid.startswith("tests/test_notebooks.py"):
            return 0
        return 1 if item.get_closest_marker("slow") else 2

    items.sort(key=rank)


@pytest.fixture(scope="session")
def consistency_dir() -> Path:
    """Folder of the seed-002 contest files (24 judges)."""
    path = CONSISTENCY_DIR / "contests"
    assert path.is_dir(), f"shared data missing: {path} (CI puts ../shared beside the repo)"
    return path


@pytest.fixture(scope="session")
def consistency_battles(consistency_dir: Path) -> jb.Battles:
    return jb.read_consistency(consistency_dir)
