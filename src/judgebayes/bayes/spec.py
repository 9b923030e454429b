"""What a model builder returns: the model function, its data, coords and dims."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

__all__ = ["ModelSpec", "resolve_spec"]


class ModelSpec(NamedTuple):
    """A generative model bound to its data, ready for :func:`judgebayes.fit`.

    A tuple, so ``jb.fit(*spec)`` and ``jb.fit(spec)`` both work, and
    ``model, data, coords, dims = spec`` unpacks it.

    Attributes
    ----------
    model
        The NumPyro model function, called as ``model(**data)``.
    data
        Its keyword arguments (arrays, sizes, hyper-parameters; the observed sites
        under their site names).
    coords
        ArviZ coordinates, e.g. ``{"model": ["gpt-4", ...]}``.
    dims
        ArviZ dimensions per site, e.g. ``{"elo": ["model"]}``.
    """

    model: Callable
    data: Mapping[str, Any]
    coords: Mapping[str, Any]
    dims: Mapping[str, list[str]]

    def __repr__(self) -> str:
        sizes = ", ".join(f"{k}={len(v)}" for k, v in self.coords.items())
        return f"ModelSpec({getattr(self.model, '__name__', self.model)}; {sizes})"


def resolve_spec(
    model: Callable | ModelSpec,
    data: Mapping[str, Any] | None,
    coords: Mapping[str, Any] | None,
    dims: Mapping[str, list[str]] | None,
    caller: str,
) -> tuple[Callable, Mapping[str, Any], Any, Any]:
    """``(model, data, coords, dims)`` from a spec or from the four given separately.

    With a :class:`ModelSpec`, arguments given explicitly take precedence over the
    spec's; ``caller`` names the function in the error raised when no data are given.
    """
    if isinstance(model, ModelSpec):
        model, data, coords, dims = (
            model.model,
            model.data if data is None else data,
            model.coords if coords is None else coords,
            model.dims if dims is None else dims,
        )
    if data is None:
        raise TypeError(f"{caller} needs the model's data (or a ModelSpec from judgebayes.models)")
    return model, data, coords, dims
