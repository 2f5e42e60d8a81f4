"""A model's word vectors for a list of sentences, computed once per layer and kept on disk.

A UD word is the mean of its pieces' states, as in the distance task. Each layer's vectors
are one float32 ``.npy`` file (words × hidden), read memory-mapped, with the sentences'
offsets beside it: probes read a training treebank without holding it, or every layer, in
memory (one file of all layers is what ran out of memory in the structural-probes code). A
folder is complete once its ``key.json`` is written, last; a folder of another model,
layer list or sentences is computed again. Without a folder (a chunk of sentences to test
on), the vectors stay in memory.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.lib.format import open_memmap

from ..files import atomic_path, output_folder
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
    return int(lm.model.config.get_text_config().num_hidden_layers) + 1


def word_vectors(
    lm: LanguageModel,
    sentences: list[list[str]],
    layers: list[int],
    folder: Path | None = None,
    *,
    key: dict | None = None,
    kind: str,
    bos: str,
    max_tokens: int,
) -> WordVectors:
    """The vectors of ``layers`` (0: embeddings) for ``sentences``, from ``folder`` when it
    holds those of ``key`` (model, layers, sentences' hash), else computed into it; in
    memory without a folder."""
    if folder is not None:
        key_path = folder / "key.json"
        if key_path.is_file() and json.loads(key_path.read_text(encoding="utf-8")) == key:
            return _opened(folder)
        shutil.rmtree(folder, ignore_errors=True)
        output_folder(folder)
    lengths = np.array([len(words) for words in sentences], dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(lengths)])
    encoded = encode(lm, sentences, kind, bos)
    too_long = np.array([len(ids) > lm.max_length for ids, _ in encoded], dtype=bool)
    shape = (int(offsets[-1]), int(lm.model.config.get_text_config().hidden_size))
    arrays = {
        layer: np.zeros(shape, np.float32)
        if folder is None
        else open_memmap(folder / f"layer{layer}.npy", "w+", np.float32, shape)
        for layer in layers
    }
    batcher = Batcher(lm, max_tokens)
    for start in range(0, len(sentences), SENTENCES_PER_PASS):
        todo = [
            i for i in range(start, min(start + SENTENCES_PER_PASS, len(sentences)))
            if not too_long[i]
        ]  # fmt: skip
        states = batcher.word_states(
            [encoded[i][0] for i in todo], [encoded[i][1] for i in todo], [lengths[i] for i in todo]
        )
        for i, state in zip(todo, states, strict=True):
            for layer, array in arrays.items():
                array[offsets[i] : offsets[i + 1]] = state[layer].numpy()
    if folder is None:
        return WordVectors(arrays, offsets, too_long)
    for array in arrays.values():
        array.flush()
    np.save(folder / "offsets.npy", offsets)
    np.save(folder / "too_long.npy", too_long)
    with atomic_path(key_path) as tmp:
        tmp.write_text(json.dumps(key, sort_keys=True), encoding="utf-8")
    return _opened(folder)


def _opened(folder: Path) -> WordVectors:
    layers = {
        int(path.stem.removeprefix("layer")): np.load(path, mmap_mode="r")
        for path in folder.glob("layer*.npy")
    }
    return WordVectors(layers, np.load(folder / "offsets.npy"), np.load(folder / "too_long.npy"))
