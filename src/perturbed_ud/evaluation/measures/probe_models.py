"""Probes on frozen word vectors, and how they are trained.

Each probe is a linear map of one word vector at a time (a sentence is never flattened):

- ``distance`` (Hewitt & Manning 2019): B (hidden → rank); the predicted distance of two
  words is ‖B(h_i − h_j)‖², trained with L1 against tree distances, divided by length²;
- ``depth``: ‖B h_i‖² against the depth in the tree, L1 divided by length;
- ``pos``: a linear classifier over the 17 UPOS tags;
- ``root``: a linear score per word, a softmax over the sentence's words;
- ``depprobe`` (Müller-Eberstein et al. 2022): a bias-free B (hidden → 128) for squared
  distances and a bias-free L (hidden → the 37 base relations), L1 / length² plus cross
  entropy.

Training: Adam (AdamW for DepProbe, as its code) at lr 1e-3, `ReduceLROnPlateau(0.1,
patience 0)` on the development loss, stopped after ``patience`` epochs without a better
development loss, and the best epoch's weights kept. A seed fixes the initial weights and the
order of the batches.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
from torch import nn

from ...files import atomic_path, output_folder
from .probe_labels import BASE_RELATIONS, UPOS_TAGS, base_relation, root_word, tree_distances

PROBES = ("distance", "depth", "pos", "root", "depprobe")
IGNORED = -100  # the label of padding, which cross entropy skips


@dataclass
class Gold:
    """A sentence's labels: tree distances, depths, UPOS and base relation ids, root."""

    distances: np.ndarray
    depths: np.ndarray
    upos: np.ndarray
    relations: np.ndarray
    root: int

    @classmethod
    def of(cls, heads, upos, deprels) -> Gold:
        """From a UD tree; a ValueError where the heads make none."""
        return cls.from_distances(tree_distances(heads), root_word(heads), upos, deprels)

    @classmethod
    def from_distances(cls, distances: np.ndarray, root: int, upos, deprels) -> Gold:
        return cls(
            distances,
            distances[root],
            np.array([UPOS_TAGS.index(u) if u in UPOS_TAGS else IGNORED for u in upos]),
            np.array([_relation_id(d) for d in deprels]),
            root,
        )


def _relation_id(deprel: str) -> int:
    relation = base_relation(deprel)
    return BASE_RELATIONS.index(relation) if relation in BASE_RELATIONS else IGNORED


@dataclass
class Batch:
    vectors: torch.Tensor  # sentences × words × hidden, zeros after each sentence's end
    mask: torch.Tensor  # sentences × words
    lengths: torch.Tensor
    gold: list[Gold]

    def padded(self, field: str, fill) -> torch.Tensor:
        """A gold field padded to the batch's longest sentence."""
        n = self.mask.shape[1]
        out = []
        for gold in self.gold:
            value = torch.as_tensor(getattr(gold, field))
            pad = [0, n - value.shape[-1]] * value.dim()
            out.append(nn.functional.pad(value, pad, value=fill))
        return torch.stack(out).to(self.vectors.device)


def make_batch(vectors: np.ndarray, offsets, sentences: list[int], gold: list[Gold], device):
    lengths = [int(offsets[i + 1] - offsets[i]) for i in sentences]
    width = vectors.shape[1]
    data = torch.zeros(len(sentences), max(lengths), width)
    for row, (i, n) in enumerate(zip(sentences, lengths, strict=True)):
        data[row, :n] = torch.from_numpy(np.array(vectors[offsets[i] : offsets[i] + n]))
    lengths_t = torch.tensor(lengths)
    mask = torch.arange(max(lengths))[None, :] < lengths_t[:, None]
    return Batch(data.to(device), mask.to(device), lengths_t.to(device), gold)


def squared_distances(projected: torch.Tensor) -> torch.Tensor:
    """‖p_i − p_j‖² for every pair of words, as ‖p_i‖² + ‖p_j‖² − 2 p_i·p_j: a matrix product
    instead of a sentences × words × words × rank tensor of differences (and its gradient);
    rounding below zero is cut to zero."""
    norms = (projected**2).sum(-1)
    gram = projected @ projected.transpose(-1, -2)
    return (norms[:, :, None] + norms[:, None, :] - 2 * gram).clamp_min(0)


def _uniform(rows: int, columns: int) -> nn.Parameter:
    """B initialised U(−0.05, 0.05), as the structural-probes code does."""
    return nn.Parameter(torch.empty(rows, columns).uniform_(-0.05, 0.05))


def _distance_loss(predicted, batch: Batch) -> torch.Tensor:
    gold = batch.padded("distances", 0).float()
    cells = batch.mask[:, :, None] & batch.mask[:, None, :]
    per_sentence = ((predicted - gold).abs() * cells).sum((1, 2)) / batch.lengths.float() ** 2
    return per_sentence.mean()


class DistanceProbe(nn.Module):
    def __init__(self, hidden: int, rank: int):
        super().__init__()
        self.proj = _uniform(hidden, rank)

    def forward(self, batch: Batch) -> torch.Tensor:
        return squared_distances(batch.vectors @ self.proj)

    def loss(self, batch: Batch) -> torch.Tensor:
        return _distance_loss(self(batch), batch)

    @staticmethod
    def cut(output, row: int, n: int) -> np.ndarray:
        return output[row, :n, :n].cpu().numpy()


class WordProbe(nn.Module):
    """A probe with one output (a value or a score vector) per word."""

    @staticmethod
    def cut(output, row: int, n: int) -> np.ndarray:
        return output[row, :n].cpu().numpy()


class DepthProbe(WordProbe):
    def __init__(self, hidden: int, rank: int):
        super().__init__()
        self.proj = _uniform(hidden, rank)

    def forward(self, batch: Batch) -> torch.Tensor:
        return ((batch.vectors @ self.proj) ** 2).sum(-1)

    def loss(self, batch: Batch) -> torch.Tensor:
        gold = batch.padded("depths", 0).float()
        per_sentence = ((self(batch) - gold).abs() * batch.mask).sum(1) / batch.lengths.float()
        return per_sentence.mean()


class PosProbe(WordProbe):
    def __init__(self, hidden: int, rank: int):
        super().__init__()
        self.linear = nn.Linear(hidden, len(UPOS_TAGS))

    def forward(self, batch: Batch) -> torch.Tensor:
        return self.linear(batch.vectors)

    def loss(self, batch: Batch) -> torch.Tensor:
        labels = batch.padded("upos", IGNORED)
        return nn.functional.cross_entropy(self(batch).flatten(0, 1), labels.flatten())


class RootProbe(WordProbe):
    def __init__(self, hidden: int, rank: int):
        super().__init__()
        self.linear = nn.Linear(hidden, 1)

    def forward(self, batch: Batch) -> torch.Tensor:
        scores = self.linear(batch.vectors).squeeze(-1)
        return scores.masked_fill(~batch.mask, float("-inf"))

    def loss(self, batch: Batch) -> torch.Tensor:
        roots = torch.tensor([g.root for g in batch.gold], device=batch.vectors.device)
        return nn.functional.cross_entropy(self(batch), roots)


class DepProbe(nn.Module):
    def __init__(self, hidden: int, rank: int = 128):
        super().__init__()
        self.structure = nn.Linear(hidden, rank, bias=False)
        self.relations = nn.Linear(hidden, len(BASE_RELATIONS), bias=False)

    def forward(self, batch: Batch) -> tuple[torch.Tensor, torch.Tensor]:
        distances = squared_distances(self.structure(batch.vectors))
        return distances, torch.log_softmax(self.relations(batch.vectors), dim=-1)

    def loss(self, batch: Batch) -> torch.Tensor:
        distances, relations = self(batch)
        labels = batch.padded("relations", IGNORED)
        relation_loss = nn.functional.nll_loss(relations.flatten(0, 1), labels.flatten())
        return _distance_loss(distances, batch) + relation_loss

    @staticmethod
    def cut(output, row: int, n: int) -> tuple[np.ndarray, np.ndarray]:
        distances, relations = output
        return distances[row, :n, :n].cpu().numpy(), relations[row, :n].cpu().numpy()


PROBE_CLASSES = {
    "distance": DistanceProbe,
    "depth": DepthProbe,
    "pos": PosProbe,
    "root": RootProbe,
    "depprobe": DepProbe,
}


@dataclass(frozen=True)
class Training:
    epochs: int = 30
    patience: int = 3  # epochs without a better development loss before stopping
    batch_size: int = 32  # sentences
    learning_rate: float = 1e-3
    rank: int = 128


@dataclass
class ProbeData:
    """One layer's word vectors of a sentence list, with their labels."""

    vectors: np.ndarray
    offsets: np.ndarray
    gold: list[Gold]
    sentences: list[int]  # the usable ones (a tree, within the model's input)

    def batches(self, size: int, device, order: list[int] | None = None):
        order = self.sentences if order is None else order
        for start in range(0, len(order), size):
            chosen = order[start : start + size]
            gold = [self.gold[i] for i in chosen]
            yield chosen, make_batch(self.vectors, self.offsets, chosen, gold, device)


def _dev_loss(probe: nn.Module, dev: ProbeData, training: Training, device) -> float:
    probe.eval()
    total, count = 0.0, 0
    with torch.no_grad():
        for chosen, batch in dev.batches(training.batch_size, device):
            total += float(probe.loss(batch)) * len(chosen)
            count += len(chosen)
    return total / max(count, 1)


def train_probe(
    name: str, train: ProbeData, dev: ProbeData, training: Training, seed: int, device
) -> tuple[nn.Module, dict]:
    """A probe trained on ``train``, its best epoch by the loss on ``dev``; and a record of
    the training (epochs run, best epoch, its development loss)."""
    torch.manual_seed(seed)
    probe = PROBE_CLASSES[name](train.vectors.shape[1], training.rank).to(device)
    optimiser_class = torch.optim.AdamW if name == "depprobe" else torch.optim.Adam
    optimiser = optimiser_class(probe.parameters(), lr=training.learning_rate)
    schedule = torch.optim.lr_scheduler.ReduceLROnPlateau(optimiser, factor=0.1, patience=0)
    order_rng = np.random.default_rng(seed)
    best, best_state, best_epoch, epochs = float("inf"), None, 0, 0
    for epoch in range(1, training.epochs + 1):
        probe.train()
        order = list(order_rng.permutation(train.sentences))
        for _, batch in train.batches(training.batch_size, device, order):
            optimiser.zero_grad()
            probe.loss(batch).backward()
            optimiser.step()
        loss = _dev_loss(probe, dev, training, device)
        schedule.step(loss)
        epochs = epoch
        if loss < best:
            best, best_epoch = loss, epoch
            best_state = {k: v.detach().clone() for k, v in probe.state_dict().items()}
        elif epoch - best_epoch >= training.patience:
            break
    probe.load_state_dict(best_state)
    probe.eval()
    return probe, {"epochs": epochs, "best_epoch": best_epoch, "dev_loss": best}


def save_probe(path: Path, probe: nn.Module, record: dict) -> None:
    """A trained probe's weights and its training record, written whole or not at all."""
    output_folder(path.parent)
    with atomic_path(path) as tmp:
        torch.save({"weights": probe.state_dict(), "training": record}, tmp)


def load_probe(path: Path, name: str, hidden: int, rank: int, device) -> tuple[nn.Module, dict]:
    """The probe `save_probe` wrote, ready to predict, and its training record."""
    saved = torch.load(path, map_location=device, weights_only=True)
    with torch.device("meta"):  # no initial weights: the saved ones replace them
        probe = PROBE_CLASSES[name](hidden, rank)
    probe.load_state_dict(saved["weights"], assign=True)
    return probe.eval(), saved["training"]


def predictions(probe: nn.Module, data: ProbeData, batch_size: int, device):
    """(sentence, the probe's output for it as numpy, cut to its length), for each usable
    sentence in order: a distance matrix, depths, tag or root scores, or DepProbe's
    distances and relation log-probabilities."""
    with torch.no_grad():
        for chosen, batch in data.batches(batch_size, device):
            output = probe(batch)
            for row, (i, n) in enumerate(zip(chosen, batch.lengths.tolist(), strict=True)):
                yield i, probe.cut(output, row, n)
