"""The held-out Soft-Elo protocol by the route ``held_out_elo`` replaced (not a test module).

``held_out_elo`` fits every fold by Newton's method on per-pair sums built once
(``_Folds.fold_newton``); the route it replaced, kept in the package for ``lam = 0``
(``_Folds.fold_scipy``: pair statistics rebuilt per fold, SciPy's Newton-CG,
``bootstrap_bt`` per method), gives the same numbers within the optimisers'
tolerances. :func:`held_out_elo_reference` runs every fold by that route:
``tests/test_softelo_routes.py`` compares the two and ``bench/softelo_speed.py`` times
them.
"""

from __future__ import annotations

import pytest

from judgebayes.core.battles import Battles
from judgebayes.softelo import held_out
from judgebayes.softelo.held_out import HeldOutElo


def held_out_elo_reference(battles: Battles, **kwargs: object) -> HeldOutElo:
    """``held_out_elo(battles, **kwargs)`` with every fold by ``_Folds.fold_scipy``."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(held_out._Folds, "fold_newton", held_out._Folds.fold_scipy)
        return held_out.held_out_elo(battles, **kwargs)  # type: ignore[arg-type]
