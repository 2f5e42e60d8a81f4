"""A sent_id is one sentence: repeated within a file, or across the files of one treebank (its
test and dev split given together), the build stops at the repeat with both places; the index
behind the check stays exact after its recent entries are merged into sorted arrays."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

import perturbed_ud.ud.sent_ids as sent_ids_module
from perturbed_ud.cli import main
from perturbed_ud.errors import CoNLLUError
from perturbed_ud.ud.sent_ids import SentIds

SENTENCE = (
    "# sent_id = {}\n"
    "1\tDogs\tdog\tNOUN\t_\t_\t2\tnsubj\t_\t_\n"
    "2\tbark\tbark\tVERB\t_\t_\t0\troot\t_\t_\n\n"
)


def test_a_sent_id_repeated_in_another_file_of_the_treebank_stops_the_build(tmp_path):
    test = tmp_path / "en_x-ud-test.conllu"
    dev = tmp_path / "en_x-ud-dev.conllu"
    test.write_text(SENTENCE.format("a") + SENTENCE.format("b"), encoding="utf-8")
    dev.write_text(SENTENCE.format("c") + SENTENCE.format("b"), encoding="utf-8")
    args = ["build", "perturbed-ud", "--files", str(test), "--files", str(dev), "--seeds", "1"]
    result = CliRunner().invoke(main, [*args, "--out", str(tmp_path / "out")])
    assert result.exit_code == 1
    assert result.stderr == f"error: {dev}:5: duplicate sent_id 'b' (first at {test}:5)\n"
    assert not (tmp_path / "out" / "perturbed-ud").exists()


def test_the_index_finds_every_repeat_before_and_after_a_merge(monkeypatch, tmp_path):
    monkeypatch.setattr(sent_ids_module, "RECENT", 8)
    index = SentIds()
    path = tmp_path / "x.conllu"
    for n in range(100):
        index.add(f"s{n}", path, 10 * n + 1)
    assert len(index.hashes) == 96 and len(index.recent) == 4
    for n in (0, 50, 95, 96, 99):  # merged long ago, in the arrays, and still recent
        with pytest.raises(
            CoNLLUError, match=rf"duplicate sent_id 's{n}' \(first at line {10 * n + 1}\)"
        ):
            index.add(f"s{n}", path, 5000)
    index.add("s100", path, 1001)  # a new one is still accepted
