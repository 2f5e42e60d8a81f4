"""The statistics and reporting layer: exact reproduction of the released LREC 2026 summaries
and paper numbers, Wilson intervals, the paired bootstrap, balancing and the report folder."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from conftest import REFERENCE, needs_reference

from perturbed_ud.data.conditions import DEFAULT_CONDITIONS
from perturbed_ud.errors import InputError
from perturbed_ud.evaluation.reporting.statistics import (
    Z95,
    stratified_mean_interval,
    wilson_interval,
    worst_copy,
)
from perturbed_ud.evaluation.reporting.tables import write_table
from perturbed_ud.evaluation.tasks.masked_word.items import read_items
from perturbed_ud.evaluation.tasks.masked_word.statistics import (
    accuracy_ci,
    effects_table,
    paired_bootstrap,
    seed_mean_ci,
)
from perturbed_ud.evaluation.tasks.masked_word.summarize import summarize
from perturbed_ud.evaluation.tasks.masked_word.summary import balance_items, summarize_items

RELEASED = REFERENCE / "wordprediction"
MBERT = "bert-base-multilingual-cased"
ITEMS = RELEASED / MBERT / "results_items_seed123.jsonl.gz"
RELEASED_CONDITIONS = [c for c in DEFAULT_CONDITIONS.labels if c != "HeadScrambled+Lemma"]


@pytest.fixture(scope="module")
def released_items():
    return read_items(ITEMS)


@pytest.fixture(scope="module")
def expected():
    return json.loads((RELEASED / "expected_from_summaries.json").read_text())


def make_items(n_sentences=30, *, seeds=(1,), missing=(), model="m", lang="en_ewt", rng=0):
    """Synthetic items with sentence ids; ``missing`` lists (sentence, condition) rows left out."""
    draw = np.random.default_rng(rng)
    rows = []
    for seed in seeds:
        for s in range(n_sentences):
            for condition in RELEASED_CONDITIONS:
                if (s, condition) in missing:
                    continue
                match = bool(draw.random() < 0.5)
                rows.append(
                    {
                        "model_name": model,
                        "lang": lang,
                        "condition": condition,
                        "words": ["the", "cat"],
                        "target_index": 1,
                        "target_token": "cat",
                        "word_level_match": match,
                        "gold_word": "cat",
                        "gold_num_pieces": 1,
                        "reconstructed_prediction": "cat" if match else "the",
                        "top_k_predictions": ["cat"] if match else ["the", "Cat "],
                        "sent_id": f"s{s}",
                        "seed": seed,
                    }
                )
    return pd.DataFrame(rows)


# --- the released summaries and paper numbers ---------------------------------------------


@needs_reference
@pytest.mark.parametrize("kind", ["balanced", "unbalanced"])
def test_released_summary_reproduced_byte_for_byte(released_items, kind, tmp_path):
    balanced, unbalanced = summarize_items(released_items, run_seed=123)
    table = balanced if kind == "balanced" else unbalanced
    written = write_table(table, tmp_path / f"summary_{kind}.csv", markdown=True)
    reference = RELEASED / MBERT / f"summary_{kind}_seed123.csv"
    assert written[0].read_bytes() == reference.read_bytes()
    assert written[1].read_text().startswith("| model_name | lang | condition |")


@needs_reference
def test_effects_from_paper_accuracies_equal_paper_effects(expected):
    """S and I from the paper's balanced top-1 table equal its published S and I."""
    rows = [
        {"model_name": model, "lang": lang, "condition": condition, "word_at_1": value}
        for model, langs in expected["top1"].items()
        for lang, conditions in langs.items()
        for condition, value in conditions.items()
    ]
    table = effects_table(pd.DataFrame(rows))
    assert len(table) == 12
    for row in table.itertuples():
        for name, value in expected["sensI"][row.model_name][row.lang].items():
            assert getattr(row, name) == pytest.approx(value, abs=1e-12), (row.lang, name)


@needs_reference
def test_effects_from_released_items_equal_paper_effects_for_english(released_items, expected):
    """The paper's mBERT table is the 300-sentence run, whose English items are the first 290
    rows per condition of the 400-sentence seed-123 file. The balanced seed-123 summary itself
    (N = 365) is not the paper's input, and the later languages differ: the single random
    stream of the released run had consumed 300, not 400, English sentences before German."""
    english = released_items[released_items["lang"] == "en_ewt"]
    first_290 = english.groupby("condition", sort=False).head(290)
    balanced, _ = summarize_items(first_290, "head")
    assert set(balanced["N"]) == {290}
    (row,) = effects_table(balanced).itertuples()
    for name, value in expected["sensI"][MBERT]["en_ewt"].items():
        assert getattr(row, name) == pytest.approx(value, abs=1e-12), name
    top1 = balanced.set_index("condition")["word_at_1"]
    for condition, value in expected["top1"][MBERT]["en_ewt"].items():
        assert top1[condition] == pytest.approx(value, abs=1e-15)


def test_effects_are_undefined_without_an_original_accuracy():
    summary = pd.DataFrame(
        {
            "model_name": "m",
            "lang": "tr_imst",
            "condition": RELEASED_CONDITIONS,
            "word_at_1": [0.0, 0.0, 0.1, 0.0, 0.2, 0.0, 0.1],
        }
    )
    (row,) = effects_table(summary).itertuples()
    assert all(math.isnan(getattr(row, n)) for n in ("S_full", "S_L", "I_full", "I_part"))
    assert math.isnan(row.I_head), "no Head+Lemma condition"
    assert row.part_minus_head == pytest.approx(0.1 - 0.0)


# --- Wilson intervals ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("k", "n", "lo", "hi"),
    # Newcombe (1998), Statistics in Medicine 17:857, Table II, method 3 (score, no correction)
    [
        (81, 263, 0.2553, 0.3662),
        (15, 148, 0.0624, 0.1605),
        (0, 20, 0.0, 0.1611),
        (1, 29, 0.0061, 0.1718),
    ],
)
def test_wilson_matches_published_intervals(k, n, lo, hi):
    got_lo, got_hi = wilson_interval(k / n, n)
    assert (round(float(got_lo), 4), round(float(got_hi), 4)) == (lo, hi)


def test_wilson_edge_cases():
    z2 = Z95**2
    lo, hi = wilson_interval(0.0, 50)
    assert lo == 0.0 and hi == pytest.approx(z2 / (50 + z2), abs=1e-15)
    lo, hi = wilson_interval(1.0, 50)
    assert hi == 1.0 and lo == pytest.approx(50 / (50 + z2), abs=1e-15)
    lo, hi = wilson_interval([0.0, 1.0], [1, 1])
    assert list(lo) == pytest.approx([0.0, 1 / (1 + z2)]) and list(hi) == pytest.approx(
        [z2 / (1 + z2), 1.0]
    )
    assert all(math.isnan(x) for x in wilson_interval(0.0, 0))


def test_accuracy_ci_uses_the_true_item_count():
    summary = pd.DataFrame(
        {"model_name": ["m"], "lang": ["de_gsd"], "condition": ["Original"], "N": [263]}
        | {"word_at_1": [81 / 263], "word_at_5": [0.5]}
    )
    row = accuracy_ci(summary).iloc[0]
    assert (round(row.word_at_1_lo, 4), round(row.word_at_1_hi, 4)) == (0.2553, 0.3662)
    assert row.interval == "Wilson 95 %" and row.sentences == 263


def test_pooled_seeds_resample_sentences_not_rows():
    """Seed 2 repeats seed 1 row for row: pooling adds rows but no information. A cluster
    bootstrap over sentences gives the one-seed width; Wilson on the pooled rows would claim
    an interval √2 narrower."""
    one = make_items(200, seeds=(1,), rng=3)
    pooled = pd.concat([one, one.assign(seed=2)], ignore_index=True)
    balanced, _ = summarize_items(pooled)
    table = accuracy_ci(balanced, balance_items(pooled), resamples=2000, seed=1)
    row = table.set_index("condition").loc["Original"]
    assert row.N == 400 and row.sentences == 200 and row.interval.startswith("bootstrap")
    alone = accuracy_ci(summarize_items(one)[0]).set_index("condition").loc["Original"]
    assert row.word_at_1 == alone.word_at_1
    width = row.word_at_1_hi - row.word_at_1_lo
    assert width == pytest.approx(alone.word_at_1_hi - alone.word_at_1_lo, rel=0.15)
    naive_lo, naive_hi = wilson_interval(row.word_at_1, 400)
    assert width > 1.25 * (naive_hi - naive_lo)

    effects = paired_bootstrap(pooled, paired_by="sentence", resamples=500, seed=1)
    single = paired_bootstrap(one, paired_by="sentence", resamples=500, seed=1)
    assert effects.loc[0, "sentences"] == 200 and effects.loc[0, "N"] == 400
    for name in ("S_full", "I_full", "part_minus_head"):
        assert effects.loc[0, name] == pytest.approx(single.loc[0, name])
        assert effects.loc[0, f"{name}_lo"] == pytest.approx(single.loc[0, f"{name}_lo"])


# --- balancing -------------------------------------------------------------------------------


def test_aligned_balancing_keeps_only_items_in_every_condition():
    items = make_items(4, missing={(0, "PartiallyScrambled"), (2, "Original+Lemma")})
    aligned = balance_items(items, "auto")
    assert set(aligned["sent_id"]) == {"s1", "s3"}
    assert aligned.groupby("condition")["sent_id"].apply(tuple).nunique() == 1
    head = balance_items(items, "head")
    assert head.groupby("condition").size().eq(3).all()
    assert set(head.loc[head["condition"] == "Original", "sent_id"]) == {"s0", "s1", "s2"}
    balanced, unbalanced = summarize_items(items)
    assert set(balanced["N"]) == {2} and set(unbalanced["N"]) == {3, 4}


def test_balancing_rules_and_unscored_rows():
    items = make_items(3)
    with pytest.raises(InputError, match="sent_id"):
        balance_items(items.drop(columns="sent_id"), "aligned")
    with pytest.raises(InputError, match="twice"):
        balance_items(pd.concat([items, items.head(1)]), "aligned")
    status = np.where(items["sent_id"].eq("s0") & items["condition"].eq("Original"), "x", "scored")
    balanced, unbalanced = summarize_items(items.assign(status=status))
    assert set(balanced["N"]) == {2}
    assert unbalanced.set_index("condition").loc["Original", "N"] == 2


def test_run_columns_only_for_a_single_run():
    balanced, _ = summarize_items(make_items(3, seeds=(7,)))
    assert list(balanced[["run_seed", "run_model"]].iloc[0]) == [7, "m"]
    pooled = pd.concat([make_items(3), make_items(3, model="other")])
    balanced, _ = summarize_items(pooled)
    assert "run_seed" not in balanced.columns


def test_top5_follows_the_released_rule():
    balanced, _ = summarize_items(make_items(20))
    row = balanced.set_index("condition").loc["Original"]
    assert row.word_at_5 == 1.0, "'Cat ' matches 'cat' after strip() and lower()"
    assert row.pred_stop_rate == 1.0 - row.word_at_1, "'the' is on the English stoplist"


# --- paired bootstrap ------------------------------------------------------------------------


@needs_reference
def test_paired_bootstrap_is_deterministic_and_covers_its_estimate(released_items):
    subset = released_items[released_items["lang"].isin(["en_ewt", "de_gsd"])]
    balanced_items = balance_items(subset, "head")
    first = paired_bootstrap(balanced_items, paired_by="position", resamples=200, seed=5)
    again = paired_bootstrap(balanced_items, paired_by="position", resamples=200, seed=5)
    other = paired_bootstrap(balanced_items, paired_by="position", resamples=200, seed=6)
    pd.testing.assert_frame_equal(first, again)
    assert not first.equals(other)
    point = effects_table(summarize_items(subset, "head")[0])
    for name in ("S_full", "S_part", "S_head", "S_L", "I_full", "I_part", "part_minus_head"):
        assert list(first[name]) == list(point[name]), "point estimates are the summary's"
        assert (first[f"{name}_lo"] <= first[name]).all() and (
            first[name] <= first[f"{name}_hi"]
        ).all()
    assert list(first["N"]) == [400, 365]


def test_paired_bootstrap_pairs_by_sentence_not_by_row_order():
    """Full and Full+L copy Orig and Orig+L sentence by sentence, rows shuffled: paired by
    sentence, every resample has S_full = I_full = 0; paired by position, it does not."""
    items = make_items(40)
    originals = items[items["condition"].isin(["Original", "Original+Lemma"])]
    renamed = {"Original": "FullyScrambled", "Original+Lemma": "FullyScrambled+Lemma"}
    copies = originals.assign(condition=originals["condition"].map(renamed))
    items = pd.concat(
        [items[~items["condition"].str.startswith("Fully")], copies.sample(frac=1, random_state=0)]
    )
    (row,) = paired_bootstrap(items, paired_by="sentence", resamples=50).itertuples()
    assert row.N == 40 and row.S_full_lo == row.S_full_hi == 0.0
    assert row.I_full_lo == pytest.approx(0, abs=1e-12) == row.I_full_hi
    (row,) = paired_bootstrap(items, paired_by="position", resamples=50).itertuples()
    assert row.I_full_hi - row.I_full_lo > 0.05


# --- across seeds ----------------------------------------------------------------------------


def test_the_worst_copy_is_the_lowest_or_highest_and_undefined_only_when_every_copy_is():
    values = pd.Series([0.5, np.nan, 0.2, np.nan, np.nan, 0.7, 0.7])
    sentence = pd.Series(["a", "a", "a", "b", "b", "c", "c"])
    assert worst_copy(values, sentence).to_dict() == {"a": 2, "b": 3, "c": 5}
    assert worst_copy(values, sentence, highest=True).to_dict() == {"a": 0, "b": 3, "c": 5}


def test_seed_mean_ci_uses_t_and_clips_to_the_possible_range():
    table = pd.DataFrame(
        {
            "model_name": "m",
            "lang": "en_ewt",
            "condition": "Original",
            "run_seed": [1, 2, 3],
            "word_at_1": [0.1, 0.2, 0.3],
        }
    )
    row = seed_mean_ci(table, ["word_at_1"]).iloc[0]
    assert row.runs == 3 and row.word_at_1_mean == pytest.approx(0.2)
    half = 4.302652729911275 * 0.1 / math.sqrt(3)  # t(0.975, 2)
    assert row.word_at_1_hi - row.word_at_1_mean == pytest.approx(half)
    assert row.word_at_1_lo == 0.0, "0.2 − 0.248 is clipped: an accuracy is never negative"
    assert row.interval.startswith("t 95 %") and "word_at_1_ci95" not in row.index
    effects = table.assign(S_full=[0.9, 1.0, 0.95], part_minus_head=[-0.99, -0.9, -0.95])
    row = seed_mean_ci(effects, ["S_full", "part_minus_head"]).iloc[0]
    assert row.S_full_hi == 1.0 and row.part_minus_head_lo == -1.0


# --- schema and report -----------------------------------------------------------------------


def test_condition_names_are_one_per_split():
    splits = [c.split for c in DEFAULT_CONDITIONS.all]
    names = [DEFAULT_CONDITIONS.released_name(split) for split in splits]
    assert len(set(names)) == len(splits) and names == list(DEFAULT_CONDITIONS.labels)
    assert DEFAULT_CONDITIONS.released_name("full_lemma") == "FullyScrambled+Lemma"
    with pytest.raises(InputError, match="unknown split"):
        DEFAULT_CONDITIONS.released_name("scrambled")


@pytest.mark.parametrize("suffix", [".jsonl", ".jsonl.gz", ".parquet"])
def test_read_items_keeps_rows_and_strings(tmp_path, suffix):
    items = make_items(2).assign(gold_word="1")
    path = tmp_path / f"items{suffix}"
    if suffix == ".parquet":
        items.to_parquet(path)
    else:
        items.to_json(path, orient="records", lines=True, force_ascii=False)
    back = read_items(path)
    assert list(back["condition"]) == list(items["condition"])
    assert set(back["gold_word"]) == {"1"}
    with pytest.raises(InputError, match="unknown conditions"):
        summarize_items(items.assign(condition="full"))


@needs_reference
def test_report_writes_every_table_and_figure(tmp_path):
    written = summarize(ITEMS, tmp_path, bootstrap=20, run_seed=123)
    expected_files = {
        f"{name}.{ext}"
        for name in ("summary_balanced", "summary_unbalanced")
        for ext in ("csv", "md")
    } | {
        "accuracy_ci.csv",
        "sensitivity_ci.csv",
        "interaction_ci.csv",
        "head_vs_part.csv",
        "accuracy.png",
        "sensitivity.png",
        "interaction.png",
        "head_vs_part.png",
    }
    assert set(written) == expected_files
    for name, path in written.items():
        assert path.parent == tmp_path and path.stat().st_size > 0
        if name.endswith(".png"):
            assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    reference = RELEASED / MBERT / "summary_balanced_seed123.csv"
    assert written["summary_balanced.csv"].read_bytes() == reference.read_bytes()
    sensitivity = pd.read_csv(written["sensitivity_ci.csv"])
    assert list(sensitivity.columns[:6]) == [
        "model_name",
        "lang",
        "N",
        "S_full",
        "S_full_lo",
        "S_full_hi",
    ]
    assert "I_head" not in pd.read_csv(written["interaction_ci.csv"]).columns


def test_report_averages_over_seeds(tmp_path):
    items = pd.concat([make_items(25, seeds=(seed,), rng=seed) for seed in (1, 2, 3)])
    written = summarize(items, tmp_path, bootstrap=20)
    across = pd.read_csv(written["accuracy_across_seeds.csv"])
    assert set(across["runs"]) == {3} and len(across) == 7
    effects = pd.read_csv(written["effects_across_seeds.csv"])
    assert {"S_full_mean", "S_full_lo", "S_full_hi", "interval"} <= set(effects.columns)
    assert not any(c.endswith("_ci95") for c in effects.columns), "one interval per number"
    accuracy = pd.read_csv(written["accuracy_ci.csv"])
    assert accuracy["interval"].str.startswith("bootstrap 95 % over sentences").all()
    assert set(accuracy["sentences"]) == {25} and set(accuracy["N"]) == {75}
    assert "run_seed" not in pd.read_csv(written["summary_balanced.csv"]).columns


def test_report_leaves_out_figures_without_conditions(tmp_path):
    items = make_items(25)
    full_only = items[
        items["condition"].isin(["Original", "Original+Lemma"])
        | items["condition"].str.startswith("Fully")
    ]
    written = summarize(full_only, tmp_path, bootstrap=20)
    assert "head_vs_part.png" not in written and "sensitivity.png" in written
    assert pd.read_csv(written["head_vs_part.csv"])["part_minus_head"].isna().all()


@pytest.mark.parametrize("value", ["False", "True", 2, None])
def test_a_match_that_is_not_true_or_false_is_refused(tmp_path, value):
    """A string "False" is truthy: counted as correct, it would raise every accuracy."""
    items = make_items(2)
    items["word_level_match"] = items["word_level_match"].astype(object)
    items.loc[items.index[1], "word_level_match"] = value
    path = tmp_path / "items.jsonl"
    items.to_json(path, orient="records", lines=True)
    with pytest.raises(InputError, match="word_level_match must be true or false, not "):
        read_items(path)
    read_items(write_items(make_items(2), tmp_path / "ok.jsonl"))  # true/false and 0/1 pass


def write_items(items, path):
    items.assign(word_level_match=items["word_level_match"].astype(int)).to_json(
        path, orient="records", lines=True
    )
    return path


def test_intervals_at_accuracy_zero_are_wilson_bounds_not_a_point():
    """Every FullyScrambled row wrong (A_full = 0, S_full = 1): each resample gives the same
    numbers, so the bootstrap's interval is one point; a Wilson bound on the sentences holds."""
    items = make_items(40, seeds=(1, 2))
    full = items["condition"] == "FullyScrambled"
    items.loc[full, "word_level_match"] = False
    (row,) = paired_bootstrap(items, paired_by="sentence", resamples=200, seed=1).itertuples()
    assert row.S_full == 1.0 and row.S_full_hi == 1.0
    lo_full, hi_full = wilson_interval(0.0, 40)
    assert row.S_full_lo < 1.0 and "S_full: Wilson 95 % on the N sentences" in row.interval
    a_orig = items.loc[items["condition"] == "Original", "word_level_match"].mean()
    lo_orig, _ = wilson_interval(a_orig, 40)
    assert row.S_full_lo == pytest.approx(1 - float(hi_full) / float(lo_orig))  # the worst corner
    balanced, _ = summarize_items(items)
    table = accuracy_ci(balanced, balance_items(items), resamples=200, seed=1)
    scrambled = table.set_index("condition").loc["FullyScrambled"]
    assert scrambled.word_at_1 == 0.0 and scrambled.word_at_1_lo == 0.0
    assert scrambled.word_at_1_hi == pytest.approx(float(hi_full))  # 40 sentences, not 80 rows
    assert "word_at_1" in scrambled.interval and "Wilson" in scrambled.interval


def test_zero_spread_away_from_the_edge_stays_where_one_accuracy_is_at_it():
    """Original all right (A_Orig = 1) while Part and Head agree sentence by sentence: the
    effects of A_Orig get Wilson bounds, part_minus_head = 0 keeps the bootstrap's point."""
    items = make_items(40)
    items.loc[items["condition"] == "Original", "word_level_match"] = True
    part = items[items["condition"] == "PartiallyScrambled"]
    head = items["condition"] == "HeadScrambled"
    items.loc[head, "word_level_match"] = part["word_level_match"].to_numpy()
    (row,) = paired_bootstrap(items, paired_by="sentence", resamples=200, seed=1).itertuples()
    assert row.part_minus_head == row.part_minus_head_lo == row.part_minus_head_hi == 0.0
    assert "part_minus_head" not in row.interval


def test_a_macro_mean_without_spread_spans_its_groups_wilson_bounds():
    """One construction of 1 pair, all right, one of 99, all wrong: the mean 0.5 has no
    bootstrap spread; its interval is the mean of the two Wilson intervals, not a point and
    not a Wilson interval of 0.5 over 100 pairs."""
    point, lo, hi, name = stratified_mean_interval([np.ones(1), np.zeros(99)])
    first, second = wilson_interval(1.0, 1), wilson_interval(0.0, 99)
    assert point == 0.5 and "no spread" in name
    assert lo == pytest.approx((first[0] + second[0]) / 2)
    assert hi == pytest.approx((first[1] + second[1]) / 2) and hi - lo > 0.4


@pytest.mark.subprocess
def test_summarize_runs_without_the_model_libraries(tmp_path):
    """`perturbed-ud summarize` reads item tables only: it runs where torch is not installed
    (the `eval` extra), so nothing it imports may load it."""
    items = write_items(make_items(4), tmp_path / "items.jsonl")
    args = ["summarize", str(items), "--bootstrap", "20", "--out", str(tmp_path / "out")]
    code = (
        "import sys; sys.modules['torch'] = None\n"  # `import torch` now fails
        f"from perturbed_ud.cli import main\nmain({args!r})"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    assert (tmp_path / "out" / "summary_balanced.csv").is_file()
