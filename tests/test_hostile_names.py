"""Names that become paths (languages, treebanks, configs, splits, dataset values) cannot
reach outside the output folder, the run folder or the cache; given twice, a file is refused
rather than read twice."""

from __future__ import annotations

import json
import shutil

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner
from conftest import UD_ROOT
from datasets import Features, Value

from perturbed_ud.cli import main
from perturbed_ud.data.writer import ParquetSplitWriter, content_hash
from perturbed_ud.errors import InputError


def cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def files_below(folder):
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*"))


@pytest.mark.parametrize("family", ["perturbed-ud", "spud"])
@pytest.mark.parametrize("lang", ["{outside}/x", "../..", "..", ".hidden"])
def test_a_language_that_is_a_path_is_refused_before_anything_is_written(tmp_path, family, lang):
    outside = tmp_path / "outside"
    outside.mkdir()
    lang = lang.format(outside=outside)
    result = cli("build", family, "--ud-root", UD_ROOT, "--langs", lang,
                 "--treebank", f"{lang}=UD_English-EWT", "--limit", 5, "--seeds", 1,
                 "--out", tmp_path / "out")  # fmt: skip
    assert result.exit_code == 1, result.output
    assert "cannot name a file" in result.output and "Traceback" not in result.output
    assert files_below(outside) == [] and not (tmp_path / "out").exists()


def test_a_treebank_name_cannot_leave_the_download_cache(tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    monkeypatch.setenv("PERTURBED_UD_CACHE", str(cache))
    result = cli("build", "perturbed-ud", "--download", "--offline", "--langs", "en",
                 "--treebank", "en=UD_x/../../../../D", "--out", tmp_path / "out")  # fmt: skip
    assert result.exit_code == 1
    assert "error: treebank 'UD_x/../../../../D' cannot name a file" in result.output
    assert files_below(tmp_path) == []


def test_the_writer_refuses_a_config_or_split_that_is_a_path(tmp_path):
    features = Features({"x": Value("string")})
    writer = ParquetSplitWriter(tmp_path / "root", features)
    rows = pa.table({"x": ["a"]})
    for config, split in (("../evil", "test"), ("en", "../../evil"), ("/abs", "test")):
        with pytest.raises(InputError, match="cannot name a file"):
            writer.write(config, split, rows)
    writer.close()
    assert files_below(tmp_path) == []


def test_a_file_given_twice_is_refused_instead_of_doubling_its_rows(tmp_path):
    source = UD_ROOT / "UD_English-EWT"
    (path,) = source.glob("en_ewt-ud-test.conllu*")
    copy = tmp_path / "copy" / path.name
    copy.parent.mkdir()
    shutil.copy(path, copy)
    for files in ([path, path], [path, copy]):
        args = [x for f in files for x in ("--files", f)]
        result = cli("build", "perturbed-ud", *args, "--limit", 5, "--out", tmp_path / "out")
        assert result.exit_code == 1
        assert "are both en_ewt-ud-test: give it once" in result.output


def test_dataset_values_cannot_move_evaluate_chunks_out_of_the_run(tmp_path, tiny_bert):
    build = cli("build", "perturbed-ud", "--ud-root", UD_ROOT, "--langs", "en", "--seeds", 1,
                "--scrambles", "full", "--limit", 8, "--out", tmp_path / "data")  # fmt: skip
    assert build.exit_code == 0, build.output
    config = tmp_path / "data" / "perturbed-ud" / "en_full_seed1"
    for path in config.glob("*.parquet"):  # a hostile dataset, as the Hub may serve one
        table = pq.read_table(path)
        hostile = pa.array(["../../../EVIL"] * table.num_rows, type=pa.string())
        column = table.schema.get_field_index("lang")
        pq.write_table(table.set_column(column, "lang", hostile), path)
    card = tmp_path / "data" / "perturbed-ud" / "README.md"  # a card and build.json that
    built = card.parent / "build.json"  # vouch for it
    recorded = json.loads(built.read_text())["content_sha256"]
    for vouching in (card, built):
        vouching.write_text(vouching.read_text().replace(recorded, content_hash(card.parent)))
    run = tmp_path / "deep" / "er" / "run"
    result = cli("evaluate", "masked-word", "--dataset", tmp_path / "data" / "perturbed-ud",
                 "--model", tiny_bert, "--out", run)  # fmt: skip
    assert result.exit_code == 1, result.output
    assert "error: chunk folder '..' cannot name a file" in result.output
    assert not list(tmp_path.rglob("EVIL*"))
