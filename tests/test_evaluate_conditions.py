"""Evaluation reads its conditions from the dataset: the build.json table decides the released
names, the effects and the figure labels; without one, the default word-order table."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from conftest import UD_ROOT

from perturbed_ud.builders.engine import build
from perturbed_ud.builders.perturbed_ud import SCRAMBLES, conditions_table
from perturbed_ud.cli import main
from perturbed_ud.data.conditions import DEFAULT_CONDITIONS, Conditions, dataset_conditions
from perturbed_ud.errors import InputError
from perturbed_ud.evaluation.tasks.masked_word import figures as plots
from perturbed_ud.evaluation.tasks.masked_word.figures import interaction_labels, sensitivity_labels
from perturbed_ud.evaluation.tasks.masked_word.items import ITEM_COLUMNS
from perturbed_ud.evaluation.tasks.masked_word.statistics import (
    effect_names,
    effects,
    effects_table,
)
from perturbed_ud.evaluation.tasks.masked_word.summarize import summarize
from perturbed_ud.evaluation.tasks.masked_word.task import MaskedWord, MaskedWordSettings
from perturbed_ud.ud.selection import Selection
from perturbed_ud.ud.sources import resolve

REVERSED = {
    "full": {"order": "rev", "lemma": False, "released": "Reversed", "label": "Rev"},
    "full_lemma": {"order": "rev", "lemma": True, "released": "Reversed+Lemma", "label": "Rev+L"},
}


@pytest.fixture(scope="module")
def full_head(tmp_path_factory):
    """A build with the full and head scrambles only."""
    treebanks = resolve(["en"], split="test", ud_root=str(UD_ROOT))
    out = tmp_path_factory.mktemp("data")
    return build(
        "perturbed-ud", out, treebanks=treebanks, seeds=[1], scrambles=("full", "head"),
        selection=Selection(limit=30),
    )  # fmt: skip


@pytest.fixture(scope="module")
def reversed_copy(full_head, tmp_path_factory):
    """The build copied, its ``full`` splits declared as a new scramble ``rev``."""
    copy = shutil.copytree(full_head, tmp_path_factory.mktemp("copy") / "perturbed-ud")
    manifest = json.loads((copy / "build.json").read_text())
    manifest["conditions"] |= REVERSED
    (copy / "build.json").write_text(json.dumps(manifest))
    return copy


def test_the_default_table_is_the_builders_in_the_papers_column_order():
    assert Conditions.from_table(conditions_table(SCRAMBLES)) == DEFAULT_CONDITIONS
    assert DEFAULT_CONDITIONS.scrambles == ("full", "part", "head")
    assert list(DEFAULT_CONDITIONS.labels.values()) == [
        "Orig", "Full", "Part", "Head", "Orig+L", "Full+L", "Part+L", "Head+L",
    ]  # fmt: skip
    assert DEFAULT_CONDITIONS.released_name("head_lemma") == "HeadScrambled+Lemma"
    with pytest.raises(InputError, match="unknown split"):
        DEFAULT_CONDITIONS.released_name("rev")


def test_the_default_table_serves_folders_without_a_conditions_table(tmp_path):
    assert dataset_conditions("someone/perturbed-ud") is DEFAULT_CONDITIONS  # a Hub id
    assert dataset_conditions(tmp_path) is DEFAULT_CONDITIONS  # no build.json
    (tmp_path / "build.json").write_text(json.dumps({"dataset": "perturbed-ud"}))
    assert dataset_conditions(tmp_path) is DEFAULT_CONDITIONS
    (tmp_path / "build.json").write_text(json.dumps({"conditions": {"orig": {"order": "orig"}}}))
    with pytest.raises(InputError, match="malformed conditions table"):
        dataset_conditions(tmp_path)
    (tmp_path / "build.json").write_text("{")
    with pytest.raises(InputError, match="not a JSON file"):
        dataset_conditions(tmp_path)


def test_a_build_without_part_has_no_part_effects(full_head, tmp_path):
    conditions = dataset_conditions(full_head)
    assert conditions.scrambles == ("full", "head")
    assert effect_names(conditions) == ["S_full", "S_head", "S_L", "I_full", "I_head"]
    accuracy = {"Original": 0.5, "FullyScrambled": 0.2, "HeadScrambled": 0.4}
    values = effects(accuracy | {"Original+Lemma": 0.3, "FullyScrambled+Lemma": 0.1}, conditions)
    assert values["S_full"] == pytest.approx(0.6) and values["S_head"] == pytest.approx(0.2)
    assert values["I_full"] == pytest.approx(0.1 - (0.2 + 0.3 - 0.5))
    assert math.isnan(values["I_head"]), "no Head+Lemma accuracy"
    part = pd.DataFrame([dict.fromkeys(ITEM_COLUMNS)]).assign(condition="PartiallyScrambled")
    with pytest.raises(InputError, match="unknown conditions"):
        summarize(part, tmp_path, conditions=conditions)


def guessed(run) -> pd.DataFrame:
    """A run's items with random top-1 hits: the tiny model gets every item wrong, which
    leaves every effect undefined."""
    items = pd.read_parquet(run / "items.parquet")
    return items.assign(word_level_match=np.random.default_rng(0).random(len(items)) < 0.5)


def with_intervals(*names) -> list[str]:
    return [c for n in names for c in (n, f"{n}_lo", f"{n}_hi")]


def test_a_run_on_a_build_without_part_reports_full_and_head_only(full_head, tiny_bert, tmp_path):
    run = MaskedWord.run(
        str(full_head), str(tiny_bert), tmp_path / "run",
        settings=MaskedWordSettings(max_span_pieces=3),
    )  # fmt: skip
    keys, settings = ["model_name", "lang", "N"], ["sentences", "interval"]
    sensitivity = pd.read_csv(run / "sensitivity_ci.csv")
    assert list(sensitivity.columns) == keys + with_intervals("S_full", "S_head", "S_L") + settings
    assert not (run / "head_vs_part.csv").exists()
    written = summarize(
        guessed(run), tmp_path / "guessed", conditions=dataset_conditions(full_head)
    )
    interaction = pd.read_csv(written["interaction_ci.csv"])
    assert list(interaction.columns) == keys + with_intervals("I_full", "I_head") + settings
    assert interaction[["I_full", "I_head"]].notna().all().all()
    assert {"sensitivity.png", "interaction.png"} <= set(written)
    assert not {"head_vs_part.csv", "head_vs_part.png"} & set(written)


def test_a_new_scramble_in_build_json_gets_its_effects_and_labels(
    reversed_copy, tiny_bert, tmp_path, monkeypatch
):
    conditions = dataset_conditions(reversed_copy)
    assert conditions.scrambles == ("rev", "head"), "table order: rev took full's place"
    assert list(sensitivity_labels(conditions).items()) == [
        ("S_rev", "Rev"), ("S_head", "Head"), ("S_L", "+L"),
    ]  # fmt: skip
    assert interaction_labels(conditions) == {"I_rev": "Rev × L", "I_head": "Head × L"}
    run = MaskedWord.run(
        str(reversed_copy), str(tiny_bert), tmp_path / "run", configs=["en_full_seed1"],
        settings=MaskedWordSettings(max_span_pieces=3),
    )  # fmt: skip
    items = guessed(run)
    assert set(items["condition"]) == {"Original", "Original+Lemma", "Reversed", "Reversed+Lemma"}
    assert "S_rev" in pd.read_csv(run / "sensitivity_ci.csv").columns
    legends = {}
    draw = plots.grouped_bars

    def grouped_bars(table, series, path, **options):
        legends[Path(path).name] = list(series.values())
        return draw(table, series, path, **options)

    monkeypatch.setattr(plots, "grouped_bars", grouped_bars)
    written = summarize(items, tmp_path / "guessed", conditions=conditions)
    assert legends == {
        "accuracy.png": ["Orig", "Rev", "Orig+L", "Rev+L"],
        "sensitivity.png": ["Rev", "Head", "+L"],
        "interaction.png": ["Rev × L", "Head × L"],
    }, "every figure offers the table's labels (bars without values are left out)"
    (expected,) = effects_table(
        pd.read_csv(written["summary_balanced.csv"]), conditions=conditions
    ).itertuples()
    sensitivity = pd.read_csv(written["sensitivity_ci.csv"]).iloc[0]
    assert sensitivity["S_rev"] == pytest.approx(expected.S_rev) and not math.isnan(expected.S_rev)
    assert math.isnan(sensitivity["S_head"]), "this run has no head split"
    interaction = pd.read_csv(written["interaction_ci.csv"]).iloc[0]
    assert interaction["I_rev"] == pytest.approx(expected.I_rev)
    # the default table does not know the new names; the command line takes the dataset's
    with pytest.raises(InputError, match="unknown conditions"):
        summarize(items, tmp_path / "default")
    items_file = tmp_path / "items.jsonl"
    items.to_json(items_file, orient="records", lines=True, force_ascii=False)
    args = ["summarize", str(items_file), "--bootstrap", "50", "--out"]
    refused = CliRunner().invoke(main, [*args, str(tmp_path / "cli-default")])
    assert refused.exit_code == 1 and "unknown conditions ['Reversed'" in refused.output
    none = CliRunner().invoke(main, ["summarize", str(items_file), "--bootstrap", "0", "--out",
                                     str(tmp_path / "none")])  # fmt: skip
    assert none.exit_code == 1 and "at least 1 resample, not 0" in none.output
    assert not (tmp_path / "none").exists(), "refused before anything is written"
    given = CliRunner().invoke(
        main, [*args, str(tmp_path / "cli"), "--dataset", str(reversed_copy)]
    )
    assert given.exit_code == 0, given.output
    assert "S_rev" in pd.read_csv(tmp_path / "cli" / "sensitivity_ci.csv").columns
