r"""Rows "human A" and "human B" of a judge's confusion matrix, the judge better than chance.

The latent-outcome model of :mod:`judgebayes.rankings.latent` reads each judge's verdicts
through a 3 × 3 confusion matrix C[h, v] (human outcome h, verdict v, both in the order A,
tie, B). Its judge-only battles cannot tell a judge from its mirror image (every strength
reversed, rows A and B swapped: Dawid–Skene's label switching), so the model restricts rows
A and B to a judge better than chance: C[A, A] > C[B, A] and C[A, B] < C[B, B]. This module
holds that restriction as NumPyro objects: the constraint :data:`better_than_chance`, the
bijection :class:`BetterThanChanceTransform` from ℝ⁴ onto it (so NUTS and MAP move in an
unconstrained space, no rejection), and the prior :class:`DecisiveRows` (two Dirichlet rows
restricted to it).
"""

from __future__ import annotations

from typing import Any, ClassVar

import jax
import jax.numpy as jnp
import numpy as np
import numpyro.distributions as dist
from numpyro.distributions import biject_to, constraints
from numpyro.distributions.transforms import ParameterFreeTransform

__all__ = ["ROW_CONCENTRATION", "BetterThanChanceTransform", "DecisiveRows", "better_than_chance"]

ROW_CONCENTRATION = 1.0 + 2.0 * np.eye(3)
"""Prior concentration of each confusion row (human A, tie, B): 3 on "the judge agrees"."""

_PROPOSALS = 64
"""Dirichlet proposals per prior draw of :class:`DecisiveRows` (rejection sampling)."""

_CENTRE_ROWS = np.array([[0.6, 0.2, 0.2], [0.2, 0.2, 0.6]])
"""Rows A and B at the origin of the unconstrained space: the prior means of the rows."""


def _cumulative_logits(u: jax.Array) -> tuple[jax.Array, ...]:
    """(g_A1, g_A2, g_B1, g_B2) from the (centred) unconstrained vector u = (u0, u1, u2, u3):
    g_B1 = u0 < g_A1 = g_B1 + e^{u1} < g_A2 = g_A1 + e^{u2}, g_B2 = g_B1 + (g_A2 − g_B1)·σ(u3)."""
    g_b1 = u[..., 0]
    g_a1 = g_b1 + jnp.exp(u[..., 1])
    g_a2 = g_a1 + jnp.exp(u[..., 2])
    g_b2 = g_b1 + (g_a2 - g_b1) * jax.nn.sigmoid(u[..., 3])
    return g_a1, g_a2, g_b1, g_b2


def _row(g1: jax.Array, g2: jax.Array) -> jax.Array:
    """A confusion row from its cumulative logits g1 < g2: (σ(g1), σ(g2) − σ(g1), σ(−g2)),
    the middle entry written as σ(g2)·σ(−g1)·(1 − e^{g1 − g2}) (no cancellation)."""
    sig = jax.nn.sigmoid
    middle = sig(g2) * sig(-g1) * -jnp.expm1(g1 - g2)
    return jnp.stack([sig(g1), middle, sig(-g2)], axis=-1)


def _row_logits(rows: jax.Array) -> tuple[jax.Array, ...]:
    """(g_A1, g_A2, g_B1, g_B2): logit P(v = A | h) and logit P(v ≠ B | h) of rows A and B."""
    p = jnp.asarray(rows)

    def logit_ratio(num: jax.Array, den: jax.Array) -> jax.Array:
        return jnp.log(num) - jnp.log(den)

    return (
        logit_ratio(p[..., 0, 0], 1.0 - p[..., 0, 0]),
        logit_ratio(1.0 - p[..., 0, 2], p[..., 0, 2]),
        logit_ratio(p[..., 1, 0], 1.0 - p[..., 1, 0]),
        logit_ratio(1.0 - p[..., 1, 2], p[..., 1, 2]),
    )


def _raw_inverse(rows: jax.Array) -> jax.Array:
    g_a1, g_a2, g_b1, g_b2 = _row_logits(rows)
    frac = (g_b2 - g_b1) / (g_a2 - g_b1)
    return jnp.stack(
        [g_b1, jnp.log(g_a1 - g_b1), jnp.log(g_a2 - g_a1), jnp.log(frac) - jnp.log1p(-frac)],
        axis=-1,
    )


_CENTRE = np.array(
    [
        np.log(0.2 / 0.8),  # g_B1 = logit 0.2
        np.log(np.log(0.6 / 0.4) - np.log(0.2 / 0.8)),  # log(g_A1 − g_B1)
        np.log(np.log(0.8 / 0.2) - np.log(0.6 / 0.4)),  # log(g_A2 − g_A1)
        # logit((g_B2 − g_B1) / (g_A2 − g_B1)), g_B2 = logit 0.4
        -np.log(
            (np.log(0.8 / 0.2) - np.log(0.2 / 0.8)) / (np.log(0.4 / 0.6) - np.log(0.2 / 0.8)) - 1
        ),
    ]
)
"""The unconstrained point of :data:`_CENTRE_ROWS` (x = 0 maps there)."""


def _centred(x: Any) -> jax.Array:
    """u = x + c in the dtype of x (c a float64 NumPy constant, cast here so a float32 trace
    does not embed it as float64)."""
    x = jnp.asarray(x)
    return x + jnp.asarray(_CENTRE, dtype=x.dtype)


class _BetterThanChance(constraints.ParameterFreeConstraint):
    """Rows "human A" and "human B" of a confusion matrix (shape ``(…, 2, 3)``): each on the
    simplex, row A stochastically above row B in the order A ≻ tie ≻ B, i.e.
    P(v = A | A) > P(v = A | B) and P(v = B | A) < P(v = B | B)."""

    event_dim = 2

    def __call__(self, x: Any) -> jax.Array:
        x = jnp.asarray(x)
        on_simplex = constraints.simplex(x).all(axis=-1)
        return on_simplex & (x[..., 0, 0] > x[..., 1, 0]) & (x[..., 0, 2] < x[..., 1, 2])

    def feasible_like(self, prototype: Any) -> jax.Array:
        return jnp.broadcast_to(
            jnp.asarray(_CENTRE_ROWS, jnp.result_type(prototype)), prototype.shape
        )


better_than_chance = _BetterThanChance()
"""The support of :class:`DecisiveRows`: judges that read the outcome better than chance."""


class BetterThanChanceTransform(ParameterFreeTransform):
    r"""Bijection from ℝ⁴ onto :data:`better_than_chance` (rows A and B of a confusion matrix).

    With u = x + c (c centres x = 0 on the rows' prior means, (0.6, 0.2, 0.2) and
    (0.2, 0.2, 0.6)), the cumulative logits g_h1 = logit P(v = A | h) and
    g_h2 = logit P(v ≠ B | h) are

        g_B1 = u0,  g_A1 = g_B1 + e^{u1},  g_A2 = g_A1 + e^{u2},  g_B2 = g_B1 + (g_A2 − g_B1)·σ(u3),

    which is every g with g_B1 < g_A1 < g_A2 and g_B1 < g_B2 < g_A2 (each row's two cumulative
    logits increase; row A's lie above row B's: the two better-than-chance inequalities), and
    row h = (σ(g_h1), σ(g_h2) − σ(g_h1), σ(−g_h2)). The map is triangular, so
    log |det J| = u1 + u2 + log(g_A2 − g_B1) + log σ'(u3) + Σ_g log σ'(g), with respect to the
    rows' first two coordinates (the Dirichlet density's base measure).
    """

    domain = constraints.real_vector
    codomain = better_than_chance

    def __call__(self, x: Any) -> jax.Array:
        g_a1, g_a2, g_b1, g_b2 = _cumulative_logits(_centred(x))
        return jnp.stack([_row(g_a1, g_a2), _row(g_b1, g_b2)], axis=-2)

    def _inverse(self, y: Any) -> jax.Array:
        y = jnp.asarray(y)
        return _raw_inverse(y) - jnp.asarray(_CENTRE, dtype=y.dtype)

    def log_abs_det_jacobian(self, x: Any, y: Any, intermediates: Any = None) -> jax.Array:
        u = _centred(x)
        g_a1, g_a2, g_b1, g_b2 = _cumulative_logits(u)

        def log_dsigmoid(t: jax.Array) -> jax.Array:
            return jax.nn.log_sigmoid(t) + jax.nn.log_sigmoid(-t)

        return (
            u[..., 1]
            + u[..., 2]
            + jnp.log(g_a2 - g_b1)
            + log_dsigmoid(u[..., 3])
            + sum(log_dsigmoid(g) for g in (g_a1, g_a2, g_b1, g_b2))
        )

    def forward_shape(self, shape: tuple[int, ...]) -> tuple[int, ...]:
        return (*shape[:-1], 2, 3)

    def inverse_shape(self, shape: tuple[int, ...]) -> tuple[int, ...]:
        return (*shape[:-2], 4)


@biject_to.register(_BetterThanChance)
def _better_than_chance_bijection(constraint: _BetterThanChance) -> BetterThanChanceTransform:
    return BetterThanChanceTransform()


class DecisiveRows(dist.Distribution):
    r"""Rows "human A" and "human B" of a judge's confusion matrix, the judge better than chance.

    The product of Dirichlet(3, 1, 1) (row A) and Dirichlet(1, 1, 3) (row B) — the rows of
    :data:`ROW_CONCENTRATION` — restricted to :data:`better_than_chance`: P(v = A | A) >
    P(v = A | B) and P(v = B | A) < P(v = B | B). The restriction identifies the model: reversing
    every strength and swapping rows A and B of every judge's matrix leaves the likelihood of
    the judge-only battles unchanged (Dawid–Skene's label switching), and maps a judge better
    than chance to one worse than chance. ``log_prob`` omits the constant −log P(restriction)
    (≈ 0.12: the restriction holds with probability ≈ 0.885 under the
    two Dirichlets), which no fit depends on; ``sample`` draws
    ``_PROPOSALS`` (64) pairs of rows and keeps the first that satisfies it (all 64 fail with
    probability 0.115⁶⁴ < 10⁻⁶⁰).

    Parameters
    ----------
    concentration
        Dirichlet concentrations of rows A and B, shape ``(…, 2, 3)``.
    """

    arg_constraints: ClassVar[dict[str, Any]] = {
        "concentration": constraints.independent(constraints.positive, 2)
    }
    support = better_than_chance

    def __init__(self, concentration: Any = None, *, validate_args: bool | None = None) -> None:
        default = ROW_CONCENTRATION[[0, 2]]
        self.concentration = jnp.asarray(default if concentration is None else concentration)
        super().__init__(
            batch_shape=self.concentration.shape[:-2],
            event_shape=(2, 3),
            validate_args=validate_args,
        )

    def sample(self, key: jax.Array, sample_shape: tuple[int, ...] = ()) -> jax.Array:
        shape = (*sample_shape, *self.batch_shape)
        tries = dist.Dirichlet(jnp.broadcast_to(self.concentration, (*shape, 2, 3))).sample(
            key, (_PROPOSALS,)
        )
        first = jnp.argmax(better_than_chance(tries), axis=0)
        return jnp.take_along_axis(tries, first[None, ..., None, None], axis=0)[0]

    def log_prob(self, value: Any) -> jax.Array:
        return dist.Dirichlet(self.concentration).log_prob(value).sum(axis=-1)
