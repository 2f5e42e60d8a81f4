"""Write the models the tests load, under ``tests/data/models/``.

Two kinds, each a folder that ``from_pretrained(path)`` loads as it would a Hub checkpoint:

- **random** (``tiny-bert``, ``tiny-xlmr``, ``tiny-gpt2``, and ``tiny-bert-zh-fr-he``,
  ``tiny-xlmr-zh-fr-he`` whose vocabularies also know Chinese, French and Hebrew): seeded
  random weights with tokenizers trained on the UD excerpts in ``tests/data/ud``. They test
  mechanics (batching, padding, agreement with peers), where what the model knows is
  irrelevant.
- **trained** (``trained-bert``, ``trained-gpt2``): a small masked LM and a small causal LM
  trained on the English UD text of the repository (the EWT excerpts in ``tests/data/ud`` and
  the packaged English PUD sample), so that tests can check that statistics move the way the
  papers report: a scramble costs accuracy, a nonce sentence is less probable.

The folders are committed, because the `tokenizers` trainers do not give the same vocabulary
in every process: every test process must see the same model. Rerunning this script writes new
folders (other vocabularies, other weights); commit them together with any test whose expected
values they change. CPU only, about five minutes on two cores::

    python scripts/make_test_models.py            # all
    python scripts/make_test_models.py --only trained
"""

from __future__ import annotations

import argparse
import json
import math
import random
import shutil
import sys
import time
from pathlib import Path

import torch

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

from tiny_models import (  # noqa: E402
    TRAINING_FILES,
    byte_level_gpt2,
    byte_level_tokenizer,
    unigram_xlmr,
    wordpiece_bert,
    wordpiece_tokenizer,
)

from perturbed_ud.ud.conllu_io import read_conllu  # noqa: E402
from perturbed_ud.ud.sources import sample_root  # noqa: E402

UD_ROOT = REPO / "tests" / "data" / "ud"
MODELS = REPO / "tests" / "data" / "models"
MULTILINGUAL_FILES = [
    "UD_Chinese-GSD/zh_gsd-ud-test.conllu",
    "UD_French-GSD/fr_gsd-ud-test.conllu",
    "UD_Hebrew-IAHLTwiki/he_iahltwiki-ud-test.conllu",
]
ENGLISH_FILES = [
    UD_ROOT / "UD_English-EWT" / "en_ewt-ud-dev.conllu",
    UD_ROOT / "UD_English-EWT" / "en_ewt-ud-test.conllu",
]
SEED = 0
# Per kind: small enough to commit (a few MB) and to train on one CPU core in minutes; the
# masked LM's vocabulary is larger so that most words are one piece.
SETTINGS = {
    "masked": {
        "hidden": 128, "layers": 2, "heads": 4, "intermediate": 256, "vocab": 4000,
        "steps": 6000, "batch_size": 32, "learning_rate": 3e-3, "warmup": 300, "mask": 0.2,
    },
    "causal": {
        "hidden": 128, "layers": 2, "heads": 4, "intermediate": 256, "vocab": 2000,
        "steps": 5000, "batch_size": 32, "learning_rate": 3e-3, "warmup": 300,
    },
}  # fmt: skip


def english_sentences() -> list[list[str]]:
    """The UD words of every English sentence in the repository, each sentence once (the
    EWT excerpts and the packaged PUD sample; the PUD excerpt in tests/data is part of it)."""
    files = [*ENGLISH_FILES, sample_root() / "UD_English-PUD" / "en_pud-ud-test.conllu.xz"]
    return [s.forms for path in files for s in read_conllu(path)]


def random_models() -> None:
    for name, make, files in (
        ("tiny-bert", wordpiece_bert, TRAINING_FILES),
        ("tiny-xlmr", unigram_xlmr, TRAINING_FILES),
        ("tiny-bert-zh-fr-he", wordpiece_bert, TRAINING_FILES + MULTILINGUAL_FILES),
        ("tiny-xlmr-zh-fr-he", unigram_xlmr, TRAINING_FILES + MULTILINGUAL_FILES),
    ):
        fresh(MODELS / name)
        make(UD_ROOT, MODELS / name, files)
    fresh(MODELS / "tiny-gpt2")
    byte_level_gpt2(UD_ROOT, MODELS / "tiny-gpt2")


def fresh(folder: Path) -> None:
    shutil.rmtree(folder, ignore_errors=True)


def whole_word_masks(word_ids: list[int | None], generator: random.Random) -> list[bool]:
    """A share of the words, every piece of each: the masked-word task masks whole words."""
    words = sorted({w for w in word_ids if w is not None})
    share = SETTINGS["masked"]["mask"]
    chosen = set(generator.sample(words, max(1, round(share * len(words))))) if words else set()
    return [w in chosen for w in word_ids]


def masked_batch(encodings, tokenizer, generator: random.Random):
    """Inputs and labels of one masked-LM batch: chosen pieces become [MASK] (80 %), a random
    piece (10 %) or stay (10 %); only they are predicted."""
    length = max(len(e.ids) for e in encodings)
    ids = torch.full((len(encodings), length), tokenizer.pad_token_id)
    labels = torch.full_like(ids, -100)
    for row, e in enumerate(encodings):
        for col, (piece, masked) in enumerate(
            zip(e.ids, whole_word_masks(e.word_ids, generator), strict=True)
        ):
            ids[row, col] = piece
            if masked:
                labels[row, col] = piece
                draw = generator.random()
                if draw < 0.8:
                    ids[row, col] = tokenizer.mask_token_id
                elif draw < 0.9:
                    ids[row, col] = generator.randrange(
                        len(tokenizer.all_special_ids), len(tokenizer)
                    )
    return {
        "input_ids": ids,
        "attention_mask": (ids != tokenizer.pad_token_id).long(),
        "labels": labels,
    }


def causal_batch(encodings, tokenizer, generator: random.Random):
    """Inputs and labels of one causal-LM batch: every piece after the BOS is predicted."""
    length = max(len(e) for e in encodings)
    ids = torch.full((len(encodings), length), tokenizer.pad_token_id)
    labels = torch.full_like(ids, -100)
    mask = torch.zeros_like(ids)
    for row, e in enumerate(encodings):
        ids[row, : len(e)] = torch.tensor(e)
        labels[row, 1 : len(e)] = torch.tensor(e[1:])
        mask[row, : len(e)] = 1
    return {"input_ids": ids, "attention_mask": mask, "labels": labels}


def masked_loss(model, batch) -> torch.Tensor:
    """Cross entropy at the chosen pieces only: the prediction head runs on them alone."""
    hidden = model.bert(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"])
    chosen = batch["labels"] != -100
    logits = model.cls(hidden.last_hidden_state[chosen])
    return torch.nn.functional.cross_entropy(logits, batch["labels"][chosen])


def causal_loss(model, batch) -> torch.Tensor:
    return model(**batch).loss


def train(model, examples, make_batch, loss_of, tokenizer, folder: Path, record: dict) -> None:
    """AdamW with linear warm-up and cosine decay over random batches of the sentences."""
    generator = random.Random(SEED)
    torch.manual_seed(SEED)
    steps, size, warmup = record["steps"], record["batch_size"], record["warmup"]
    optimiser = torch.optim.AdamW(model.parameters(), lr=record["learning_rate"], weight_decay=0.01)

    def rate(step: int) -> float:
        if step < warmup:
            return (step + 1) / warmup
        done = (step - warmup) / (steps - warmup)
        return 0.5 * (1 + math.cos(math.pi * done))

    schedule = torch.optim.lr_scheduler.LambdaLR(optimiser, rate)
    model.train()
    batches: list[list[int]] = []
    started = time.monotonic()
    for step in range(steps):
        if not batches:
            batches = length_batches(examples, size, generator)
        batch = make_batch([examples[i] for i in batches.pop()], tokenizer, generator)
        loss = loss_of(model, batch)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimiser.step()
        schedule.step()
        optimiser.zero_grad()
        if step % 250 == 0 or step == steps - 1:
            record["log"].append({"step": step, "loss": round(loss.item(), 4)})
            print(f"step {step:5d}  loss {loss.item():.3f}  {time.monotonic() - started:.0f} s")
            save(model, tokenizer, folder, record)  # a run cut short leaves a usable model
    model.eval()


def length_batches(examples, size: int, generator: random.Random) -> list[list[int]]:
    """One epoch of batches, each of sentences of about the same length (little padding),
    in random order."""
    order = list(range(len(examples)))
    generator.shuffle(order)
    batches = []
    for start in range(0, len(order), 20 * size):
        pool = sorted(order[start : start + 20 * size], key=lambda i: len(examples[i]))
        batches += [pool[k : k + size] for k in range(0, len(pool), size)]
    generator.shuffle(batches)
    return batches


def trained_models(which: str) -> None:
    from transformers import BertConfig, BertForMaskedLM, GPT2Config, GPT2LMHeadModel

    sentences = english_sentences()
    text = [" ".join(words) for words in sentences]
    shape = SETTINGS[which]
    record = {"sentences": len(sentences), "seed": SEED, **shape, "log": []}
    torch.manual_seed(SEED)
    if which == "masked":
        tokenizer = wordpiece_tokenizer(text, shape["vocab"])
        model = BertForMaskedLM(
            BertConfig(
                vocab_size=len(tokenizer), hidden_size=shape["hidden"],
                num_hidden_layers=shape["layers"], num_attention_heads=shape["heads"],
                intermediate_size=shape["intermediate"], max_position_embeddings=256,
                pad_token_id=tokenizer.pad_token_id,
            )
        )  # fmt: skip
        examples = tokenizer(text, truncation=True, max_length=256).encodings
        train(model, examples, masked_batch, masked_loss, tokenizer, MODELS / "trained-bert",
              record)  # fmt: skip
    else:
        tokenizer = byte_level_tokenizer(text, shape["vocab"])
        model = GPT2LMHeadModel(
            GPT2Config(
                vocab_size=len(tokenizer), n_embd=shape["hidden"], n_layer=shape["layers"],
                n_head=shape["heads"], n_inner=shape["intermediate"], n_positions=256,
                bos_token_id=tokenizer.bos_token_id, eos_token_id=tokenizer.eos_token_id,
            )
        )  # fmt: skip
        bos = tokenizer.bos_token_id
        examples = [[bos, *tokenizer(t, add_special_tokens=False).input_ids][:256] for t in text]
        train(model, examples, causal_batch, causal_loss, tokenizer, MODELS / "trained-gpt2",
              record)  # fmt: skip


def save(model, tokenizer, folder: Path, record: dict) -> None:
    fresh(folder)
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    (folder / "training.json").write_text(json.dumps(record, indent=1) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", choices=["random", "masked", "causal"])
    args = parser.parse_args()
    # One thread: on two shared cores, two threads per process mostly wait for each other.
    torch.set_num_threads(1)
    if args.only in (None, "random"):
        random_models()
    for which in ("masked", "causal"):
        if args.only in (None, which):
            trained_models(which)


if __name__ == "__main__":
    main()
