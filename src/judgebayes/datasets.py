"""The public data the package is shown on: downloaded once, cached, hash-checked.

Each ``load_*`` function returns the package's own types (:class:`~judgebayes.Battles`
through the package's loaders, data frames for Elo tables):

==============================  =========================================================
:func:`load_consistency`        Ramaswamy, Demeure & Rrapaj (*Model Consistency as a Cheap yet
Predictive Proxy for LLM Elo Scores*, EMNLP 2025, arXiv:2509.23510): 24 LLM judges × 2,796 contests
(Ramaswamy et al.)
:func:`load_judge_elo`          the 24 judges' Chatbot Arena Elo (the paper's Table 1)
:func:`load_contestant_elo`     the 35 contestants' Chatbot Arena Elo (Table 2)
:func:`load_softelo_sample`     Kargi & Salinas (*From Uncertain Judgments to Calibrated Rankings:
Conformal Elo Estimation for LLM Evaluation*, 2026, arXiv:2606.13221): 1,000 LMArena battles with
human and judge labels
:func:`load_uda_elo`            Zhang, Wang, Wu, Yu, Wang, Bao & Tang (*UDA: Unsupervised Debiasing
Alignment for Pair-wise LLM-as-a-Judge*, 2025, arXiv:2508.09724): per-judge Elo tables of the UDA
paper (shipped)
:func:`load_ppr`                humans and 3 LLM judges on the same 26,919 Chatbot Arena
                                battles (Chatzi et al., a multi-judge ``Battles``)
:func:`load_debias_judge`       Fiedler (*Bias and Uncertainty in LLM-as-a-Judge Estimation*, 2026,
arXiv:2605.06939): claude-opus-4 against 3 models, one judge's pick
                                and the human winner per battle (``JudgedItems``)
:func:`load_arena_bench_v1`     Don-Yehiya, Yehudai, Choshen & Abend (*Mediocrity is the key for LLM
as a Judge Anchor Selection*, ACL 2026, arXiv:2603.16848): GPT-4's 1-10 grades of 15 models on 300
prompts
                                as pairwise battles and verdicts, with the human Arena Elo
==============================  =========================================================

Where the files come from:

* ``JUDGEBAYES_DATA`` set: a local folder laid out like the project's shared data
  (``llm_consistency/contests/<judge>_contest_data.json``,
  ``llm_consistency/judge_arena_elo.csv``, ``llm_consistency/contestant_arena_elo.csv``,
  ``softelo/sample_annotations.csv``, ``ppr/<judge>.json``); nothing is downloaded.
* otherwise: the upstream repositories' raw files at pinned commits, fetched with
  :mod:`pooch` on first use into a cache folder (pooch's OS cache,
  ``~/.cache/judgebayes`` on Linux; ``JUDGEBAYES_CACHE`` overrides it) and checked
  against pinned SHA-256 hashes (:func:`registry`). A failed download or a hash
  mismatch raises a one-line :class:`~judgebayes.DataError`.

The two Elo tables are not files upstream: the paper's code holds the same ratings,
unrounded, as dict literals (``judge_elos`` in ``calculate_consistency.py``,
``chatbot_elos`` in ``calculate_elo_diffs.py``). The download path reads those literals
(parsed with :func:`ast.literal_eval`, never executed) and rounds them to the integers the
paper prints, so both paths return the same table. The UDA tables were transcribed from
the paper's appendix (no upstream file exists) and ship inside the package.

Sources and licences: github.com/ashwinsrama/LLM_Consistency (Apache-2.0) at commit
``e98cca2``; github.com/kargibora/SoftElo at commit ``6a916b3`` (no licence file: the
package downloads it for you and does not redistribute it);
github.com/Networks-Learning/prediction-powered-ranking (MIT) at commit ``af64521``;
github.com/yiqunchen/debias-llm-as-a-judge (MIT) at commit ``4b4879a``;
github.com/lmarena/arena-hard-auto (Apache-2.0) at commit ``4a705dd``;
github.com/tatsu-lab/alpaca_eval (Apache-2.0) at commit ``cd543a1``.
"""

from __future__ import annotations

import ast
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Literal
from urllib.parse import quote

import pandas as pd

from judgebayes.core.aligned import read_aligned
from judgebayes.core.battles import Battles
from judgebayes.core.io import read_frame, reading
from judgebayes.core.loaders import read_consistency, read_softelo
from judgebayes.core.results import ResultDisplay
from judgebayes.core.tool_formats import read_grades
from judgebayes.errors import DataError

if TYPE_CHECKING:  # imported where used: the anchors and calibration packages load SciPy
    from judgebayes.anchors.verdicts import VerdictTable
    from judgebayes.calibration.items import JudgedItems

__all__ = [
    "ARENA_BENCH_JUDGE",
    "ARENA_BENCH_NAMES",
    "CACHE_ENV",
    "DATA_ENV",
    "DEBIAS_JUDGES",
    "DEBIAS_OPPONENTS",
    "DEBIAS_TARGET",
    "JUDGES",
    "PPR_JUDGES",
    "ArenaBench",
    "cache_dir",
    "fetch",
    "load_arena_bench_v1",
    "load_consistency",
    "load_contestant_elo",
    "load_debias_judge",
    "load_judge_elo",
    "load_ppr",
    "load_softelo_sample",
    "load_uda_elo",
    "registry",
]

DATA_ENV = "JUDGEBAYES_DATA"
CACHE_ENV = "JUDGEBAYES_CACHE"
RETRIES = 2  # extra download attempts after a failed one (pooch waits 1 s, then 2 s)

_CONSISTENCY = (
    "https://raw.githubusercontent.com/ashwinsrama/LLM_Consistency/"
    "e98cca297b9c77bcc55f7addee51c158c884f90d/"
)
_SOFTELO = (
    "https://raw.githubusercontent.com/kargibora/SoftElo/6a916b30947629904f030bde41c68d0e7eca6a96/"
)
_PPR = (
    "https://raw.githubusercontent.com/Networks-Learning/prediction-powered-ranking/"
    "af64521891fda0057d3b8766b830142a9fa54414/data/"
)
# ``data/<name>.json`` (JSON lines) at the pinned commit -> SHA-256
_PPR_HASHES = {
    "human": "5dacc3a3bf14e878c8ebab50919266d652d9934f1573188fcef3b61f4762b3ae",
    "gpt-4-0125-preview": "c97f185690160612e387b3dc8c309b459037126075b68e70312a4792895ea4cd",
    "claude-3-opus-20240229": "feaa70627a9531d98f6ed7b9bd02492bf5d983abad402c1d58f354a12b09d3ab",
    "gpt-3.5-turbo": "8aafbce912a5079026d34a98cebfe7dc3ce8126668b7a3b6ca6a55023e7338fd",
}
_DEBIAS = (
    "https://raw.githubusercontent.com/yiqunchen/debias-llm-as-a-judge/"
    "4b4879ac7ae25fbe41b34ea1e0199d6986763167/data/judge_results/"
)
DEBIAS_TARGET = "claude-opus-4-20250514"
"""The model every battle of the debias_judge data involves (θ = P(humans prefer it))."""
# ``<target>_vs_<opponent>_<judge>.json`` at the pinned commit -> SHA-256
_DEBIAS_HASHES = {
    ("gemini-2.5-flash", "gpt-4o-mini"): (
        "8c849adddb3dff079b7862dc2466634b1f305a5b025d1f4aa21a1871527bc73a"
    ),
    ("gemini-2.5-flash", "gpt-5.2"): (
        "2d4663045c61c7107c878b1610e688763c225f803c6fe9317bbfcb4ef4d5f3e1"
    ),
    ("gemini-2.5-pro", "gpt-4o-mini"): (
        "2ffbbd51361740e60aa90aab1282a6ca55ab97a8de42fd6e0fa4ebe484d1bec6"
    ),
    ("gemini-2.5-pro", "gpt-5.2"): (
        "ec244dce584daaea2bde1df564096818b44485eb47c596ff1fcaad84df695b05"
    ),
    ("qwen3-235b-a22b-no-thinking", "gpt-4o-mini"): (
        "6380ea971a316b8d2915edc4893bc35a1a0d9bae795ee3cb1ac43d092e07e796"
    ),
    ("qwen3-235b-a22b-no-thinking", "gpt-5.2"): (
        "97a072e741952e55b14b00e9917dbf2b5323c6ee6b8d7cdbe4555bedb793830b"
    ),
}
DEBIAS_JUDGES: tuple[str, ...] = ("gpt-4o-mini", "gpt-5.2")
"""The two judges of the debias_judge data."""
DEBIAS_OPPONENTS: tuple[str, ...] = (
    "gemini-2.5-flash",
    "gemini-2.5-pro",
    "qwen3-235b-a22b-no-thinking",
)
"""The three opponents of claude-opus-4 in the debias_judge data."""


_ARENA_BENCH = (
    "https://raw.githubusercontent.com/lmarena/arena-hard-auto/"
    "4a705dd6963f777aba2ae79259e3013934e6e012/data/arena-bench-v1/model_judgment/"
)
# ``data/arena-bench-v1/model_judgment/<file>`` at the pinned commit -> SHA-256
_ARENA_BENCH_HASHES = {
    "Llama-2-70b-chat.jsonl": "40ab714677a493ce5d859dad5e18525751ce4e57ffa62fad687b33eb07062ec6",
    "Mistral-7B-Instruct-v0.1.jsonl": (
        "1dfd43ea4faef1ed63bc880cde166183761f5bafc697b55dce14da2f26cae3cc"
    ),
    "Mixtral-8x7B-Instruct-v0.1.jsonl": (
        "22eeab7db224c12f28f7ce1547517161344a37533be0b0f4ea1b94b29d430f2d"
    ),
    "Starling-LM-7B-alpha.jsonl": (
        "e944abc7cb90ad4ccbc689ec8f2287063eadb5a19ee4384be0f05a2df58c408a"
    ),
    "arena-bench-judgment_judge_any.jsonl": (
        "ae2c4e9c6735577d0a7575297a8bbc467366ede9cf16361bd7c27491c5fb4c19"
    ),
    "claude-1.jsonl": "2726d69b5b4c528e6841bbb0a433a032abc94ccf1bb95ba7bae99ed9f58981a8",
    "claude-2.1.jsonl": "370eef3f48085a4cf9533ac51a57e8f140cd28fd857f0c7da5188e10ec5cd95f",
    "claude-instant-1.jsonl": "f653cc42bdb4bda63b26fda2cc70677d02f4ce6e9650afa9c67dd7928357e804",
    "gpt-3.5-turbo-1106.jsonl": (
        "88f2b2989f8c65966f252baf449ac5167d0c8752e45698d208341f27c9b24b2f"
    ),
    "gpt-3.5-turbo.jsonl": "e90ccb5495c8396c29681073c3e0979589f47d356f1645e855b9a16d2d254c04",
    "gpt-4-0314.jsonl": "2772a6f735fb9de403432e0da847241de79f24b16b42b8180a0d4b189d43d2a0",
    "gpt-4-turbo.jsonl": "2a9dceb7fb8474b356a3ca682bdd7a2647f59bd9081c82d4760ecff1a665bcc6",
    "openchat_3.5.jsonl": "1b2bd88b6e55ad7ae4766c9df8f1782cd4490b4893123760d5f5d12bcca24a25",
    "palm-2-chat-bison-001.jsonl": (
        "05e5506f1825398f5c52e52dc8f570dc0e2d3c2ed4b2e6c30c5c6112ee0584ed"
    ),
    "vicuna-33b-v1.3.jsonl": "8beebe1f667065ee565ee8790ab06fbd4f2303427652e1b94aa67adae35b594a",
}
_BENCHMARKS_CSV = (
    "https://raw.githubusercontent.com/tatsu-lab/alpaca_eval/"
    "cd543a149df89434d8a54582c0151c0b945c3d20/notebooks/benchmarks.csv"
)
ARENA_BENCH_JUDGE = "gpt-4"
"""The judge of arena-bench-v1 (``judge_model`` in upstream's ``arena-bench-v1_config.yaml``)."""
ARENA_BENCH_NAMES: dict[str, tuple[str | None, str]] = {
    # arena-bench-v1 model (as its files write it) -> (name in alpaca_eval's
    # notebooks/benchmarks.csv, how the two were matched)
    "Llama-2-70b-chat": ("llama-2-70b-chat-hf", "same model, other spelling"),
    "Starling-LM-7B-alpha": ("Starling-LM-7B-alpha", "same name"),
    "claude-1": ("claude", "same model: alpaca_eval calls Claude 1 'claude'"),
    "claude-2.1": ("claude-2.1", "same name"),
    "claude-instant-1": (
        "claude-instant-1.2",
        "nearest version: the table has claude-instant-1.2, not claude-instant-1",
    ),
    "gpt-3.5-turbo": (
        "gpt-3.5-turbo-0613",
        "inferred version: graded on 2023-09-23 (its tstamp), when the API's gpt-3.5-turbo "
        "was gpt-3.5-turbo-0613",
    ),
    "gpt-3.5-turbo-1106": (None, "not in the table (it has -0314, -0613 and -0125)"),
    "gpt-4-0314": ("gpt4_0314", "same model, other spelling"),
    "gpt-4-1106-preview": (
        "gpt4_1106_preview",
        "same model, other spelling (no Feb 2, 2024 Elo, only April 18)",
    ),
    "llama-13b": (None, "not in the table"),
    "mistralai/Mistral-7B-Instruct-v0.1": ("Mistral-7B-Instruct-v0.1", "same model, org prefix"),
    "mistralai/Mixtral-8x7B-Instruct-v0.1": (
        "Mixtral-8x7B-Instruct-v0.1",
        "same model, org prefix",
    ),
    "openchat_3.5": ("OpenChat-3.5", "same model, other spelling"),
    "palm-2-chat-bison-001": (None, "not in the table"),
    "vicuna-33b-v1.3": ("vicuna-33b-v1.3", "same name"),
}
"""The explicit name mapping between arena-bench-v1's models and the human Arena Elo table."""


@dataclass(frozen=True, repr=False)
class ArenaBench(ResultDisplay):
    """arena-bench-v1: GPT-4's single grades as battles and verdicts, and human Arena Elo.

    Attributes
    ----------
    battles
        One battle per prompt and pair of graded models (:func:`~judgebayes.read_grades`):
        ``judge_label`` from the two grades, ``score_a``, ``score_b``, ``score_diff``.
    verdicts
        The same comparisons as an anchor verdict table (three-point: the sign of the
        grade difference; :func:`~judgebayes.anchors.verdicts_from_battles`).
    human_elo
        One row per arena-bench model: ``model``, ``benchmarks_name`` (its name in the
        Elo table, missing where it has none), ``match`` (how the names were matched,
        :data:`ARENA_BENCH_NAMES`), ``arena_elo_feb2024``, ``arena_elo_apr2024``.
    """

    battles: Battles
    verdicts: VerdictTable
    human_elo: pd.DataFrame

    def _headline(self) -> str:
        known = int(self.human_elo["arena_elo_feb2024"].notna().sum())
        return (
            f"{len(self.battles):,} battles, {len(self.battles.models)} models, "
            f"{len(self.verdicts.prompts)} prompts; human Arena Elo (Feb 2, 2024) for {known}"
        )

    def to_frame(self) -> pd.DataFrame:
        """:attr:`human_elo`."""
        return self.human_elo.copy()


def _debias_name(opponent: str, judge: str) -> str:
    return f"debias_judge/{DEBIAS_TARGET}_vs_{opponent}_{judge}.json"


PPR_JUDGES: tuple[str, ...] = ("gpt-4-0125-preview", "claude-3-opus-20240229", "gpt-3.5-turbo")
"""The three LLM judges of the PPR data, in the order of the paper."""

# judge -> SHA-256 of ``Preference Data/<judge>_contest_data.json`` at the pinned commit
_CONTEST_HASHES = {
    "chatgpt-4o-latest": "114e83f4b077b9c74ecf23ff32bd01f773017c1bd0ac4143b4a772f42c20f918",
    "claude-3-haiku-20240307": "a7d5b74e4ff7ae2831e641afdc3257ad59ea9b3759146e723e8772e26db2de3a",
    "claude-3-opus-20240229": "6f0281e0fc77a520e6b707e0c323cbee067cd5c8d39f3d69839323b6ad28f151",
    "claude-3.5-sonnet-20240620": "b58db7763903c36f8479188f2c1c97dbc62bfd9919dc8b9b23fa054e1dec74b1",  # noqa: E501
    "command-r-plus": "02c9a4caeb86e1322b6a3873800e237b7d6dd602ab3fcd1794f025bec3abee16",
    "command-r": "4aa3045992b20b25bfbe2f0d0395d4a38802488bce408a9c242aaf663df764b5",
    "gemini-1.5-flash-002": "b35a826c5e8ca33c9587f45da7c9cea18e24215d60fc997f53eb4642deabd1bd",
    "gemini-1.5-pro-002": "5c6c34fddb0592ac638d21b877a6d7af05df94ae5cb7d0935ada741a5311745d",
    "gemma-7b-it": "b33c42d528a040d5aa9dc6e9f2814b01539d4aa85778c41d7d1b9e1f7701aedc",
    "gpt-4o-mini-2024-07-18": "a9ba2b042db0b5a1cc5104740f5dac0bd4a910b32306ac017a978571b0b1e910",
    "llama-3-70b-instruct": "3c4e7bfbbf406619c1ad90796971bb35e4fee46165b8407df656a592742e179f",
    "llama-3-8b-instruct": "d8812e38313f441739c57c37273e3645b912e2351c30d8de5d9708efa9e02d87",
    "llama-3.1-405b-instruct": "c66d2e36b0deea07adb778e7c30a51a9945e29a1a1caaf74fdcb2f38943123c8",
    "llama-3.1-70b-instruct": "140a494e6b36134feb023bf0c8c6d2996370fb58699911d5f4dcf48fe4fae43c",
    "llama-3.1-8b-instruct": "ca77b83bf18e7cfa7c68eb004c09d5a4f2940bd568ebbf70e1b7a7f2603ace0e",
    "mistral-7b-instruct": "bad3f7c85105f2f50c2aa4729b7bb7a6349e31c08da0b842589fb739db99baae",
    "mistral-large-2407": "7722d94d52d6c3839a0b2fc9fdb865ea7a5a1182bcbd1405bc90f60603fecebd",
    "mixtral-8x7b-instruct-v0.1": "d846f305ab6e27d18fa326860f51c870fe280f5e2cd9a6291116963c43b0bc62",  # noqa: E501
    "openchat-3.5-0106": "31fd611b4d39bf17ef8512b5e50de57c77ecb0a7662839a70f7fdcf87042d8b6",
    "phi-3-medium-4k-instruct": "4fef3b2bd3cdb44b35ff50dabdbee9181d79a95fd5261f629cfece3b9ff1ab65",
    "qwen1.5-14b-chat": "75c260d8e58887f4b971355cf9d5e6c4490bfe8ddfecaa379740502578a407c1",
    "starling-lm-7b-alpha": "c2d64f854d21aeac6784d32e3ef553df43cddfc03daa88d24390a0b061eb2f71",
    "vicuna-13b": "302a1e01e0a8954bb2a87445a32f2083b7c3e939ae5146f21b2f72999ebfb508",
    "zephyr-7b-beta": "84d5b942535487d2cfc0e8191e032029cad068192f23e7bf9bcd83a162a5246c",
}

JUDGES: tuple[str, ...] = tuple(sorted(_CONTEST_HASHES))
"""The 24 judge LLMs of Ramaswamy et al. (2025), as named in the contest files."""

_ENTRIES: dict[str, tuple[str, str]] = {  # cache path -> (upstream URL, SHA-256)
    **{
        f"llm_consistency/contests/{judge}_contest_data.json": (
            _CONSISTENCY + quote(f"Preference Data/{judge}_contest_data.json"),
            sha,
        )
        for judge, sha in _CONTEST_HASHES.items()
    },
    "llm_consistency/upstream/calculate_consistency.py": (
        _CONSISTENCY + "calculate_consistency.py",
        "59b8160b2531629da8c604b0af37f8fca212ff4bc892c317366c56e76071dcf3",
    ),
    "llm_consistency/upstream/calculate_elo_diffs.py": (
        _CONSISTENCY + "calculate_elo_diffs.py",
        "95e9a38352fc3bb863414a67c14259c46e2d96e2f51ffd02b7e3cafa46a1d3a0",
    ),
    "softelo/sample_annotations.csv": (
        _SOFTELO + "data/sample_annotations.csv",
        "3da08b17ab2a48ff5861094f9fe53fe23abd9f0f2a63ac4cf0b922e990bb7308",
    ),
    **{f"ppr/{name}.json": (_PPR + f"{name}.json", sha) for name, sha in _PPR_HASHES.items()},
    **{
        _debias_name(opponent, judge): (
            _DEBIAS + _debias_name(opponent, judge).removeprefix("debias_judge/"),
            sha,
        )
        for (opponent, judge), sha in _DEBIAS_HASHES.items()
    },
    **{
        f"arena_bench_v1/model_judgment/{name}": (_ARENA_BENCH + name, sha)
        for name, sha in _ARENA_BENCH_HASHES.items()
    },
    "arena_bench_v1/human_arena_elo_benchmarks.csv": (
        _BENCHMARKS_CSV,
        "ed599373eadbb343bbe80f677a513305c21ef5d110c5d81dfbb94a098e51ac75",
    ),
}

# Elo table -> (file under JUDGEBAYES_DATA, upstream script, dict literal, name column)
_ELO_TABLES = {
    "judge": (
        "llm_consistency/judge_arena_elo.csv",
        "llm_consistency/upstream/calculate_consistency.py",
        "judge_elos",
        "judge",
    ),
    "contestant": (
        "llm_consistency/contestant_arena_elo.csv",
        "llm_consistency/upstream/calculate_elo_diffs.py",
        "chatbot_elos",
        "model",
    ),
}

_UDA_FILES = {
    "arenahard": "arenahard_elo_by_judge.csv",
    "transfer": "transfer_set_elo_by_judge.csv",
}


def registry() -> pd.DataFrame:
    """Every downloadable file: where it is cached, its upstream URL and pinned SHA-256.

    Returns
    -------
    pandas.DataFrame
        ``name`` (path under the cache folder, and under ``JUDGEBAYES_DATA`` for the
        files that have a local twin), ``url``, ``sha256``.
    """
    return pd.DataFrame(
        [{"name": name, "url": url, "sha256": sha} for name, (url, sha) in _ENTRIES.items()]
    )


def cache_dir() -> Path:
    """The download cache: ``JUDGEBAYES_CACHE`` if set, else pooch's OS cache folder."""
    import pooch

    override = os.environ.get(CACHE_ENV)
    return Path(override) if override else Path(pooch.os_cache("judgebayes"))


def _local_root() -> Path | None:
    value = os.environ.get(DATA_ENV)
    return Path(value).expanduser() if value else None


def _local(name: str) -> Path:
    """``name`` under ``JUDGEBAYES_DATA``; a one-line error when the copy lacks it."""
    root = _local_root() or Path()
    path = root / name
    if not path.is_file():
        raise DataError(
            f"{DATA_ENV}={root} has no {name}: point it at a folder laid out like "
            f"the package's data (llm_consistency/, softelo/, ppr/, ...) or unset it to "
            f"download from upstream"
        )
    return path


def fetch(name: str) -> Path:
    """The local path of a registry file, downloading and hash-checking it on first use.

    With ``JUDGEBAYES_DATA`` set, the file of the same name in that folder (nothing is
    downloaded); otherwise the cached download (:func:`cache_dir`). The paper's scripts
    (``llm_consistency/upstream/*.py``, the source of the Elo tables when downloading)
    have no twin in a local copy and are always fetched.

    Parameters
    ----------
    name
        A ``name`` of :func:`registry`, e.g. ``"softelo/sample_annotations.csv"``.

    Returns
    -------
    pathlib.Path
        The file.

    Raises
    ------
    DataError
        Unknown name; the local copy lacks the file; the download failed (offline, or
        the server refused); or the downloaded bytes do not match the pinned SHA-256.
    """
    if name not in _ENTRIES:
        raise DataError(f"no data file {name!r}", expected="a name listed by registry()")
    if _local_root() is not None and not name.startswith("llm_consistency/upstream/"):
        return _local(name)
    return _download(name)


def _download(name: str) -> Path:
    import pooch

    url, sha = _ENTRIES[name]
    store = pooch.create(
        path=cache_dir(),
        base_url="",
        registry={name: f"sha256:{sha}"},
        urls={name: url},
        retry_if_failed=RETRIES,
    )
    try:
        return Path(store.fetch(name))
    except ValueError as err:  # pooch: the downloaded bytes have another hash
        got = re.search(r"but got (\w+)", str(err))
        detail = f"got {got.group(1)[:16]}…" if got else " ".join(str(err).split())
        raise DataError(
            f"{name}: the file downloaded from {url} does not match its pinned "
            f"SHA-256 (expected {sha[:16]}…, {detail}): the upstream file changed "
            f"or the transfer was corrupted; nothing was cached: retry, or set "
            f"{DATA_ENV} to a local copy"
        ) from None
    except Exception as err:  # offline, DNS, HTTP status, a full disk: all one line
        reason = " ".join(str(err).split())
        reason = (reason[:160] + "…" if len(reason) > 160 else reason) or type(err).__name__
        raise DataError(
            f"could not download {name} from {url} ({type(err).__name__}: "
            f"{reason}); check the network connection, or set {DATA_ENV} to a "
            f"folder that holds a copy"
        ) from None


def load_consistency(judges: Sequence[str] | None = None) -> Battles:
    """The contests of Ramaswamy et al. (2025): each of 24 judge LLMs judged the same 2,796
    contests.

    35 contestant models in 7 groups of 5 that never meet across groups (70 unordered
    pairs, both presentation orders); ``winner`` strings become ``judge_label`` (1 = the
    answer shown first wins, ``position = "a"``), ``"Tie"`` becomes 0.5
    (:func:`~judgebayes.read_consistency`). Upstream:
    github.com/ashwinsrama/LLM_Consistency, ``Preference Data/`` (Apache-2.0).

    Parameters
    ----------
    judges
        Load only these judges (names as in :data:`JUDGES`); all 24 when ``None``.

    Returns
    -------
    Battles
        One row per (judge, contest); the ``judge`` column names the judge.
    """
    chosen = JUDGES if judges is None else tuple(judges)
    unknown = [j for j in chosen if j not in _CONTEST_HASHES]
    if unknown:
        raise DataError(
            f"no contest data for judge {unknown[0]!r}", expected=f"one of {', '.join(JUDGES)}"
        )
    if not chosen:
        raise DataError("judges is empty", expected="at least one judge name")
    files = [fetch(f"llm_consistency/contests/{j}_contest_data.json") for j in chosen]
    folder = files[0].parent
    if {f.name for f in folder.glob("*.json*")} == {f.name for f in files}:
        return read_consistency(folder)  # the folder holds exactly these files: one read
    if len(files) == 1:
        return read_consistency(files[0])
    return Battles(pd.concat([read_consistency(f).frame for f in files], ignore_index=True))


def _elo_from_script(text: str, variable: str, key: str) -> pd.DataFrame:
    """The dict literal ``variable = {name: elo, ...}`` of a Python source, as a table."""
    for node in ast.parse(text).body:
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and node.targets[0].id == variable
        ):
            values = ast.literal_eval(node.value)
            return pd.DataFrame(
                {key: list(values), "arena_elo": [round(float(v)) for v in values.values()]}
            )
    raise DataError(
        f"the upstream script has no {variable} = {{...}} literal",
        expected="the pinned file of registry()",
    )


def _elo_table(which: str) -> pd.DataFrame:
    csv, script, variable, key = _ELO_TABLES[which]
    if _local_root() is not None:
        frame = pd.read_csv(_local(csv))
        missing = {key, "arena_elo"} - set(frame.columns)
        if missing:
            raise DataError(
                f"{_local(csv)} lacks column {sorted(missing)[0]!r}",
                expected=f"columns {key},arena_elo",
            )
        frame = frame[[key, "arena_elo"]].astype({key: str, "arena_elo": int})
    else:
        frame = _elo_from_script(fetch(script).read_text(encoding="utf-8"), variable, key)
    return frame.sort_values(["arena_elo", key], ascending=[False, True], ignore_index=True)


def load_judge_elo() -> pd.DataFrame:
    """The 24 judges' Chatbot Arena Elo, as integers (Ramaswamy et al., 2025, Table 1).

    Returns
    -------
    pandas.DataFrame
        ``judge, arena_elo``, strongest first. ``frame.set_index("judge")["arena_elo"]``
        is the Series :func:`judgebayes.compare_elo` takes.
    """
    return _elo_table("judge")


def load_contestant_elo() -> pd.DataFrame:
    """The 35 contestant models' Chatbot Arena Elo, as integers (Ramaswamy et al., 2025, Table 2).

    Returns
    -------
    pandas.DataFrame
        ``model, arena_elo``, strongest first.
    """
    return _elo_table("contestant")


def load_softelo_sample() -> Battles:
    """Kargi & Salinas's (2026) sample of 1,000 real LMArena battles between 14 models.

    Human preferences, one LLM judge's preference and its six rubric scores per answer
    (:func:`~judgebayes.read_softelo`: 0 = A wins upstream becomes ``judge_label`` /
    ``human_label`` = 1). The Soft-Elo authors' code gives β = 0.652 and held-out MAE
    57.63 (Hard) / 19.54 (Soft) on it. Upstream: github.com/kargibora/SoftElo,
    ``data/sample_annotations.csv`` (no licence file upstream: downloaded, not shipped).

    Returns
    -------
    Battles
        1,000 battles with ``judge_label``, ``human_label``, ``score_a``, ``score_b``,
        ``score_diff`` and the per-criterion scores.
    """
    return read_softelo(fetch("softelo/sample_annotations.csv"))


def load_uda_elo(table: Literal["arenahard", "transfer"] = "arenahard") -> pd.DataFrame:
    """Per-judge Elo of 10 models from the UDA paper's appendix (Zhang et al., 2025), shipped.

    Ten judges ``J1`` … ``J10``, each with Elo from its own verdicts with K = 32
    (``method = "baseline_elo"``) and after the paper's debiasing (``"uda"``);
    ``"transfer"`` also has the human Elo (``judge = method = "human"``). The column
    names follow the model order stated in the paper's appendix; its Table 1 prints the
    same figures under another header order, so treat the names as uncertain and the
    column order as consistent across rows.

    Parameters
    ----------
    table
        ``"arenahard"`` (the paper's Table 5) or ``"transfer"`` (Table 6).

    Returns
    -------
    pandas.DataFrame
        ``judge, method`` and one Elo column per model.
    """
    if table not in _UDA_FILES:
        raise DataError(f"no UDA table {table!r}", expected="'arenahard' or 'transfer'")
    source = resources.files("judgebayes") / "data" / _UDA_FILES[table]
    with resources.as_file(source) as path:
        frame = pd.read_csv(path)
    return frame.rename(columns={"row": "judge"})


def load_ppr(judges: Sequence[str] | None = None) -> Battles:
    """Humans and three LLM judges on the same 26,919 Chatbot Arena battles of 20 models.

    The data of Chatzi et al., *Prediction-Powered Ranking of Large Language Models*
    (NeurIPS 2024, arXiv:2402.17826): one JSON-lines file per annotator (``human``,
    ``gpt-4-0125-preview``, ``claude-3-opus-20240229``, ``gpt-3.5-turbo``), line k of each
    the same battle, joined by its ``num`` (:func:`~judgebayes.read_aligned`). Human
    winners A/B/tie are 9,516 / 9,391 / 8,012 (5,132 of the ties "both bad",
    ``human_bothbad``); on the battles neither side calls a tie the judges agree with the
    humans 0.83, 0.72 and 0.57; gpt-3.5-turbo says ``model_a`` in 86% of battles.
    Upstream: github.com/Networks-Learning/prediction-powered-ranking, ``data/`` (MIT).

    Parameters
    ----------
    judges
        Load only these judges (names as in :data:`PPR_JUDGES`); all three when ``None``.

    Returns
    -------
    Battles
        One row per (battle, judge): ``battle_id`` (upstream ``num``), ``prompt_id``
        (``question_id``), ``model_a``, ``model_b``, ``position = "a"``, ``judge``,
        ``judge_label``, ``human_label``, ``human_bothbad``.
        :meth:`~judgebayes.Battles.human_battles` gives the all-human table.
    """
    chosen = PPR_JUDGES if judges is None else tuple(judges)
    unknown = [j for j in chosen if j not in PPR_JUDGES]
    if unknown:
        raise DataError(
            f"no PPR data for judge {unknown[0]!r}", expected=f"one of {', '.join(PPR_JUDGES)}"
        )
    return read_aligned(fetch("ppr/human.json"), {j: fetch(f"ppr/{j}.json") for j in chosen})


def load_debias_judge(
    judge: str = "gpt-4o-mini", opponents: Sequence[str] | None = None
) -> JudgedItems:
    """claude-opus-4 against three models: one LLM judge's pick and the human winner.

    Chatbot Arena battles of claude-opus-4-20250514 against gemini-2.5-flash (325),
    gemini-2.5-pro (277) and qwen3-235b-a22b-no-thinking (275), each judged by
    gpt-4o-mini and by gpt-5.2, from the R package of github.com/yiqunchen/debias-llm-
    as-a-judge (MIT, ``data/judge_results/``). As judged items (Fiedler (2026),
    :func:`~judgebayes.calibration.read_prevalence`): θ = P(humans prefer claude-opus-4)
    per opponent (the items' ``model``), the judge's pick as its label; a battle without
    a pick is left out and counted in ``report``. The package's vignette "Real Data
    Example" (gemini-2.5-pro, gpt-4o-mini) has 276 battles with a pick, human preference
    for Claude 0.236 and the judge's 0.159.

    Parameters
    ----------
    judge
        ``"gpt-4o-mini"`` or ``"gpt-5.2"`` (:data:`DEBIAS_JUDGES`).
    opponents
        Some of :data:`DEBIAS_OPPONENTS`; all three when ``None``.

    Returns
    -------
    JudgedItems
        One item per battle with a pick; every battle has a human winner, so every
        item is a calibration item until you hide some human labels.
    """
    if judge not in DEBIAS_JUDGES:
        raise DataError(
            f"no debias_judge data for judge {judge!r}", expected=f"one of {DEBIAS_JUDGES}"
        )
    chosen = DEBIAS_OPPONENTS if opponents is None else tuple(opponents)
    unknown = [o for o in chosen if o not in DEBIAS_OPPONENTS]
    if unknown or not chosen:
        raise DataError(
            f"no debias_judge opponent {unknown[0] if unknown else 'given'!r}",
            expected=f"some of {', '.join(DEBIAS_OPPONENTS)}",
        )
    from judgebayes.calibration.readers import read_prevalence

    files = [fetch(_debias_name(o, judge)) for o in chosen]
    return read_prevalence(files, target=DEBIAS_TARGET, judge=judge)


def load_arena_bench_v1() -> ArenaBench:
    """arena-bench-v1: GPT-4's 1-10 grades of 15 models on 300 hard prompts, with human Elo.

    The precursor of Arena-Hard (github.com/lmarena/arena-hard-auto, Apache-2.0,
    ``data/arena-bench-v1/model_judgment/``): GPT-4's reference-guided single grades,
    null where the grade could not be parsed. Every prompt and pair of models that both
    have a grade becomes a battle (:func:`~judgebayes.read_grades`) and a three-point
    verdict (the sign of the grade difference), so any of the 15 models can serve as
    the anchor of Don-Yehiya et al. (2026). The human side is the Chatbot Arena Elo of Feb 2 and
    April 18, 2024 in tatsu-lab/alpaca_eval's ``notebooks/benchmarks.csv`` (Apache-2.0), whose model
    names differ: :data:`ARENA_BENCH_NAMES` maps them explicitly and says how each was matched (11
    of 15 have an Elo; gpt-4-1106-preview only the April one).

    Returns
    -------
    ArenaBench
        ``battles``, ``verdicts`` and ``human_elo``.
    """
    from judgebayes.anchors.verdicts import verdicts_from_battles

    files = [fetch(f"arena_bench_v1/model_judgment/{name}") for name in _ARENA_BENCH_HASHES]
    frames = []
    for f in files:
        with reading(f, unit="record"):
            frames.append(read_frame(f, text_columns=("question_id", "model"), default="json"))
    battles = read_grades(pd.concat(frames, ignore_index=True), judge=ARENA_BENCH_JUDGE)
    table = pd.read_csv(fetch("arena_bench_v1/human_arena_elo_benchmarks.csv"))
    elo = table.set_index("Model")
    feb, apr = "Arena Elo\n[Feb 2, 2024]", "Arena Elo\n[April 18, 2024]"
    rows = []
    for model in battles.models:
        name, how = ARENA_BENCH_NAMES[model]
        rows.append(
            {
                "model": model,
                "benchmarks_name": name,
                "match": how,
                "arena_elo_feb2024": elo.loc[name, feb] if name is not None else float("nan"),
                "arena_elo_apr2024": elo.loc[name, apr] if name is not None else float("nan"),
            }
        )
    human = pd.DataFrame(rows).sort_values(
        ["arena_elo_feb2024", "model"], ascending=[False, True], ignore_index=True
    )
    return ArenaBench(battles=battles, verdicts=verdicts_from_battles(battles), human_elo=human)
