"""Shared test fixtures: the real UD treebanks and reference outputs beside the repository."""

from __future__ import annotations

import os
from pathlib import Path

# Read by huggingface_hub and datasets at import time, so set before anything imports them.
os.environ["HF_HUB_OFFLINE"] = "1"

import pytest  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("PERTURBED_UD_SHARED", REPO.parent / "shared"))
UD_ROOT = SHARED / "ud"
REFERENCE = SHARED / "reference"
CLAMS_REFERENCE = REFERENCE / "clams"

# The seven constructions of the CLAMS paper, as grammar file (= split) names.
CONSTRUCTIONS = [
    "long_vp_coord",
    "obj_rel_across_anim",
    "obj_rel_within_anim",
    "prep_anim",
    "simple_agrmt",
    "subj_rel",
    "vp_coord",
]

needs_shared = pytest.mark.skipif(not UD_ROOT.is_dir(), reason="../shared/ud is not available")


@pytest.fixture(autouse=True)
def _offline_hub(monkeypatch, tmp_path):
    """No test may touch the user's treebank cache or UD root."""
    monkeypatch.setenv("PERTURBED_UD_CACHE", str(tmp_path / "perturbed-ud-cache"))
    monkeypatch.delenv("PERTURBED_UD_ROOT", raising=False)


@pytest.fixture(scope="session")
def tiny_bert(tmp_path_factory):
    from tiny_models import wordpiece_bert

    return wordpiece_bert(UD_ROOT, tmp_path_factory.mktemp("tiny-bert"))


@pytest.fixture(scope="session")
def tiny_xlmr(tmp_path_factory):
    from tiny_models import unigram_xlmr

    return unigram_xlmr(UD_ROOT, tmp_path_factory.mktemp("tiny-xlmr"))


@pytest.fixture(scope="session")
def tiny_gpt2(tmp_path_factory):
    from tiny_models import byte_level_gpt2

    return byte_level_gpt2(UD_ROOT, tmp_path_factory.mktemp("tiny-gpt2"))
