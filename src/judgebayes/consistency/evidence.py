r"""How far a judge's Consistency score can be trusted: its standard error and a low-evidence flag.

Standard error
--------------
Within matchup m a judge gives n_m contests with scores x ∈ {1, ½, 0} (Eq. 3),
of mean p_m and central moments μ2, μ3, μ4 (μ2 = σ², the per-contest variance).
p̂ is the mean of n iid scores, so with d = p̂ − p

* E[d²] = μ2/n,   E[d³] = μ3/n²,   E[d⁴] = μ4/n³ + 3(n − 1)·μ2²/n³.

p̂(1 − p̂) = p(1 − p) + (1 − 2p)·d − d² is *quadratic* in p̂, so the delta method
carried to second order is exact:

* Var[p̂(1 − p̂)] = (1 − 2p)²·E[d²] − 2(1 − 2p)·E[d³] + E[d⁴] − E[d²]².

(The first-order delta method keeps only (1 − 2p)²·μ2/n, which vanishes at
p = ½ — the matchups a weak judge is most unsure of — and understates the SE
there.) Matchups are independent and N = Σ n_m is fixed, so for Eq. 2

* Var(Consistency) = 16/N² · Σ_m n_m²·Var[p̂_m(1 − p̂_m)].

The reported ``se`` plugs each matchup's observed shares of (win, tie, loss)
into this formula. That is exactly the variance an ideal (B → ∞) bootstrap over
contests within matchups gives, because such a bootstrap draws n_m contests from
those same shares; no draws and no ``seed`` are needed. With
``bias_corrected=True`` the per-matchup estimate is the U-statistic with kernel
h(x, y) = (x + y)/2 − x·y, whose variance is
2/(n(n − 1))·[2(n − 2)·ζ1 + ζ2], ζ1 = (½ − p)²·μ2, ζ2 = Var h(X, Y).

A matchup whose contests all agree (every one-contest matchup) has μ2 = 0 and
adds nothing to the SE: its p̂(1 − p̂) = 0 has no sampling variance, but it is
biased, which is what the flag below is for.

Low evidence
------------
E[p̂(1 − p̂)] = p(1 − p) − σ²/n, with σ² ≤ p(1 − p) (equal for win/loss
verdicts). A matchup of n_m contests is thus biased by 4σ²_m/n_m ≤
4·p_m(1 − p_m)/n_m in its own term of Eq. 2, which weighs n_m/N, and in all

* bias = 4·Σ_m σ²_m / N ≤ M/N = 1/n̄,

with M the matchups and n̄ = N/M the mean contests per matchup (the mean, not
the median, because Eq. 1 weights matchups by n_m). When the matchups are alike
the plug-in hides a share 1/n̄ of the judge's inconsistency 1 − Consistency.
One contest per matchup hides all of it: the score is 1 whatever the judge does.
A judge is flagged ``low_evidence`` when n̄ < ``min_contests`` (default
:data:`MIN_CONTESTS_PER_MATCHUP` = 5: a bias of up to 0.2, a fifth of the
inconsistency hidden; Table 1 judges have n̄ ≈ 40, bias ≤ 0.025 and ≈ 0.02 in
fact). Judges with equal n̄ are shifted alike (the order is kept); comparing
judges with unequal evidence needs ``bias_corrected=True`` or more contests.
Below the threshold the plug-in SE understates too (simulated, 8 matchups: by
about 10 % at n̄ = 5 and 20 % at n̄ = 3; within the 3 % Monte Carlo error at
n̄ = 10). Mean rather than "any one-contest matchup": a single contest among
thousands weighs 1/N and moves the score by at most 1/N.
"""

from __future__ import annotations

import numpy as np

from judgebayes.errors import JudgeBayesWarning

__all__ = [
    "MIN_CONTESTS_PER_MATCHUP",
    "LowEvidenceWarning",
    "consistency_se",
    "flag_low_evidence",
    "low_evidence_message",
]

MIN_CONTESTS_PER_MATCHUP = 5.0
"""Mean contests per matchup below which a judge's score is flagged (bias ≤ 1/n̄ = 0.2)."""

_SCORES = np.array([1.0, 0.5, 0.0])  # first wins, tie, second wins (Eq. 3)


class LowEvidenceWarning(JudgeBayesWarning):
    """Too few contests per matchup for a judge's Consistency to mean much (Ramaswamy, Demeure &
    Rrapaj, *Model Consistency as a Cheap yet Predictive Proxy for LLM Elo Scores*, EMNLP 2025,
    arXiv:2509.23510).

    The plug-in p̂(1 − p̂) of Eqs. 1–2 raises a score by up to 1/n̄ (n̄ the mean
    contests per matchup); see :mod:`judgebayes.consistency.evidence`.
    """


def _estimate_variance(outcomes: np.ndarray, *, bias_corrected: bool = False) -> np.ndarray:
    """Sampling variance of each matchup's p̂(1 − p̂) (or its unbiased version).

    ``outcomes`` has shape ``(..., 3)``: counts of (win, tie, loss) of one side;
    the returned array drops the last axis (0 where n = 0). Plug-in of the
    observed shares, i.e. the ideal bootstrap variance over contests.
    """
    c = np.asarray(outcomes, dtype=float)
    n = c.sum(axis=-1)
    safe = np.where(n > 0, n, 1.0)
    share = c / safe[..., None]
    p = share @ _SCORES
    dev = _SCORES - p[..., None]
    mu2, mu3, mu4 = ((share * dev**k).sum(axis=-1) for k in (2, 3, 4))
    a = 1.0 - 2.0 * p
    m2 = mu2 / safe
    m3 = mu3 / safe**2
    m4 = (mu4 + 3.0 * (safe - 1.0) * mu2**2) / safe**3
    var = a**2 * m2 - 2.0 * a * m3 + m4 - m2**2
    if bias_corrected:
        q = share @ _SCORES**2  # E[x²]
        zeta1 = (0.5 - p) ** 2 * mu2
        zeta2 = (q + p**2) / 2.0 - 2.0 * q * p + q**2 - (p - p**2) ** 2
        pairs = np.where(n > 1, safe * (safe - 1.0), 1.0)
        u_var = 2.0 / pairs * (2.0 * (safe - 2.0) * zeta1 + zeta2)
        var = np.where(n > 1, u_var, var)  # one contest: the estimate stays p̂(1 − p̂)
    return np.where(n > 0, np.maximum(var, 0.0), 0.0)


def consistency_se(outcomes: np.ndarray, *, bias_corrected: bool = False) -> np.ndarray:
    """SE of Consistency (Eq. 2) per judge: √(16/N²·Σ_m n_m²·Var[p̂_m(1 − p̂_m)]).

    ``outcomes``: ``(n_judges, n_matchups, 3)`` counts; NaN for a judge without contests.
    """
    c = np.asarray(outcomes, dtype=float)
    n = c.sum(axis=-1)
    total = n.sum(axis=-1)
    var_sum = (n**2 * _estimate_variance(c, bias_corrected=bias_corrected)).sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total > 0, 4.0 * np.sqrt(var_sum) / np.where(total > 0, total, 1.0), np.nan)


def flag_low_evidence(n: np.ndarray, min_contests: float) -> tuple[np.ndarray, np.ndarray]:
    """Per judge: (flag n̄ < ``min_contests``, n̄ = contests / matchups with a contest).

    A judge with n̄ contests per matchup has its Consistency biased up by up to 1/n̄
    (the plug-in p̂(1−p̂) of Eq. 1; one contest always scores 1), so a small n̄ is flagged.

    Parameters
    ----------
    n
        Contests per judge and matchup, ``(n_judges, n_matchups)``.
    min_contests
        The flag's threshold on n̄ (default of the callers:
        :data:`MIN_CONTESTS_PER_MATCHUP`).

    Returns
    -------
    flagged, mean_n : numpy.ndarray
        Per judge, whether n̄ < ``min_contests`` and n̄ itself. A judge without contests
        is flagged (n̄ = 0).
    """
    n = np.asarray(n, dtype=float)
    m = (n > 0).sum(axis=-1)
    mean_n = np.divide(n.sum(axis=-1), m, out=np.zeros(n.shape[0]), where=m > 0)
    return mean_n < min_contests, mean_n


def low_evidence_message(
    judges: tuple[str, ...],
    flagged: np.ndarray,
    n: np.ndarray,
    min_contests: float,
    *,
    most: int = 5,
) -> str:
    """One paragraph naming the flagged judges, their counts and the bias bound.

    Parameters
    ----------
    judges
        Judge names, in the order of the rows of ``n``.
    flagged
        Boolean flag per judge (:func:`flag_low_evidence`).
    n
        Contests per judge and matchup, ``(n_judges, n_matchups)``.
    min_contests
        The threshold the flags used.
    most
        How many flagged judges are named (the rest are counted).

    Returns
    -------
    str
        The warning's text: per named judge its contests, matchups, single-contest
        matchups and the bias bound matchups / contests, then the rule the flag applies.
    """
    n = np.asarray(n, dtype=float)
    idx = np.flatnonzero(flagged)
    parts = []
    for k in idx[:most]:
        row = n[k]
        m = int((row > 0).sum())
        total = int(row.sum())
        single = int((row == 1).sum())
        bound = m / total if total else 1.0
        parts.append(
            f"{judges[k]} ({total} contest{'s' * (total != 1)} over {m} "
            f"matchup{'s' * (m != 1)}, {single} with one contest; "
            f"bias up to +{bound:.2f})"
        )
    more = f" and {idx.size - most} more" if idx.size > most else ""
    return (
        f"{idx.size} judge(s) have fewer than {min_contests:g} contests per matchup "
        f"on average, so their Consistency is biased up by up to 1/(contests per "
        f"matchup) (the plug-in p̂(1−p̂) of Eq. 1; one contest always scores 1): "
        f"{'; '.join(parts)}{more}. Their se understates the uncertainty as well. "
        f"Judge more contests per matchup, or compare judges with bias_corrected=True."
    )
