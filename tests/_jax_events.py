"""JAX's compilation events, counted with ``jax.monitoring`` (not a test module)."""

from __future__ import annotations

from collections.abc import Callable

import jax


def compile_events(run: Callable[[], object]) -> list[str]:
    """The names of JAX's tracing, lowering and compilation events while ``run()`` runs."""
    seen: list[str] = []

    def listen(name: str, _seconds: float, **_: object) -> None:
        if name.startswith("/jax/core/compile/"):
            seen.append(name)

    jax.monitoring.register_event_duration_secs_listener(listen)
    try:
        run()
    finally:
        jax.monitoring.unregister_event_duration_listener(listen)
    return seen
