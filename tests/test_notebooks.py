"""Every notebook runs top to bottom without error (examples run as tests).

The kernels get ``JUDGEBAYES_QUICK=1``: notebooks that repeat a simulation many times
(seeds, replications, bootstrap or NUTS draws) repeat it fewer times under it, through
the same code. The figures stored in the notebooks come from the full sizes.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from judgebayes.bayes.engine.xla import CACHE_MIN_COMPILE_S, persistent_cache_dir

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("*.ipynb"))


def test_there_are_notebooks() -> None:
    assert NOTEBOOKS, "notebooks/ is empty"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_executes(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JUDGEBAYES_QUICK", "1")  # the kernel inherits this environment
    # The session's compilation cache (tests/conftest.py) from the kernel's first compile,
    # not only from its first NUTS fit: MAP fits and training steps that come earlier in
    # a notebook are then written for, and loaded from, the other processes too.
    cache = persistent_cache_dir()
    if cache is not None:
        monkeypatch.setenv("JAX_COMPILATION_CACHE_DIR", str(cache))
        monkeypatch.setenv("JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS", str(CACHE_MIN_COMPILE_S))
    nb = nbformat.read(path, as_version=4)
    NotebookClient(
        nb, timeout=900, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}
    ).execute()
    errors = [
        o
        for c in nb.cells
        if c.cell_type == "code"
        for o in c.get("outputs", [])
        if o.output_type == "error"
    ]
    assert not errors
