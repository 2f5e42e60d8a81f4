"""The lm-evaluation-harness tasks of built datasets, run through the real harness on a tiny
GPT-2: clams accuracies equal `evaluate minimal-pair`'s up to its ties, which the harness counts
as correct; perturbed-ud choices pair each perturbed sentence with its own original; bad
folders are refused."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest
import yaml
from click.testing import CliRunner
from conftest import UD_ROOT, task_yaml
from test_minimal_pair import COORD, SIMPLE

import perturbed_ud
from perturbed_ud.cli import main

lm_eval = pytest.importorskip("lm_eval")

# "put" agrees with nothing: its pairs are the same sentence twice, an exact tie.
COMMON = """\
VP[3,s] works | is tall | put
VP[3,p] work | are tall | put
N_1[3,s,anim] the doctor | the teacher
N_1[3,p,anim] the doctors | the teachers
"""


@pytest.fixture(scope="module")
def clams(tmp_path_factory):
    grammars = tmp_path_factory.mktemp("grammars")
    for name, text in (("common", COMMON), ("simple_agrmt", SIMPLE), ("vp_coord", COORD)):
        (grammars / f"{name}.avg").write_text(text, encoding="utf-8")
    # the ambiguity check would refuse the "put" pairs: kept here, to count ties
    return perturbed_ud.build("clams", tmp_path_factory.mktemp("data"), grammar_dir=grammars,
                              lang="en", ambiguity_check=False)  # fmt: skip


def run_harness(tasks, model, group: str, limit: int | None = None) -> dict:
    from lm_eval.tasks import TaskManager

    return lm_eval.simple_evaluate(
        model="hf", model_args={"pretrained": str(model), "dtype": "float32", "device": "cpu"},
        tasks=[group], task_manager=TaskManager(include_path=str(tasks), include_defaults=False),
        log_samples=True, limit=limit, batch_size=16,
    )  # fmt: skip


def harness_and_ours(dataset, model, tmp_path, group: str, **long_rows):
    """The harness's results on the dataset's task group, and our accuracy table and pair
    scores; every harness sample's log-likelihoods checked against our pair's scores (to float32
    rounding of a long sum: 1e-6 of it).
    ``long_rows`` (``max_length_of=model``) leaves out, on both sides, the rows the harness
    would stop on."""
    written = perturbed_ud.lm_eval_tasks(dataset, tmp_path / "tasks", **long_rows)
    folder = Path(shutil.move(written, tmp_path / "moved" / written.name))  # still runs
    results = run_harness(folder.parent, model, group)
    run = tmp_path / "run"
    exclude = {"long_inputs": "exclude"} if long_rows else {}
    ours = perturbed_ud.evaluate("minimal-pair", dataset=str(dataset), model=str(model),
                                 out=str(run), kind="causal", bos="prepend",
                                 **exclude)  # fmt: skip
    pairs = pd.read_parquet(run / "pairs.parquet").set_index("pair_id")
    for name, samples in results["samples"].items():
        for sample in samples:
            (good, _), (bad, _) = sample["filtered_resps"]
            ours_pair = pairs.loc[sample["doc"]["pair_id"]]
            assert good == pytest.approx(ours_pair["good_score"], rel=1e-6, abs=1e-4), name
            assert bad == pytest.approx(ours_pair["bad_score"], rel=1e-6, abs=1e-4), name
            assert (ours_pair["outcome"] == "tie") == (good == bad)
    return results, pd.DataFrame(ours["metrics"]["accuracy"])


def check_accuracies(results, table, group: str) -> None:
    """The harness counts a tie as correct; our accuracy does not."""
    for row in table.itertuples():
        name = f"{group}_{row.lang}_{row.construction}"
        if row.N == 0:  # every pair too long: the harness is given no such task
            assert name not in results["results"]
            continue
        assert row.accuracy == pytest.approx(row.correct / row.N, abs=1e-12)
        harness = results["results"][name]["acc,none"]
        assert harness == pytest.approx((row.correct + row.ties) / row.N, abs=1e-12)
        assert len(results["samples"][name]) == row.N


@pytest.mark.peer
def test_clams_accuracy_is_ours_with_ties_counted_correct(clams, tiny_gpt2, tmp_path):
    results, table = harness_and_ours(clams, tiny_gpt2, tmp_path, "clams")
    assert set(table["construction"]) == {"simple_agrmt", "vp_coord"}
    assert table["ties"].gt(0).all()  # the "put" pairs
    check_accuracies(results, table, "clams")


@pytest.mark.peer
def test_ud_agreement_scores_are_ours_pair_by_pair(tiny_gpt2, tmp_path):
    """A build of every language and treebank under the root: each language's task runs."""
    dataset = perturbed_ud.build("ud_agreement", tmp_path / "data", ud_root=UD_ROOT,
                                 langs=["all"], limit=60)  # fmt: skip
    results, table = harness_and_ours(dataset, tiny_gpt2, tmp_path, "ud_agreement",
                                      max_length_of=str(tiny_gpt2))  # fmt: skip
    assert set(table["lang"]) >= {"en", "de", "fr", "ru", "he"}, set(table["lang"])
    check_accuracies(results, table, "ud_agreement")


LONG_SUBJECT = "the doctor" + " near the old house" * 70  # far over the 256 tokens of tiny-gpt2


@pytest.mark.peer
def test_long_pairs_are_left_out_for_the_harness_and_windowed_by_evaluate(tiny_gpt2, tmp_path):
    grammars = tmp_path / "grammars"
    grammars.mkdir()
    common = COMMON.replace(" | put", "").replace(
        "the doctor | the teacher", f"the doctor | {LONG_SUBJECT}"
    )  # no ties
    for name, text in (("common", common), ("simple_agrmt", SIMPLE)):
        (grammars / f"{name}.avg").write_text(text, encoding="utf-8")
    dataset = perturbed_ud.build("clams", tmp_path / "data", grammar_dir=grammars, lang="en",
                                 ambiguity_check=False)  # fmt: skip
    plain = perturbed_ud.lm_eval_tasks(dataset, tmp_path / "plain")
    with pytest.raises(AssertionError):  # the harness's own check: a continuation must fit
        run_harness(plain.parent, tiny_gpt2, "clams")
    fit = ["--out", str(tmp_path / "fit"), "--max-length-of", str(tiny_gpt2)]
    result = CliRunner().invoke(main, ["lm-eval-tasks", str(dataset), *fit])
    assert result.exit_code == 0, result.output
    folder = tmp_path / "fit" / "clams"
    group = yaml.safe_load((folder / "clams.yaml").read_text(encoding="utf-8"))
    left_out = group["metadata"]["left_out"]
    assert f"left out {left_out['rows']} rows" in result.output and "256 tokens" in result.output
    results = run_harness(folder.parent, tiny_gpt2, "clams")
    run = perturbed_ud.evaluate("minimal-pair", dataset=str(dataset), model=str(tiny_gpt2),
                                out=str(tmp_path / "run"), kind="causal")  # fmt: skip
    pairs = pd.read_parquet(tmp_path / "run" / "pairs.parquet").set_index("pair_id")
    assert not pairs["outcome"].isin(["unscored", "tie"]).any()  # long pairs scored in windows
    scored = {s["doc"]["pair_id"]: s for s in results["samples"]["clams_en_simple_agrmt"]}
    long = set(pairs.index[pairs["windowed"]])
    assert long and left_out["rows"] == len(long) and set(scored) == set(pairs.index) - long
    for pair_id, sample in scored.items():
        (good, _), (bad, _) = sample["filtered_resps"]
        assert good == pytest.approx(pairs.loc[pair_id, "good_score"], abs=1e-4)
    assert run["counts"]["windowed"] == len(long) and run["counts"]["unscored"] == {}


@pytest.mark.peer
def test_perturbed_ud_choices_pair_each_sentence_with_its_original(tiny_gpt2, tmp_path):
    dataset = perturbed_ud.build("perturbed-ud", tmp_path / "data", ud_root=UD_ROOT, langs=["en"],
                                 seeds=[1], scrambles=["part"], limit=20)  # fmt: skip
    folder = perturbed_ud.lm_eval_tasks(dataset, tmp_path / "tasks")
    results = run_harness(folder.parent, tiny_gpt2, "perturbed_ud")

    def split(name):
        path = next((dataset / "en_part_seed1").glob(f"{name}-*.parquet"))
        return {row["sent_id"]: row for row in pq.read_table(path).to_pylist()}

    orig, part = split("orig"), split("part")
    assert list(part) != list(orig)[: len(part)]  # so rows pair by sentence, not by position
    for reference, condition in (("orig", "part"), ("orig_lemma", "part_lemma")):
        references, perturbed = split(reference), split(condition)
        samples = results["samples"][f"perturbed_ud_en_part_seed1_{reference}_vs_{condition}"]
        assert [s["doc"]["sent_id"] for s in samples] == list(perturbed)
        for sample in samples:
            sent_id = sample["doc"]["sent_id"]
            texts = [continuation for _, continuation in sample["arguments"]]
            assert texts == [references[sent_id]["perturbed_text"],
                             perturbed[sent_id]["perturbed_text"]]  # fmt: skip
            assert sorted(references[sent_id]["words"]) == sorted(perturbed[sent_id]["words"])
    for name in ("orig", "part", "orig_lemma", "part_lemma"):
        metrics = results["results"][f"perturbed_ud_en_part_seed1_{name}_ppl"]
        assert metrics["byte_perplexity,none"] > 1 and metrics["bits_per_byte,none"] > 0
        texts = [
            s["arguments"][0][0]
            for s in results["samples"][f"perturbed_ud_en_part_seed1_{name}_ppl"]
        ]
        assert texts == [row["perturbed_text"] for row in split(name).values()]


def test_tasks_are_pinned_to_the_build_or_its_hub_tag(clams, tmp_path):
    manifest = json.loads((clams / "build.json").read_text(encoding="utf-8"))
    local = perturbed_ud.lm_eval_tasks(clams, tmp_path / "local")
    hub = perturbed_ud.lm_eval_tasks(clams, tmp_path / "hub", hub_id="me/clams")
    for folder, path, kwargs, loader in (
        (local, "parquet", None, "utils.load_data"),
        (hub, "me/clams", {"revision": f"v{manifest['version']}"}, None),
    ):
        text = (folder / "_minimal_pair_template_yaml").read_text(encoding="utf-8")
        assert f"# content sha256: {manifest['content_sha256']}" in text
        assert "counts as correct" in text and "BOS" in text and "--max-length-of" in text
        template = task_yaml(text)
        assert template["dataset_path"] == path and template.get("dataset_kwargs") == kwargs
        assert template.get("custom_dataset") == loader
        assert template["metadata"]["signature"] == manifest["signature"]
        assert template["doc_to_choice"] == "{{[sentence_good, sentence_bad]}}"
        group = yaml.safe_load((folder / "clams.yaml").read_text(encoding="utf-8"))
        assert group["task"] == ["clams_en_simple_agrmt", "clams_en_vp_coord"]
    other = perturbed_ud.lm_eval_tasks(clams, tmp_path / "rev", hub_id="me/clams", revision="abc")
    assert task_yaml((other / "_minimal_pair_template_yaml").read_text())["dataset_kwargs"] == {
        "revision": "abc"
    }


def missing(clams, tmp):
    """A path that is not there."""
    return tmp / "nothere"


def empty(clams, tmp):
    """An empty folder."""
    return tmp


def no_card(clams, tmp):
    """A build.json without the card beside it."""
    (tmp / "build.json").write_text("{}", encoding="utf-8")
    return tmp


def not_a_manifest(clams, tmp):
    """A card and a build.json of something else."""
    (tmp / "README.md").write_text("# mine\n", encoding="utf-8")
    (tmp / "build.json").write_text(json.dumps({"dataset": "clams"}), encoding="utf-8")
    return tmp


def another_family(clams, tmp):
    """A built folder of a family that has no lm-eval tasks."""
    copy = tmp / "toy"
    shutil.copytree(clams, copy)
    manifest = json.loads((copy / "build.json").read_text(encoding="utf-8"))
    (copy / "build.json").write_text(json.dumps(manifest | {"dataset": "toy-reversal"}))
    return copy


def edited(clams, tmp):
    """A built folder whose Parquet files were changed after the build."""
    copy = tmp / "edited"
    shutil.copytree(clams, copy)
    path = next((copy / "en").glob("vp_coord-*.parquet"))
    pq.write_table(pq.read_table(path).slice(0, 1), path)
    return copy


def written(clams, tmp):
    """A dataset whose tasks are already in --out."""
    perturbed_ud.lm_eval_tasks(clams, tmp / "tasks")
    return clams


def built(clams, tmp):
    return clams


@pytest.mark.parametrize(
    "make, options, message",
    [
        (missing, [], "is not a folder; build it first"),
        (empty, [], "has no README.md or build.json: it is not a folder written by"),
        (no_card, [], "has no README.md: it is not a folder written by"),
        (not_a_manifest, [], "is not a build manifest: it lacks version, signature"),
        (another_family, [], "is a toy-reversal dataset; lm-eval tasks are written for clams,"),
        (edited, [], "the Parquet files are not those build.json records"),
        (written, [], "exists; pass --overwrite"),
        (built, ["--revision", "v1"], "--revision names a revision of --hub-id"),
        (built, ["--hub-id", "a/b/c"], "bad --hub-id"),
        (built, ["--out", "{parent}"], "is the input"),  # as for `build`
    ],
)
def test_bad_datasets_and_options_are_refused(clams, tmp_path, make, options, message):
    dataset = make(clams, tmp_path)
    options = [option.format(parent=dataset.parent) for option in options]
    args = ["lm-eval-tasks", str(dataset), "--out", str(tmp_path / "tasks"), *options]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 1, result.output
    assert result.output.startswith("error: ") and message in result.output


def test_the_printed_command_runs_as_printed_in_a_shell(clams, tmp_path):
    """The command printed for the harness quotes a folder with a space or a leading dash."""
    import shlex

    out = tmp_path / "my tasks" / "-x"
    result = CliRunner().invoke(main, ["lm-eval-tasks", str(clams), "--out", str(out)])
    assert result.exit_code == 0, result.output
    (line,) = [x for x in result.output.splitlines() if x.startswith("run: ")]
    words = shlex.split(line.removeprefix("run: "))
    assert words[words.index("--include_path") + 1] == str(out)
