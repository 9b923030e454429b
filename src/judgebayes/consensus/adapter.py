"""The UDA adapter f_θ (Eq. 2, Algorithm 2): features → (K_ij, s_i, s_j) → Elo.

Zhang, Wang, Wu, Yu, Wang, Bao & Tang, *UDA: Unsupervised Debiasing Alignment for Pair-wise
LLM-as-a-Judge* (2025, arXiv:2508.09724).

A small multilayer perceptron maps the feature vector φ_ij^(k) of Algorithm 1
(:mod:`judgebayes.consensus.features`) to three numbers,

    K_ij = K₀ · softplus(o₁) / ln 2 > 0,   (s_i, s_j) = softmax(o₂, o₃),  s_i + s_j = 1,

(Eq. 2; K_ij = K₀ = 32 when o₁ = 0), which replace the fixed K and the hard verdict in
the online Elo update (Algorithm 2, :mod:`judgebayes.consensus.recursion`).

**The verdict as an input.** Eq. 2 lists φ alone as the input, and Algorithm 2 then never
uses the judge's verdict r_ij^(k): the ratings would depend on the judge only through
the embedding of its own answer. Yet the paper calls s "refined win probabilities"
that "replace the hard r_ij to mitigate preference noise", and its Table 3 ablation,
which has no judge-specific feature at all, still disagrees between judges (SD 65.64)
although every judge rated the same pairs. The adapter therefore takes the verdict
(2 r_ij − 1) as one more input by default (``verdict_input=True``); ``False`` is the
literal reading of Eq. 2.

The MLP is a few lines of JAX written here: no neural-network library is a dependency
of the package, and optax (the optimiser) has no layers. Features are standardised with
the training set's mean and SD, stored with the weights.
"""

from __future__ import annotations

import functools
import itertools
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import jax
import jax.numpy as jnp
import numpy as np
import pandas as pd

from judgebayes.consensus.elo import Order, judge_sequences
from judgebayes.consensus.features import uda_features
from judgebayes.consensus.ratings import JudgeRatings
from judgebayes.consensus.recursion import elo_scan_judges
from judgebayes.core.battles import Battles
from judgebayes.core.results import ResultDisplay
from judgebayes.errors import DataError
from judgebayes.plots import panel_axes

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["UDAAdapter", "UDABatch", "load_adapter", "uda_batch"]

Embeddings = pd.DataFrame | Mapping[tuple[Any, str], Sequence[float]]


def _embedding_frame(table: Embeddings, what: str) -> pd.DataFrame:
    """A frame indexed by ``(prompt_id, name)`` with one numeric column per dimension."""
    if not isinstance(table, pd.DataFrame):
        keys = list(table)
        if not keys or not all(isinstance(k, tuple) and len(k) == 2 for k in keys):
            raise DataError(
                f"{what}: expected {{(prompt_id, name): vector}} or a DataFrame "
                "indexed by (prompt_id, name)"
            )
        table = pd.DataFrame(
            np.asarray([np.asarray(table[k], float) for k in keys]),
            index=pd.MultiIndex.from_tuples(keys),
        )
    if table.index.nlevels != 2:
        raise DataError(
            f"{what}: the index has {table.index.nlevels} level(s)",
            expected="a (prompt_id, name) MultiIndex, one row per answer",
        )
    values = table.to_numpy(dtype=float)
    if not np.isfinite(values).all():
        row = int(np.flatnonzero(~np.isfinite(values).all(axis=1))[0])
        raise DataError(f"{what}: non-finite embedding", row=row, expected="finite numbers")
    return table


def _lookup(
    table: pd.DataFrame, prompts: np.ndarray, names: np.ndarray, what: str, rows: np.ndarray
) -> np.ndarray:
    keys = pd.MultiIndex.from_arrays([prompts.astype(str), names.astype(str)])
    index = pd.MultiIndex.from_arrays(
        [table.index.get_level_values(0).astype(str), table.index.get_level_values(1).astype(str)]
    )
    at = index.get_indexer(keys)
    if (at < 0).any():
        k = int(np.flatnonzero(at < 0)[0])
        raise DataError(
            f"no {what} embedding for (prompt_id, name) = ({prompts[k]!r}, {names[k]!r})",
            row=int(rows[k]),
            expected=f"one {what} embedding per prompt and name",
        )
    return table.to_numpy(dtype=float)[at]


@dataclass(frozen=True)
class UDABatch:
    """Every judge's battles, padded to one length (mask 0), with their embeddings.

    Arrays are ``(n_judges, L)`` (``i``, ``j``, ``r``, ``mask``) and ``(n_judges, L, D)``
    (``e_i``, ``e_j``, ``e_k``), in playing order.
    """

    judges: tuple[str, ...]
    models: tuple[str, ...]
    i: np.ndarray
    j: np.ndarray
    r: np.ndarray
    mask: np.ndarray
    e_i: np.ndarray
    e_j: np.ndarray
    e_k: np.ndarray
    rows: np.ndarray  # battle row of each slot (-1: padding)


def uda_batch(
    battles: Battles,
    answers: Embeddings,
    judge_answers: Embeddings,
    *,
    sequences: Sequence[np.ndarray] | None = None,
    order: Order = None,
    seed: int = 0,
    target: str = "judge_label",
) -> UDABatch:
    """Gather the per-judge battle sequences and their embeddings (Algorithm 1's inputs).

    Parameters
    ----------
    battles
        Battles with ``judge`` and ``prompt_id`` columns.
    answers
        Answer embeddings e_i indexed by ``(prompt_id, model)`` (a DataFrame, or a dict).
    judge_answers
        Each judge's own answer embedding e_k indexed by ``(prompt_id, judge)``.
    sequences
        Row indices of each judge's battles in playing order (default:
        :func:`~judgebayes.consensus.elo.judge_sequences` with ``order`` and ``seed``).
    """
    if "prompt_id" not in battles:
        raise DataError(
            "battles need a 'prompt_id' column to find each answer's embedding", column="prompt_id"
        )
    judges, seqs = judge_sequences(battles, target=target, order=order, seed=seed)
    seqs = seqs if sequences is None else list(sequences)
    answers = _embedding_frame(answers, "answers")
    judge_answers = _embedding_frame(judge_answers, "judge_answers")
    if answers.shape[1] != judge_answers.shape[1]:
        raise DataError(
            f"answer embeddings have {answers.shape[1]} dimensions, the judges' "
            f"{judge_answers.shape[1]}",
            expected="one embedding dimension D",
        )
    length = max(1, max(len(s) for s in seqs))
    rows = np.full((len(judges), length), -1)
    for k, s in enumerate(seqs):
        rows[k, : len(s)] = s
    flat = rows.ravel()
    used = flat[flat >= 0]
    a, b = battles.codes()
    prompt = battles.column("prompt_id")[used]
    dim = answers.shape[1]
    e = {name: np.zeros((flat.size, dim)) for name in ("i", "j", "k")}
    models, judge_names = np.asarray(battles.models), battles.column("judge")
    e["i"][flat >= 0] = _lookup(answers, prompt, models[a[used]], "answer", used)
    e["j"][flat >= 0] = _lookup(answers, prompt, models[b[used]], "answer", used)
    e["k"][flat >= 0] = _lookup(judge_answers, prompt, judge_names[used], "judge answer", used)
    label = battles.column(target).astype(float)
    take = np.where(rows >= 0, rows, 0)
    shape = (len(judges), length, dim)
    return UDABatch(
        judges,
        battles.models,
        a[take],
        b[take],
        np.where(rows >= 0, label[take], 0.5),
        (rows >= 0).astype(float),
        e["i"].reshape(shape),
        e["j"].reshape(shape),
        e["k"].reshape(shape),
        rows,
    )


# ----------------------------------------------------------------------------- the MLP
def init_mlp(seed: int, sizes: Sequence[int]) -> dict[str, np.ndarray]:
    """He-initialised weights of an MLP with layer ``sizes`` (NumPy: nothing to compile); the
    last layer starts near 0, so a fresh adapter gives K_ij ≈ K₀ and s_i ≈ ½."""
    rng = np.random.default_rng(seed)
    params = {}
    for n, (fan_in, fan_out) in enumerate(itertools.pairwise(sizes)):
        gain = math.sqrt(2.0 / fan_in) * (0.01 if n == len(sizes) - 2 else 1.0)
        params[f"w{n}"] = (gain * rng.normal(size=(fan_in, fan_out))).astype(np.float32)
        params[f"b{n}"] = np.zeros(fan_out, np.float32)
    return params


def mlp(params: Mapping[str, jax.Array], x: jax.Array) -> jax.Array:
    """Forward pass: GELU hidden layers, linear output."""
    n_layers = sum(1 for name in params if name.startswith("w"))
    for n in range(n_layers):
        x = x @ params[f"w{n}"] + params[f"b{n}"]
        if n < n_layers - 1:
            x = jax.nn.gelu(x)
    return x


def adapter_inputs(
    batch: UDABatch,
    config: Mapping[str, Any],
    mean: np.ndarray | None = None,
    std: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Standardised MLP inputs ``(n_judges, L, F)`` (float32) and the feature mean and SD
    used (computed on this batch's battles when not given)."""
    phi = uda_features(batch.e_i, batch.e_j, batch.e_k, self_features=bool(config["self_features"]))
    if mean is None:
        used = phi[batch.mask > 0]
        mean, std = used.mean(axis=0), used.std(axis=0) + 1e-6
    x = (phi - mean) / std
    if config["verdict_input"]:
        x = np.concatenate([x, (2.0 * batch.r - 1.0)[..., None]], axis=-1)
    return x.astype(np.float32), mean, std


def adapter_outputs(
    params: Mapping[str, jax.Array], x: jax.Array, mask: jax.Array, k0: float
) -> tuple[jax.Array, jax.Array]:
    """Eq. 2: K_ij = K₀ softplus(o₁)/ln 2 (0 on padding) and s_i = softmax(o₂, o₃)₁."""
    out = mlp(params, x)
    k = k0 * jax.nn.softplus(out[..., 0]) / math.log(2.0) * mask
    s = jax.nn.softmax(out[..., 1:3], axis=-1)[..., 0]
    return k, s


@functools.partial(jax.jit, static_argnames=("n_models", "k0", "scale", "initial"))
def adaptive_ratings(
    params: Mapping[str, jax.Array],
    x: jax.Array,
    i: jax.Array,
    j: jax.Array,
    mask: jax.Array,
    *,
    n_models: int,
    k0: float,
    scale: float,
    initial: float,
) -> tuple[jax.Array, jax.Array, jax.Array]:
    """Eq. 2 then Algorithm 2 for every judge: final ratings ``(n_judges, n_models)``, K and s."""
    k, s = adapter_outputs(params, x, mask, k0)
    return elo_scan_judges(i, j, k, s, n_models, scale=scale, initial=initial), k, s


@dataclass(frozen=True, repr=False)
class UDAAdapter(ResultDisplay):
    """A trained UDA adapter (Zhang et al., 2025, Eq. 2 and Algorithm 2) and its training history.

    Attributes
    ----------
    params
        MLP weights (``w0, b0, ...``) and the feature standardisation (``mean``, ``std``).
    config
        ``hidden, self_features, verdict_input, k, scale, initial, weights, dim`` and the
        training settings.
    history
        One row per epoch: ``epoch, learning_rate, train_loss, val_loss`` and ``elapsed_s``
        (wall time since training began; epoch 0 includes compiling the training step).
    best_epoch
        The epoch whose weights were kept (lowest validation loss).
    """

    params: Mapping[str, np.ndarray]
    config: Mapping[str, Any]
    history: pd.DataFrame
    best_epoch: int

    @property
    def method(self) -> str:
        return "uda" if self.config["self_features"] else "uda_ablated"

    def _weights(self) -> dict[str, jax.Array]:
        return {k: jnp.asarray(v) for k, v in self.params.items() if k not in ("mean", "std")}

    def _run(
        self,
        battles: Battles,
        answers: Embeddings,
        judge_answers: Embeddings,
        order: Order,
        seed: int,
        target: str,
    ) -> tuple[UDABatch, np.ndarray, np.ndarray, np.ndarray]:
        batch = uda_batch(battles, answers, judge_answers, order=order, seed=seed, target=target)
        x, _, _ = adapter_inputs(batch, self.config, self.params["mean"], self.params["std"])
        final, k, s = adaptive_ratings(
            self._weights(),
            x,
            batch.i,
            batch.j,
            batch.mask.astype(np.float32),
            n_models=len(batch.models),
            k0=self.config["k"],
            scale=self.config["scale"],
            initial=self.config["initial"],
        )
        return batch, np.asarray(final), np.asarray(k), np.asarray(s)

    def ratings(
        self,
        battles: Battles,
        answers: Embeddings,
        judge_answers: Embeddings,
        *,
        order: Order = None,
        seed: int = 0,
        target: str = "judge_label",
    ) -> JudgeRatings:
        """Each judge's ratings by the adaptive Elo update (Algorithm 2).

        Parameters as :func:`uda_batch`; ``order`` as in
        :func:`~judgebayes.consensus.elo.online_elo`.
        """
        batch, final, _, _ = self._run(battles, answers, judge_answers, order, seed, target)
        return JudgeRatings(
            self.method,
            batch.judges,
            batch.models,
            final,
            None,
            tuple(int(m.sum()) for m in batch.mask),
        )

    def outputs(
        self,
        battles: Battles,
        answers: Embeddings,
        judge_answers: Embeddings,
        *,
        target: str = "judge_label",
    ) -> pd.DataFrame:
        """The adapter's K_ij and s_i for every battle (in the battles' row order)."""
        batch, _, k, s = self._run(battles, answers, judge_answers, None, 0, target)
        used = batch.rows >= 0
        frame = pd.DataFrame({"row": batch.rows[used], "k": k[used], "s_a": s[used]}).sort_values(
            "row"
        )
        return frame.set_index("row")

    def to_frame(self) -> pd.DataFrame:
        """The training history, one row per epoch."""
        return self.history.copy()

    def _headline(self) -> str:
        best = self.history.loc[self.history["epoch"] == self.best_epoch]
        val = float(best["val_loss"].iloc[0]) if len(best) else float("nan")
        feats = "full features" if self.config["self_features"] else "no judge-self features"
        sizes = "→".join(map(str, [self.config["dim_in"], *self.config["hidden"], 3]))
        return (
            f"{self.method}: MLP {sizes} ({feats}), {len(self.history)} epochs, "
            f"best epoch {self.best_epoch} (validation loss {val:.4g})"
        )

    def plot(self, ax: Axes | None = None) -> Axes:
        """Training and validation loss (Eq. 3) by epoch, the kept epoch marked."""
        ax = panel_axes(ax, (4.5, 3.0))
        ax.plot(self.history["epoch"], self.history["train_loss"], label="train")
        ax.plot(self.history["epoch"], self.history["val_loss"], label="validation")
        ax.axvline(self.best_epoch, color="0.5", ls=":", label="kept")
        ax.set(xlabel="epoch", ylabel="consensus loss (Eq. 3)", yscale="log", title=self.method)
        ax.legend(frameon=False, fontsize=7)
        return ax

    def save(self, path: str | Path) -> Path:
        """Write the adapter (weights, standardisation, config, history) to a ``.npz`` file."""
        path = Path(path)
        arrays = {f"param_{k}": np.asarray(v) for k, v in self.params.items()}
        arrays.update({f"history_{c}": self.history[c].to_numpy() for c in self.history})
        np.savez(
            path,
            config=np.array(json.dumps(dict(self.config))),
            best_epoch=np.array(self.best_epoch),
            **arrays,
        )
        return path if path.suffix == ".npz" else path.with_name(path.name + ".npz")


def load_adapter(path: str | Path) -> UDAAdapter:
    """Read an adapter written by :meth:`UDAAdapter.save`."""
    path = Path(path)
    if not path.is_file():
        raise DataError(f"no such file: {path}", expected="a .npz file from UDAAdapter.save")
    try:
        with np.load(path, allow_pickle=False) as data:
            config = json.loads(str(data["config"]))
            params = {k[6:]: data[k] for k in data.files if k.startswith("param_")}
            history = pd.DataFrame({k[8:]: data[k] for k in data.files if k.startswith("history_")})
            best = int(data["best_epoch"])
    except (OSError, ValueError, KeyError) as err:
        raise DataError(
            f"{path.name}: not a saved UDA adapter ({err})",
            expected="a .npz file from UDAAdapter.save",
        ) from None
    config["hidden"] = tuple(config["hidden"])
    return UDAAdapter(params, config, history, best)
