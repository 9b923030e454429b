"""Every JAX and XLA setting of the engine, each with the measurement that pays for it.

Compiler options
    The NUTS, log-likelihood and MAP kernels of a model whose array arguments hold at
    most :data:`SMALL_DATA` entries compile, on a CPU, with XLA's classic emitters
    (``xla_cpu_use_fusion_emitters=False``, :func:`compiler_options`): a small model's
    first fit is mostly compilation, which they do in about two thirds of the time,
    and on data that small their code samples as fast; larger data sample faster under
    XLA's default fusion emitters. The two round ``exp`` and ``log1p`` differently in
    the last bits, so a seed gives other, equally good draws under each
    (``bench/xla_emitters.py``: R-hat, ESS and divergences over 12 seeds;
    ``bench/calibration_fit_speed.py``; numbers in ``docs/benchmarks.md``).
Quick level
    Predictive programs of few drawn entries (:data:`QUICK_ELEMENTS`, or
    :data:`QUICK_LOOP_ELEMENTS` when the program holds a loop, such as NumPyro's
    Binomial sampler) compile at XLA's lowest optimisation level
    (:func:`predictive_options`): such a program runs once or twice, so compiling it
    costs more than running it (``bench/predictive_speed.py``).
Persistent compilation cache
    :func:`enable_persistent_cache` turns on JAX's compilation cache on disk, in
    :func:`persistent_cache_dir` (``~/.cache/judgebayes/jax`` on Linux) before the engine
    compiles anything (a NUTS, MAP or log-likelihood kernel, a predictive program), so
    that the first fit of a new process loads its sampler instead of compiling it
    (``bench/first_call.py``: the cold and warm cache rows). Entries whose compilation
    took at least :data:`CACHE_MIN_COMPILE_S` are written (JAX's default, 1 s, misses
    the kernels of small models). The folder is capped at :data:`CACHE_MAX_BYTES`
    (JAX evicts the least recently used entries); delete the folder to clear it, and
    set ``JUDGEBAYES_JAX_CACHE=off`` (or a folder) to turn it off (or move it). A cache
    folder or size set in JAX's own configuration is left as it is.
"""

from __future__ import annotations

import importlib.util
import os
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import jax
import numpy as np

__all__ = [
    "CACHE_ENV",
    "CACHE_MAX_BYTES",
    "CACHE_MIN_COMPILE_S",
    "QUICK_ELEMENTS",
    "QUICK_LOOP_ELEMENTS",
    "SMALL_DATA",
    "compiler_options",
    "enable_persistent_cache",
    "persistent_cache_dir",
    "predictive_options",
]

#: Kernels whose array arguments hold at most this many entries in all compile with
#: XLA's classic CPU emitters.
SMALL_DATA = 1024
#: Predictive programs drawing at most this many data entries (draws × entries) compile
#: at XLA's lowest optimisation level; with a loop inside, at most the second.
QUICK_ELEMENTS, QUICK_LOOP_ELEMENTS = 1_000_000, 200_000
#: Environment variable: a folder for JAX's persistent compilation cache, or 0/off.
CACHE_ENV = "JUDGEBAYES_JAX_CACHE"
#: Compilations at least this long (s) are written to the persistent cache.
CACHE_MIN_COMPILE_S = 0.2
#: Size cap of the persistent cache folder (bytes): some 2,000 compiled samplers.
CACHE_MAX_BYTES = 512 * 2**20


def compiler_options(arrays: Mapping[str, Any]) -> dict[str, Any] | None:
    """XLA options of the kernels of a model whose array arguments are ``arrays``.

    On a CPU, where the arrays hold at most :data:`SMALL_DATA` entries in all, XLA's
    classic emitters (``xla_cpu_use_fusion_emitters=False``); otherwise ``None``,
    XLA's defaults (see the module docstring).
    """
    if jax.default_backend() != "cpu":
        return None
    if sum(int(np.size(a)) for a in jax.tree.leaves(dict(arrays))) > SMALL_DATA:
        return None
    return {"xla_cpu_use_fusion_emitters": False}


def predictive_options(elements: int, loops: bool) -> dict[str, Any] | None:
    """XLA options of a predictive program drawing ``elements`` data entries (``loops``:
    the program holds a ``while`` loop): the lowest optimisation level on a CPU for
    few entries, else ``None`` (see the module docstring)."""
    if jax.default_backend() != "cpu":
        return None
    if elements > (QUICK_LOOP_ELEMENTS if loops else QUICK_ELEMENTS):
        return None
    return {"xla_backend_optimization_level": 0}


def persistent_cache_dir() -> Path | None:
    """The folder of JAX's persistent compilation cache judgebayes turns on, or ``None``.

    ``$JUDGEBAYES_JAX_CACHE`` (``0``/``off``/``false``/``no``/empty: none), else ``jax``
    in the folder the data sets are cached in (:mod:`judgebayes.datasets`):
    ``$JUDGEBAYES_CACHE``, else the OS cache folder (``~/.cache/judgebayes`` on Linux,
    ``$XDG_CACHE_HOME/judgebayes`` where that is set).
    """
    value = os.environ.get(CACHE_ENV)
    if value is not None:
        return None if value.strip().lower() in {"", "0", "off", "false", "no"} else Path(value)
    base = os.environ.get("JUDGEBAYES_CACHE")
    if not base:
        import platformdirs  # pooch's, as judgebayes.datasets' cache folder

        base = platformdirs.user_cache_dir("judgebayes")
    return Path(base) / "jax"


_lock = threading.Lock()
_done = False


def enable_persistent_cache() -> str | None:
    """Turn on JAX's persistent compilation cache in :func:`persistent_cache_dir`, once.

    Leaves JAX alone where the cache folder is already set (by the user or by
    ``JAX_COMPILATION_CACHE_DIR``) or turned off; lowers JAX's threshold for writing an
    entry from 1 s to :data:`CACHE_MIN_COMPILE_S` and caps the folder at
    :data:`CACHE_MAX_BYTES` unless either was changed (the cap needs ``filelock``, as
    JAX's eviction does). It applies to the whole process, as JAX's setting does.
    Returns the folder in use, or ``None``.
    """
    global _done
    with _lock:
        current = jax.config.jax_compilation_cache_dir
        if _done or current:
            return current
        _done = True
        path = persistent_cache_dir()
        if path is None or not jax.config.jax_enable_compilation_cache:
            return None
        try:
            path.mkdir(parents=True, exist_ok=True)
        except OSError:
            return None  # a read-only home: no cache
        jax.config.update("jax_compilation_cache_dir", str(path))
        if jax.config.jax_persistent_cache_min_compile_time_secs == 1.0:  # JAX's default
            jax.config.update("jax_persistent_cache_min_compile_time_secs", CACHE_MIN_COMPILE_S)
        if (
            jax.config.jax_compilation_cache_max_size == -1  # JAX's default: no cap
            and importlib.util.find_spec("filelock") is not None
        ):
            jax.config.update("jax_compilation_cache_max_size", CACHE_MAX_BYTES)
        return str(path)
