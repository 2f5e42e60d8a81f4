"""Golden outputs: every evaluation task run on a tiny model over a fixed small dataset gives
the metrics stored in ``tests/data/golden/<task>.json`` under the task's version. An output
that changes without a version bump fails here, so a resumed run never mixes the chunks of two
scoring codes under one signature (the signature names the task's version).

After an intended change: bump the task's ``version``, then store the new outputs with
``PERTURBED_UD_WRITE_GOLDEN=1 python -m pytest tests/test_golden_outputs.py``.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from conftest import UD_ROOT
from datasets import Dataset
from tiny_models import bert_classifier

import perturbed_ud
from perturbed_ud.evaluation.reporting.result_files import RUN_COLUMNS
from perturbed_ud.registry import TASKS

GOLDEN = Path(__file__).parent / "data" / "golden"
WRITE = os.environ.get("PERTURBED_UD_WRITE_GOLDEN") == "1"


def _spud(out: Path) -> Path:
    return perturbed_ud.build("spud", out, ud_root=UD_ROOT, langs=["en"], seeds=[1], limit=20)


def _nli(out: Path, tiny_bert: Path) -> Path:
    """A miniature NLI set of UD sentences, as local_structure reads a Hugging Face dataset."""
    from conftest import ud_sentences

    sentences = ud_sentences(13)
    folder = out / "nli" / "data"
    folder.mkdir(parents=True)
    Dataset.from_dict(
        {
            "premise": sentences[:12],
            "hypothesis": sentences[1:],
            "label": [i % 3 for i in range(12)],
        }
    ).to_parquet(folder / "test.parquet")
    return perturbed_ud.build(
        "local_structure", out / "built", hf_dataset=str(out / "nli"), langs=["en"], seeds=[1],
        text_columns=["premise", "hypothesis"], units=["char"],
        rhos=["char_phrase_shuffle=0.5", "char_neighbour_flip=0.5"],
    )  # fmt: skip


# task -> (dataset builder, model fixture, the run's options)
RECIPES = {
    "score": (_spud, "trained_gpt2", {}),
    "probe": (
        _spud,
        "tiny_bert",
        {
            "layers": "-1",
            "ud_root": str(UD_ROOT),
            "train_split": "dev",
            "dev_split": "dev",
            "epochs": 2,
            "probe_seeds": "1",
            "resamples": 100,
        },
    ),  # fmt: skip
    "masked-word": (
        lambda out: perturbed_ud.build(
            "perturbed-ud", out, ud_root=UD_ROOT, langs=["en"], seeds=[1], limit=40
        ),
        "trained_bert",
        {},
    ),
    "minimal-pair": (
        lambda out: perturbed_ud.build(
            "ud_agreement", out, ud_root=UD_ROOT, langs=["en"], split="test", limit=300
        ),
        "trained_gpt2",
        {},
    ),
    "distance": (
        lambda out: perturbed_ud.build(
            "substitution",
            out,
            ud_root=UD_ROOT,
            langs=["en"],
            seeds=[1],
            taus=[1],
            copies=1,
            limit=10,
            methods=["copos_treebank"],
        ),  # fmt: skip
        "tiny_bert",
        {},
    ),
    "classify": (None, None, {"text_columns": ["premise", "hypothesis"]}),
}


def test_every_task_has_a_golden_recipe():
    assert sorted(RECIPES) == sorted(TASKS.short_names())


def _rounded(value):
    """Numbers to 6 significant digits (CPU kernels differ in the last bits), paths out."""
    if isinstance(value, dict):
        return {k: _rounded(v) for k, v in value.items() if k not in ("model_name", "run_model")}
    if isinstance(value, list):
        return [_rounded(v) for v in value]
    if isinstance(value, float) and math.isfinite(value) and value != 0:
        return float(f"{value:.6g}")
    return value


def _outputs(run: Path, results: dict) -> dict:
    """What a task's version vouches for: its metrics, counts and the columns of its tables."""
    tables = {
        path.relative_to(run).as_posix(): pq.read_schema(path).names
        for path in sorted(run.glob("*.parquet"))
    }
    return _rounded({"metrics": results["metrics"], "counts": results.get("counts"),
                     "tables": tables})  # fmt: skip


def _check_key_columns(task: str, results: dict) -> None:
    """The task's key columns are recorded, and every text of its metrics rows is one of them,
    says whose row it is or names a column's interval: a condition left undeclared would
    merge rows in `report`."""
    keys = TASKS.get(task).key_columns
    assert results["key_columns"] == list(keys)
    tables = {name: rows for name, rows in results["metrics"].items() if isinstance(rows, list)}
    for table, rows in tables.items():
        for row in (r for r in rows if isinstance(r, dict)):
            texts = {k for k, v in row.items() if isinstance(v, str)}
            named = {*keys, *RUN_COLUMNS, *(f"{c}_interval" for c in row)}
            assert texts <= named, (task, table, texts - named)


@pytest.mark.parametrize("task", sorted(RECIPES))
def test_outputs_change_only_with_the_version(task, request, tmp_path, tiny_bert):
    make, model_fixture, options = RECIPES[task]
    if task == "classify":
        dataset = _nli(tmp_path / "data", tiny_bert)
        model = bert_classifier(tiny_bert, tmp_path / "classifier", initializer_range=0.5)
    else:
        dataset, model = make(tmp_path / "data"), request.getfixturevalue(model_fixture)
    run = tmp_path / "run"
    results = perturbed_ud.evaluate(task, dataset=str(dataset), model=str(model), out=run,
                                    **options)  # fmt: skip
    _check_key_columns(task, results)
    version = TASKS.get(task).version
    found = {"task": task, "version": version, **_outputs(run, results)}
    path = GOLDEN / f"{task}.json"
    if WRITE:
        path.write_text(json.dumps(found, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    stored = json.loads(path.read_text(encoding="utf-8"))
    assert stored["version"] == version, (
        f"{task} is version {version}, its golden outputs are of {stored['version']}: store "
        "the new outputs (this module's docstring says how)"
    )
    assert found == stored, (
        f"{task}'s outputs changed, its version ({version}) did not: bump its version "
        "and store the new outputs (this module's docstring says how)"
    )
