"""Every input a result depends on is read by its content: downloads in the cache are checked
against their pins or the sha256 recorded at download each time they are read, evaluate loads
exactly the Parquet files it hashed, lm-eval tasks read content-addressed copies of a build,
and a local --hf-dataset folder is hashed and loaded by its content, not its mtime."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner
from conftest import UD_ROOT, task_yaml
from datasets import load_dataset

import perturbed_ud
import perturbed_ud.builders.clams as clams
from perturbed_ud.cli import main
from perturbed_ud.errors import InputError
from perturbed_ud.evaluation.running import datasets_io
from perturbed_ud.evaluation.running.datasets_io import dataset_content, load_config
from perturbed_ud.ud.sources import UD_RELEASE, download

EWT = "UD_English-EWT"
EWT_FILES = ["en_ewt-ud-test.conllu", "README.md", "LICENSE.txt"]
ONE_SENTENCE = "# sent_id = x\n# text = Hi\n1\tHi\thi\tINTJ\tUH\t_\t0\troot\t_\t_\n\n"


def cli(*args: str):
    return CliRunner().invoke(main, [str(arg) for arg in args])


def refused(result, *parts: str) -> str:
    """The one ``error:`` line of a refused command, holding every part."""
    assert result.exit_code == 1 and "Traceback" not in result.output, result.output
    assert result.output.startswith("error: "), result.output
    for part in parts:
        assert part in result.output, result.output
    return result.output


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# --- F17: downloads in the cache ---------------------------------------------------------------


@pytest.fixture
def ud_url(tmp_path, file_server, monkeypatch) -> str:
    """A loopback UD server holding EWT at the pinned release, which builds download from."""
    served = tmp_path / "served" / EWT / UD_RELEASE
    served.mkdir(parents=True)
    for name in EWT_FILES:
        shutil.copyfile(UD_ROOT / EWT / name, served / name)
    url = file_server(tmp_path / "served")
    monkeypatch.setenv("PERTURBED_UD_BASE_URL", url)
    return url


def ud_cache(tmp_path) -> Path:
    return tmp_path / "perturbed-ud-cache" / "ud" / UD_RELEASE / EWT


def offline_build(tmp_path, name: str):
    return cli("build", "perturbed-ud", "--download", "--offline", "--langs", "en",
               "--limit", 3, "--seeds", 1, "--out", tmp_path / name)  # fmt: skip


def test_a_downloaded_treebank_changed_in_the_cache_is_refused(tmp_path, ud_url):
    download("en", EWT, "test")
    assert offline_build(tmp_path, "before").exit_code == 0
    cached = ud_cache(tmp_path) / EWT_FILES[0]
    downloaded = sha256(cached)
    cached.write_text(ONE_SENTENCE, encoding="utf-8")
    found = sha256(cached)
    refused(offline_build(tmp_path, "after"), str(cached), "not the file downloaded",
            f"expected {downloaded}", f"sha256 {found}", f"remove {cached.parent}")  # fmt: skip
    assert not (tmp_path / "after" / "perturbed-ud").exists()


def test_a_cached_treebank_without_a_download_record_is_fetched_again(tmp_path, ud_url):
    folder = ud_cache(tmp_path)
    folder.mkdir(parents=True)
    for name in EWT_FILES:
        shutil.copyfile(UD_ROOT / EWT / name, folder / name)
    (folder / EWT_FILES[0]).write_text(ONE_SENTENCE, encoding="utf-8")  # put there by hand
    refused(offline_build(tmp_path, "offline"), "has no sha256 recorded at download")
    treebank = download("en", EWT, "test")
    assert sha256(treebank.files[0]) == sha256(UD_ROOT / EWT / EWT_FILES[0])
    assert offline_build(tmp_path, "again").exit_code == 0


def test_paper_grammars_changed_in_the_cache_are_refused(tmp_path):
    """Grammars of our own and a LICENSE of our making where the paper's pinned files go."""
    folder = tmp_path / "perturbed-ud-cache" / "clams" / "clams-36b5c9a"
    shutil.copytree(clams.DEFAULT_GRAMMARS / "de", folder / "de_replication")
    (folder / "LICENSE").write_text("Apache License\nVersion 2.0\n", encoding="utf-8")
    pin = clams.paper_release()["sha256"]["LICENSE"]
    result = cli("build", "clams", "--paper-grammars", "--offline", "--langs", "de",
                 "--out", tmp_path / "out")  # fmt: skip
    refused(result, str(folder / "LICENSE"), f"expected {pin}", f"remove {folder}")
    assert not (tmp_path / "out" / "clams").exists()


# --- F5: evaluate reads exactly the files it hashed ----------------------------------------------

CONFIG = "en_part_seed1"
ORIG = f"{CONFIG}/orig-00000-of-00001.parquet"


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    """A small perturbed-ud build."""
    return perturbed_ud.build("perturbed-ud", tmp_path_factory.mktemp("data"), ud_root=UD_ROOT,
                              langs=["en"], seeds=[1], scrambles=["part"], limit=4)  # fmt: skip


def other_words(folder: Path) -> Path:
    """``folder``'s Parquet files with every word and text made ``ZZZ``, same schema."""
    for path in folder.rglob("*.parquet"):
        table = pq.read_table(path)
        for column in ("words", "perturbed_text"):
            values = [["ZZZ"] * len(v) if isinstance(v, list) else "ZZZ"
                      for v in table[column].to_pylist()]  # fmt: skip
            index = table.schema.get_field_index(column)
            table = table.set_column(index, table.schema.field(index),
                                     pa.array(values, table.schema.field(index).type))  # fmt: skip
        pq.write_table(table.replace_schema_metadata(table.schema.metadata), path)
    return folder


def test_a_card_naming_a_file_outside_the_dataset_is_refused(built, tmp_path, tiny_bert):
    other = other_words(shutil.copytree(built, tmp_path / "other"))
    folder = shutil.copytree(built, tmp_path / "pointing")
    card = folder / "README.md"
    outside = (other / ORIG).resolve()
    card.write_text(card.read_text().replace(f"path: {CONFIG}/orig-*.parquet", f"path: {outside}"))

    def evaluate(name: str):
        return cli("evaluate", "masked-word", "--dataset", folder, "--config", CONFIG,
                   "--model", tiny_bert, "--out", tmp_path / name, "--splits", "orig",
                   "--limit", 2)  # fmt: skip

    # a build: its card must give build.json's layout
    refused(evaluate("run"), "data_files are not the layout build.json records",
            f"is {outside} in the card")  # fmt: skip
    (folder / "build.json").unlink()  # a folder of another tool: read inside it only
    refused(evaluate("again"), f"names {outside}, which is not inside the folder")


def test_a_dataset_swapped_after_it_was_hashed_is_refused(built, tmp_path):
    folder = shutil.copytree(built, tmp_path / "ds")
    content = dataset_content(str(folder))
    other = other_words(shutil.copytree(built, tmp_path / "other"))
    folder.rename(tmp_path / "ds_old")
    shutil.copytree(other, folder)
    with pytest.raises(InputError, match="changed since the dataset was hashed"):
        load_config(str(folder), CONFIG, None, content)


def test_a_split_is_read_from_the_content_cache_by_content(built, tmp_path, tiny_bert):
    content = dataset_content(str(built))
    splits = load_config(str(built), CONFIG, None, content)
    texts = pq.read_table(built / ORIG)["perturbed_text"].to_pylist()
    assert splits["orig"]["perturbed_text"] == texts
    cache = datasets_io.content_cache(content)
    assert {Path(f["filename"]).parent for f in splits["orig"].cache_files} == {cache}
    assert splits["orig"].features == load_dataset(str(built), CONFIG)["orig"].features
    run = tmp_path / "run"
    result = cli("evaluate", "masked-word", "--dataset", built, "--config", CONFIG,
                 "--model", tiny_bert, "--out", run)  # fmt: skip
    assert result.exit_code == 0, result.output
    assert json.loads((run / "run.json").read_text())["dataset_cache"] == str(cache)


# --- F6: lm-eval tasks read the build they name -----------------------------------------------


def rolling_task(tasks: Path, split: str) -> dict:
    """A perplexity task's YAML, with its template's settings."""
    task = task_yaml((tasks / f"perturbed_ud_{CONFIG}_{split}_ppl.yaml").read_text())
    return task_yaml((tasks / task["include"]).read_text()) | task


def test_tasks_read_content_addressed_copies_of_the_build(tmp_path):
    out = tmp_path / "pin"
    build = dict(ud_root=UD_ROOT, langs=["en"], seeds=[1], scrambles=["part"])
    dataset = perturbed_ud.build("perturbed-ud", out, limit=3, **build)
    manifest = json.loads((dataset / "build.json").read_text())
    tasks = perturbed_ud.lm_eval_tasks(dataset, tmp_path / "tasks")
    task = rolling_task(tasks, "orig")
    assert task["custom_dataset"] == "utils.load_data"  # reads data/ beside it
    (name,) = task["dataset_kwargs"]["data_files"]["orig"]
    assert name == f"{sha256(dataset / ORIG)}.parquet"
    assert (tasks / "data" / name).read_bytes() == (dataset / ORIG).read_bytes()
    assert task["metadata"]["content_sha256"] == manifest["content_sha256"]
    perturbed_ud.build("perturbed-ud", out, limit=6, overwrite=True, **build)
    assert sha256(tasks / "data" / name) == name.removesuffix(".parquet")


@pytest.mark.peer
def test_the_harness_scores_the_build_its_tasks_name_after_a_rebuild(tmp_path, tiny_gpt2):
    lm_eval = pytest.importorskip("lm_eval")
    from lm_eval.tasks import TaskManager

    out = tmp_path / "pin"
    build = dict(ud_root=UD_ROOT, langs=["en"], seeds=[1], scrambles=["part"])
    dataset = perturbed_ud.build("perturbed-ud", out, limit=3, **build)
    built_texts = pq.read_table(dataset / ORIG)["perturbed_text"].to_pylist()
    tasks = perturbed_ud.lm_eval_tasks(dataset, tmp_path / "tasks")
    perturbed_ud.build("perturbed-ud", out, limit=6, overwrite=True, **build)
    assert pq.read_table(dataset / ORIG).num_rows == 6
    name = f"perturbed_ud_{CONFIG}_orig_ppl"
    results = lm_eval.simple_evaluate(
        model="hf", model_args={"pretrained": str(tiny_gpt2), "dtype": "float32", "device": "cpu"},
        tasks=[name], task_manager=TaskManager(include_path=str(tasks), include_defaults=False),
        log_samples=True, batch_size=16,
    )  # fmt: skip
    assert [s["arguments"][0][0] for s in results["samples"][name]] == built_texts


# --- F8: a local --hf-dataset folder is read by content ----------------------------------------


def test_a_hf_dataset_file_rewritten_under_its_old_mtime_is_read_anew(tmp_path):
    folder = tmp_path / "hfdata" / "stale"
    folder.mkdir(parents=True)
    data = folder / "test.parquet"
    pq.write_table(pa.table({"text": ["Old one.", "Old two."]}), data)

    def built(name: str) -> Path:
        result = cli("build", "local_structure", "--hf-dataset", folder, "--langs", "en",
                     "--seeds", 1, "--out", tmp_path / name)  # fmt: skip
        assert result.exit_code == 0, result.output
        return tmp_path / name / "local_structure"

    old = built("old")
    mtime = data.stat().st_mtime_ns
    pq.write_table(pa.table({"text": ["New one here.", "New two.", "New three."]}), data)
    os.utime(data, ns=(mtime, mtime))
    new = built("new")
    rows = pq.read_table(next(new.glob("*/unperturbed-*.parquet")))["text_original"].to_pylist()
    assert rows == ["New one here.", "New two.", "New three."]
    manifests = [json.loads((b / "build.json").read_text()) for b in (old, new)]
    assert [m["sources"][0]["files"] for m in manifests] == [
        {"test.parquet": digest} for digest in (manifests[0]["sources"][0]["files"]["test.parquet"],
                                                sha256(data))
    ]  # fmt: skip
    assert manifests[0]["signature"] != manifests[1]["signature"]
    hostile = cli("build", "local_structure", "--hf-dataset", folder, "--langs", "../x",
                  "--seeds", 1, "--out", tmp_path / "hostile")  # fmt: skip
    assert hostile.exit_code == 1 and "language '../x' cannot name a file" in hostile.output


def swap_paths(folder: Path, one: str, other: str) -> None:
    """Swap two splits' ``path:`` lines in a card, the bytes of every file left as built."""
    card = folder / "README.md"
    text = card.read_text(encoding="utf-8")
    a, b = f"path: {CONFIG}/{one}-*.parquet", f"path: {CONFIG}/{other}-*.parquet"
    card.write_text(text.replace(a, "\0").replace(b, a).replace("\0", b), encoding="utf-8")


def test_a_card_mapping_a_split_to_another_splits_files_is_refused(built, tmp_path, tiny_bert):
    """The content hash binds bytes, not which split a file is: a card whose ``orig`` names
    the scrambled files would score them as the original, under the pristine hash."""
    folder = shutil.copytree(built, tmp_path / "swapped")
    swap_paths(folder, "orig", "part")
    why = f"split 'orig' of '{CONFIG}' is {CONFIG}/part-*.parquet in the card"
    result = cli("evaluate", "masked-word", "--dataset", folder, "--config", CONFIG,
                 "--model", tiny_bert, "--out", tmp_path / "run", "--limit", 2)  # fmt: skip
    refused(result, "data_files are not the layout build.json records", why)
    refused(cli("lm-eval-tasks", folder, "--out", tmp_path / "tasks"), why)
    refused(cli("push", folder, "--repo-id", "me/x", "--dry-run"), why)


def test_a_parquet_file_left_below_a_build_changes_nothing(built, tmp_path):
    folder = shutil.copytree(built, tmp_path / "ds")
    shutil.copyfile(folder / ORIG, folder / CONFIG / "notes.parquet")
    (folder / "runs").mkdir()
    shutil.copyfile(folder / ORIG, folder / "runs" / "scores.parquet")
    (folder / "runs" / "cut-short.parquet").write_bytes(b"PAR1")  # not even readable
    recorded = json.loads((folder / "build.json").read_text())["content_sha256"]
    assert dataset_content(str(folder)) == recorded


def test_edited_data_is_refused_against_build_json_without_the_card_line(built, tmp_path):
    folder = shutil.copytree(built, tmp_path / "ds")
    other_words(folder)  # the Parquet files changed
    card = folder / "README.md"
    lines = card.read_text(encoding="utf-8").splitlines(keepends=True)
    card.write_text("".join(x for x in lines if "content_sha256" not in x), encoding="utf-8")
    with pytest.raises(InputError, match="not those build.json records"):
        dataset_content(str(folder))
