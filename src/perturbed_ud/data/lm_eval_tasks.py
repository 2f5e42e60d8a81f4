"""A built dataset as a task group of lm-evaluation-harness, so that a lab that already runs
the harness scores its own causal LMs on our data (``lm_eval --include_path DIR --tasks
GROUP``).

The folder ``DIR/<group>`` holds one YAML per task, the templates they ``include:``, and a group
YAML named after the dataset. Every file's header and every task's ``metadata`` name the
dataset's version, signature and content hash, so results carry the data they came from. The
tasks read the Hub repo the dataset was pushed to at a revision (``dataset_kwargs: {revision:
...}``; default the tag ``v<version>`` that ``push`` makes), or, from a local build, copies of
its Parquet files in ``DIR/<group>/data``, each named by its sha256 and named so in the tasks'
``data_files`` (`copy_by_content`), which the folder's ``utils.py`` reads relative to itself,
so the folder may be moved. The harness reads whatever a path holds when it runs: tasks that
read the build folder itself would score a later rebuild or edit of it under the content hash
of this one, while a copy whose name is its hash is this build's data for good.

- ``clams``: one multiple-choice task per language and construction, the grammatical sentence
  against the ungrammatical one (``acc``, ``acc_norm``).
- ``perturbed-ud``: per config and perturbed condition, a multiple-choice task of the sentence in
  the reference order (``orig``; ``orig_lemma`` for a ``_lemma`` condition) against the
  perturbed order. The two splits are loaded together and paired on the sentence by the
  ``utils.py`` written beside the tasks (`lm_eval_utils`).
- every family but ``clams``: a ``loglikelihood_rolling`` task per config and split (and text
  column, in ``local_structure``), for per-condition word and byte perplexity and bits per
  byte.

The harness differs from ``perturbed-ud evaluate`` in two ways the templates repeat: its ``acc``
counts an exact tie as correct (``argmax`` picks the first choice, the gold), where ``evaluate
minimal-pair`` reports ties apart as not correct; and with an empty context its HF model puts
the tokenizer's BOS token (EOS where there is none) before the text, as ``--bos prepend`` does.

A choice longer than the model's context stops the harness (its HF model asserts that every
continuation fits), where `evaluate` scores it in windows. ``max_length_of=MODEL`` leaves out
the rows that MODEL cannot read whole, and every task's metadata counts them.
"""

from __future__ import annotations

import hashlib
import re
import shutil
from dataclasses import dataclass
from fnmatch import fnmatch
from pathlib import Path
from typing import ClassVar

import yaml

from ..errors import InputError
from ..files import guard_output, write_text
from ..registry import FAMILIES, manifest_family
from .layout import check_card_layout, layout_content, layout_digests
from .writer import (
    atomic_folder,
    check_recorded_content,
    digests_content,
    read_build_manifest,
    split_pattern,
)

UTILS_MODULE = Path(__file__).with_name("lm_eval_utils.py")
LOADER = "custom_dataset: !function utils.load_data\n"  # the copies, read relative to utils.py
DATA = "data"  # the task folder's copies of a local build's Parquet files
MANIFEST_KEYS = ("dataset", "version", "signature", "content_sha256", "configs", "parameters")

TIES = """\
Ties: lm-eval's acc is 1 when argmax(log-likelihoods) is the gold, choice 0; argmax picks the
first of equal values, so an exact tie counts as correct here. `perturbed-ud evaluate
minimal-pair` reports ties apart and counts them as not correct.
"""
BOS = """\
BOS: the context is empty, so lm-eval's HF model scores the text after the tokenizer's BOS
token (EOS where it has none; model_args prefix_token_id to change it): every token of the
text is scored, as with `perturbed-ud evaluate --bos prepend`.
"""
LONG_ROWS = """\
Long rows: a choice longer than the model's context stops lm-eval's HF model (it asserts that
every continuation fits); `perturbed-ud lm-eval-tasks --max-length-of MODEL` leaves out the
rows MODEL cannot read whole and counts them in each task's metadata (left_out).
"""
WORDS = """\
word_perplexity divides by whitespace-separated words: use byte_perplexity or bits_per_byte
to compare scripts written without spaces (zh, ja) or different tokenizers.
"""


def task_name(*parts: str) -> str:
    """A harness task name: lowercase letters, digits and ``_``."""
    return re.sub(r"[^a-z0-9]+", "_", "_".join(parts).lower()).strip("_")


def read_manifest(folder: Path) -> dict:
    """``build.json`` of a dataset folder built here, checked against the folder's Parquet
    files (the tasks are pinned to its version and content) and read by the version of its
    family that built it (`manifest_family`), which the tasks below ask for by name."""
    manifest = read_build_manifest(folder, MANIFEST_KEYS, InputError)
    family = manifest_family(manifest, folder)
    if family is None or not family.lm_eval_tasks:
        offered = [f for f in FAMILIES.short_names() if FAMILIES.get(f).lm_eval_tasks]
        raise InputError(
            f"{folder} is a {manifest['dataset']} dataset; lm-eval tasks are written for "
            f"{', '.join(offered)}"
        )
    if not any(config.get("splits") for config in manifest["configs"].values()):
        raise InputError(f"{folder} holds no configs with rows: nothing to evaluate")
    check_card_layout(folder, manifest)
    content = layout_content(folder, manifest)
    check_recorded_content(folder, content, manifest["content_sha256"])
    return manifest


def copy_by_content(folder: Path, data: Path, manifest: dict) -> dict[str, str]:
    """Copy every Parquet file of the build into ``data`` as ``<sha256>.parquet`` (a file that
    several configs hold is copied once); return each file's copy by relative path. The bytes
    are hashed as they are copied, and must give the build's recorded content, so the copies
    are the build's files even if the folder changes meanwhile."""
    data.mkdir()
    copies = {}
    for name in layout_digests(folder, manifest):
        path = folder / name
        digest, partial = hashlib.sha256(), data / ".copy.partial"
        with open(path, "rb") as source, open(partial, "wb") as target:
            while block := source.read(1 << 20):
                digest.update(block)
                target.write(block)
        partial.replace(data / f"{digest.hexdigest()}.parquet")
        copies[path.relative_to(folder).as_posix()] = digest.hexdigest()
    check_recorded_content(folder, digests_content(copies), manifest["content_sha256"])
    return {name: f"{sha256}.parquet" for name, sha256 in copies.items()}


def source(final: Path, manifest: dict, hub_id: str | None, revision: str | None) -> dict:
    """Where the tasks load the data from: the copies in the task folder ``final``, or the
    Hub repo at a revision."""
    if hub_id is None:
        if revision is not None:
            raise InputError("--revision names a revision of --hub-id: give both")
        return {"dataset_path": "parquet"}  # read by utils.load_data from the copies
    from huggingface_hub.utils import validate_repo_id

    try:
        validate_repo_id(hub_id)
    except ValueError as err:
        raise InputError(f"bad --hub-id: {err}") from None
    return {
        "dataset_path": hub_id,
        "dataset_kwargs": {"revision": revision or f"v{manifest['version']}"},
    }


def rolling_columns(manifest: dict) -> tuple[str, ...]:
    return FAMILIES.get(manifest["family"]).lm_eval_text(manifest)


def _splits(manifest: dict):
    for config, entry in manifest["configs"].items():
        for split in entry.get("splits", {}):
            yield config, split


def task_data(data: dict, copies: dict | None, config: str, split: str, reads: list[str]):
    """What a task loads as its split ``split``: the splits ``reads`` of ``config``, from the
    Hub repo (the config, with ``data_files`` where several splits are read as one), or the
    copies of their files (``copies``, from `copy_by_content`)."""
    if copies is None and reads == [split]:
        return {"dataset_name": config}
    patterns = [split_pattern(config, read) for read in reads]
    if copies is None:
        kwargs = data.get("dataset_kwargs", {}) | {"data_files": {split: patterns}}
        return {"dataset_name": config, "dataset_kwargs": kwargs}
    files = [copies[name] for pattern in patterns for name in copies if fnmatch(name, pattern)]
    return {"dataset_kwargs": {"data_files": {split: files}}}


def minimal_pair_tasks(manifest: dict, group: str, data: dict, copies: dict | None) -> list[dict]:
    """clams: a task per language and construction."""
    return [
        {
            "task": task_name(group, config, split),
            **task_data(data, copies, config, split, [split]),
            "test_split": split,
        }
        for config, split in _splits(manifest)
    ]


def order_pair_tasks(manifest: dict, group: str, data: dict, copies: dict | None) -> list[dict]:
    """perturbed-ud: a task per config and perturbed condition, with its reference split."""
    tasks = []
    for config, split in _splits(manifest):
        reference = "orig_lemma" if split.endswith("_lemma") else "orig"
        if split.startswith("orig") or reference not in manifest["configs"][config]["splits"]:
            continue
        tasks.append(
            {
                "task": task_name(group, config, reference, "vs", split),
                **task_data(data, copies, config, split, [reference, split]),
                "test_split": split,
            }
        )
    return tasks


def rolling_tasks(manifest: dict, group: str, data: dict, copies: dict | None) -> list[dict]:
    """A perplexity task per config, split and text column."""
    columns = rolling_columns(manifest)
    return [
        {
            "task": task_name(group, config, split, *([column] if len(columns) > 1 else []), "ppl"),
            **task_data(data, copies, config, split, [split]),
            "test_split": split,
            "doc_to_target": column,
        }
        for config, split in _splits(manifest)
        for column in columns
    ]


def task_metadata(manifest: dict) -> dict:
    """What every task's results carry of the data: lm-eval reports ``version`` per task."""
    return {
        "version": manifest["version"],
        "dataset": manifest["dataset"],
        "signature": manifest["signature"],
        "content_sha256": manifest["content_sha256"],
    }


def templates(data: dict) -> dict[str, tuple[str, dict, str]]:
    """Each kind of task: its template's comment, settings, and lines written as text (PyYAML
    cannot write lm-eval's ``!function`` tag)."""
    loader = "" if "dataset_kwargs" in data else LOADER  # local copies, or the Hub
    choice = {
        "output_type": "multiple_choice",
        "doc_to_text": "",
        "target_delimiter": "",
        "doc_to_target": 0,
        "metric_list": [
            {"metric": "acc", "aggregation": "mean", "higher_is_better": True},
            {"metric": "acc_norm", "aggregation": "mean", "higher_is_better": True},
        ],
    }
    rolling = {
        "output_type": "loglikelihood_rolling",
        "doc_to_text": "",
        "metric_list": [
            {"metric": name, "aggregation": aggregation, "higher_is_better": False}
            for name, aggregation in (
                ("word_perplexity", "weighted_perplexity"),
                ("byte_perplexity", "weighted_perplexity"),
                ("bits_per_byte", "bits_per_byte"),
            )
        ],
    }
    return {
        "minimal_pair": (
            "Is the grammatical sentence more likely than the ungrammatical one?\n"
            + TIES
            + BOS
            + LONG_ROWS,
            data | choice | {"doc_to_choice": "{{[sentence_good, sentence_bad]}}"},
            loader,
        ),
        "order_pair": (
            "Is the sentence more likely in its reference order than perturbed? Each task's\n"
            "dataset_kwargs load both splits; utils.py pairs the rows of a sentence.\n"
            + TIES
            + BOS
            + LONG_ROWS,
            {"dataset_path": data["dataset_path"], **choice, "doc_to_choice": "choices"},
            loader + "process_docs: !function utils.process_docs\n",
        ),
        "rolling": (
            "Per-condition perplexity of each row's text.\n" + WORDS + BOS,
            data | rolling,
            loader,
        ),
    }


def family_tasks(
    manifest: dict, group: str, data: dict, copies: dict | None
) -> dict[str, list[dict]]:
    """The tasks of each kind that the dataset's family has."""
    kinds = FAMILIES.get(manifest["family"]).lm_eval_tasks
    makers = {"minimal_pair": minimal_pair_tasks, "order_pair": order_pair_tasks,
              "rolling": rolling_tasks}  # fmt: skip
    return {
        kind: make(manifest, group, data, copies) if kind in kinds else []
        for kind, make in makers.items()
    }


def header(manifest: dict, data: dict, comment: str = "") -> str:
    """The comment lines that open every file: the dataset's version, signature, content.
    Every line of a value is commented out, so that no line break in a path or a signature
    can start a line of YAML."""
    where = "the Parquet copies in data/ beside these files, read by utils.py"
    if "dataset_kwargs" in data:
        where = f"{data['dataset_path']} (Hugging Face Hub) at revision "
        where += data["dataset_kwargs"]["revision"]
    lines = [
        f"lm-evaluation-harness tasks for {manifest['dataset']} {manifest['version']}",
        f"signature: {manifest['signature']}",
        f"content sha256: {manifest['content_sha256']}",
        f"data: {where}",
        comment,
    ]
    return "".join(f"# {part}".rstrip() + "\n" for line in lines for part in line.splitlines())


def dump(settings: dict) -> str:
    return yaml.safe_dump(settings, sort_keys=False, allow_unicode=True, width=100)


def write_tasks(
    dataset: str | Path,
    out: str | Path,
    *,
    hub_id: str | None = None,
    revision: str | None = None,
    max_length_of: str | None = None,
    overwrite: bool = False,
) -> Path:
    """Write the task group of a built dataset folder into ``out/<group>``; return it.
    ``max_length_of``: a model whose tokenizer and context decide which rows are too long
    for the harness (`LongRows`); they are left out and counted."""
    folder = Path(dataset).expanduser()
    manifest = read_manifest(folder)
    group = task_name(manifest["dataset"])
    final = guard_output(Path(out) / group, [folder], replaced_whole=True)
    data = source(final, manifest, hub_id, revision)
    if max_length_of is not None and hub_id is not None:
        raise InputError(
            "--max-length-of leaves rows out of the local copies: write the tasks without "
            "--hub-id to use it"
        )
    long_rows = LongRows.of(max_length_of) if max_length_of is not None else None
    tasks = family_tasks(manifest, group, data, None)
    names = [task["task"] for kind in tasks.values() for task in kind]
    if len(set(names)) < len(names):
        clash = sorted({name for name in names if names.count(name) > 1})
        raise InputError(f"{folder}: configs and splits give clashing task names {clash}")
    metadata = task_metadata(manifest)
    left_out, emptied = 0, []
    with atomic_folder(final, overwrite=overwrite, marker=f"{group}.yaml") as tmp:
        if hub_id is None:
            copies = copy_by_content(folder, tmp / DATA, manifest)
            tasks = family_tasks(manifest, group, data, copies)
            shutil.copyfile(UTILS_MODULE, tmp / "utils.py")
        for kind, kind_tasks in tasks.items():
            if not kind_tasks:
                continue
            comment, settings, raw = templates(data)[kind]
            template = f"_{kind}_template_yaml"
            text = dump(settings | {"metadata": metadata}) + raw
            write_text(tmp / template, header(manifest, data, comment) + text)
            for task in kind_tasks:
                if long_rows is not None and kind in LongRows.KEYS:
                    task, count, rows = long_rows.leave_out(task, kind, tmp / DATA, metadata)
                    left_out += count
                    if count == rows:  # the harness cannot run a task of no rows
                        emptied.append(task["task"])
                        continue
                body = dump({"include": template, **task})
                write_text(tmp / f"{task['task']}.yaml", header(manifest, data) + body)
        if long_rows is not None:
            metadata = metadata | {"left_out": long_rows.summary(left_out, emptied)}
        tasks_run = [name for name in names if name not in emptied]
        body = dump({"group": group, "task": tasks_run, "metadata": metadata})
        write_text(tmp / f"{group}.yaml", header(manifest, data) + body)
    return final


@dataclass(frozen=True)
class LongRows:
    """The rows a model cannot read whole: a choice of more tokens than its context (as
    lm-eval's HF model encodes a continuation: the tokenizer's pieces, no special tokens)."""

    model: str
    tokenizer: object
    limit: int

    # per kind of task, the columns that name a row left out (a sentence of perturbed-ud:
    # its reference row goes with it)
    KEYS: ClassVar[dict[str, list[str]]] = {
        "minimal_pair": ["pair_id"],
        "order_pair": ["treebank", "sent_id"],
    }
    TEXTS: ClassVar[dict[str, list[str]]] = {
        "minimal_pair": ["sentence_good", "sentence_bad"],
        "order_pair": ["perturbed_text"],
    }

    @classmethod
    def of(cls, model: str) -> LongRows:
        from transformers import AutoConfig, AutoTokenizer

        from ..lm.models import longest_input, pretrained

        tokenizer = pretrained(AutoTokenizer, model, None)
        return cls(model, tokenizer, longest_input(pretrained(AutoConfig, model, None)))

    def too_long(self, text: str) -> bool:
        return len(self.tokenizer(text, add_special_tokens=False)["input_ids"]) > self.limit

    def leave_out(self, task: dict, kind: str, data: Path, metadata: dict) -> tuple[dict, int, int]:
        """The task with its long rows left out by key, its metadata counting them; how many
        were left out, of how many."""
        import pyarrow.parquet as pq

        columns, keys, rows = self.KEYS[kind], set(), 0
        files = task["dataset_kwargs"]["data_files"][task["test_split"]]
        for name in files:
            table = pq.read_table(data / name, columns=columns + self.TEXTS[kind]).to_pylist()
            rows += len(table)
            for row in table:
                if any(self.too_long(row[text]) for text in self.TEXTS[kind]):
                    keys.add("\t".join(str(row[c]) for c in columns))
        kwargs = task["dataset_kwargs"] | {"leave_out": {"columns": columns, "keys": sorted(keys)}}
        counted = metadata | {"left_out": self.summary(len(keys))}
        return task | {"dataset_kwargs": kwargs, "metadata": counted}, len(keys), rows

    def summary(self, rows: int, emptied: list[str] = ()) -> dict:
        """The count and reason of rows left out; in the group, the tasks left out whole."""
        emptied = {"tasks_left_out_whole": list(emptied)} if emptied else {}
        return {
            "rows": rows,
            "reason": f"a choice longer than the {self.limit} tokens of {self.model}",
        } | emptied
