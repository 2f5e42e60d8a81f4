"""A model's word vectors for a list of sentences, computed once per layer and kept on disk.

A UD word is the mean of its pieces' states, as in the distance task. Each layer's vectors
are one float32 ``.npy`` file (words × hidden), read memory-mapped, with the sentences'
offsets beside it: probes read a training treebank without holding it, or every layer, in
memory (one file of all layers is what ran out of memory in the structural-probes code). A
folder is written under a temporary name and renamed into place once complete, with the
``key.json`` it was computed for; a folder of another model, layer list or sentences is
computed again. Without a folder (a chunk of sentences to test on), the vectors stay in
memory.
"""

from __future__ import annotations

import glob
import json
import os
import shutil
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.lib.format import dtype_to_descr, write_array_header_1_0

from ..errors import OutputError
from .batching import Batcher
from .encodings import encode
from .models import LanguageModel

SENTENCES_PER_PASS = 256  # sentences whose states are gathered before they are written


@dataclass
class WordVectors:
    layers: dict[int, np.ndarray]  # words × hidden per layer, memory-mapped from a folder
    offsets: np.ndarray  # sentence i's words are rows offsets[i]:offsets[i + 1]
    too_long: np.ndarray  # sentences longer than the model's input: zeros, never used

    def layer(self, layer: int) -> np.ndarray:
        return self.layers[layer]


def hidden_layers(lm: LanguageModel) -> int:
    """How many hidden states a forward pass gives: the embeddings and each layer."""
    return hidden_states_of(lm.model.config)


def hidden_states_of(config) -> int:
    """`hidden_layers` from a model's config alone, before its weights are read."""
    return int(config.get_text_config().num_hidden_layers) + 1


def word_vectors(
    lm: LanguageModel,
    sentences: list[list[str]],
    layers: list[int],
    folder: Path | None = None,
    *,
    key: dict | None = None,
    kind: str,
    bos: str,
    max_tokens: int | str,
) -> WordVectors:
    """The vectors of ``layers`` (0: embeddings) for ``sentences``, from ``folder`` when it
    holds those of ``key`` (model, layers, sentences' hash), else computed into it; in
    memory without a folder."""
    if folder is not None and _key(folder) == key:
        return _opened(folder)
    lengths = np.array([len(words) for words in sentences], dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(lengths)])
    encoded = encode(lm, sentences, kind, bos)
    too_long = np.array([len(ids) > lm.max_length for ids, _ in encoded], dtype=bool)
    hidden = int(lm.model.config.get_text_config().hidden_size)
    passes = _passes(Batcher(lm, max_tokens), encoded, offsets, too_long, layers, hidden)
    if folder is None:
        blocks = list(passes)
        empty = np.zeros((0, hidden), np.float32)
        arrays = {layer: np.concatenate([empty, *(b[layer] for b in blocks)]) for layer in layers}
        return WordVectors(arrays, offsets, too_long)
    _write(folder, key, passes, layers, (int(offsets[-1]), hidden), offsets, too_long)
    return _opened(folder)


def _passes(
    batcher: Batcher, encoded: list, offsets: np.ndarray, too_long: np.ndarray, layers: list[int],
    hidden: int,
) -> Iterator[dict[int, np.ndarray]]:  # fmt: skip
    """Per pass of `SENTENCES_PER_PASS` sentences, each layer's rows for their words in
    order (zeros for a sentence too long for the model)."""
    for start in range(0, len(encoded), SENTENCES_PER_PASS):
        stop = min(start + SENTENCES_PER_PASS, len(encoded))
        todo = [i for i in range(start, stop) if not too_long[i]]
        states = batcher.word_states(
            [encoded[i][0] for i in todo], [encoded[i][1] for i in todo],
            [offsets[i + 1] - offsets[i] for i in todo],
        )  # fmt: skip
        words = offsets[stop] - offsets[start]
        blocks = {layer: np.zeros((words, hidden), np.float32) for layer in layers}
        for i, state in zip(todo, states, strict=True):
            rows = slice(offsets[i] - offsets[start], offsets[i + 1] - offsets[start])
            for layer, block in blocks.items():
                block[rows] = state[layer].numpy()
        yield blocks


def _write(folder: Path, key, passes, layers: list[int], shape: tuple, offsets, too_long) -> None:
    """The vectors written into ``folder`` whole or not at all: into a temporary folder
    beside it, renamed into place once complete and on disk, so a killed run leaves nothing
    a later run reads (and what killed runs left is removed first). Each layer is written
    with ordinary writes, not through a memory map: a full disk or a file-size limit is then
    an `OutputError`, where a write through a map of a sparse file is a bus error."""
    for left in folder.parent.glob(f".{glob.escape(folder.name)}.*.partial"):
        shutil.rmtree(left, ignore_errors=True)
    partial = folder.with_name(f".{folder.name}.{os.getpid()}.partial")
    header = {"descr": dtype_to_descr(np.dtype(np.float32)), "fortran_order": False,
              "shape": shape}  # fmt: skip
    try:
        partial.mkdir(parents=True)
        with ExitStack() as stack:
            files = {layer: stack.enter_context(open(partial / f"layer{layer}.npy", "wb"))
                     for layer in layers}  # fmt: skip
            for file in files.values():
                write_array_header_1_0(file, header)
            for blocks in passes:
                for layer, block in blocks.items():
                    files[layer].write(block.data)
        np.save(partial / "offsets.npy", offsets)
        np.save(partial / "too_long.npy", too_long)
        (partial / "key.json").write_text(json.dumps(key, sort_keys=True), encoding="utf-8")
        for path in partial.iterdir():
            with open(path, "rb") as written:
                os.fsync(written.fileno())
        shutil.rmtree(folder, ignore_errors=True)
        os.replace(partial, folder)
    except OSError as err:
        raise OutputError(f"cannot write {folder}: {err.strerror or err}") from err
    finally:
        shutil.rmtree(partial, ignore_errors=True)


def _key(folder: Path) -> dict | None:
    """The key the vectors in ``folder`` were computed for; None where there are none."""
    try:
        return json.loads((folder / "key.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _opened(folder: Path) -> WordVectors:
    layers = {
        int(path.stem.removeprefix("layer")): np.load(path, mmap_mode="r")
        for path in folder.glob("layer*.npy")
    }
    return WordVectors(layers, np.load(folder / "offsets.npy"), np.load(folder / "too_long.npy"))
