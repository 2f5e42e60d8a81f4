"""The strict reader: what the UD validator rejects at levels 1 and 2 is a `CoNLLUError` at the
offending line (not the sentence's first), what it accepts still reads, a byte order mark is
dropped, and a valid file comes back byte for byte through a dataset and ``export-conllu``."""

from __future__ import annotations

import gzip
import lzma
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from datasets import Features

from perturbed_ud.data.export import export_conllu
from perturbed_ud.errors import CoNLLUError, InputError
from perturbed_ud.ud.columns import FEATURES, SentenceColumns
from perturbed_ud.ud.conllu_io import read_conllu, write_conllu


def tok(wid, form="w", head=1, deprel="dep", upos="NOUN", **cols) -> str:
    """A word line; ``lemma``, ``xpos``, ``feats``, ``deps`` and ``misc`` default to ``_``."""
    lemma, xpos, feats, deps, misc = (
        cols.get(c, "_") for c in ("lemma", "xpos", "feats", "deps", "misc")
    )
    return "\t".join(map(str, (wid, form, lemma, upos, xpos, feats, head, deprel, deps, misc)))


def root(wid=1, **cols) -> str:
    return tok(wid, "r", 0, "root", "VERB", **cols)


def mwt(span: str, form: str = "ab", lemma: str = "_", feats: str = "_") -> str:
    return "\t".join([span, form, lemma, "_", "_", feats, "_", "_", "_", "_"])


def empty(wid: str, head: str = "_", deprel: str = "_", deps: str = "1:dep") -> str:
    return "\t".join([wid, "e", "_", "NOUN", "_", "_", head, deprel, deps, "_"])


class Bad(str):
    """The line a case's error must name."""


# A valid sentence first, so that the line numbers checked are the file's, not the sentence's.
BEFORE = ["# sent_id = ok", "# text = r w", root(), tok(2), ""]


def bad_file(tmp_path: Path, block: list[str]) -> tuple[Path, int]:
    """The file BEFORE + ``block`` and the line number of the block's `Bad` line."""
    lines = [*BEFORE, "# sent_id = bad", *block]
    (offset,) = [i for i, line in enumerate(lines) if isinstance(line, Bad)]
    path = tmp_path / "bad.conllu"
    path.write_bytes(("\n".join(lines) + "\n\n").encode("utf-8"))
    return path, offset + 1


BAD = {
    # the tree: one root, no cycle
    "two_roots": ([root(), tok(2), Bad(root(3))], "second root"),
    "three_roots": ([root(), Bad(root(2)), root(3)], "second root"),
    "no_root": ([Bad(tok(1, head=2)), tok(2, head=1)], "cycle"),
    "no_root_later_cycle": (
        [tok(1, head=2), tok(2, head=3), Bad(tok(3, head=4)), tok(4, head=3)],
        "cycle",
    ),
    "word_out_of_order": ([root(), Bad(tok(3)), tok(2)], "out of order"),
    "word_repeated": ([root(), tok(2), Bad(tok(2)), tok(3)], "duplicate ID"),
    # multiword tokens: right before their first word, inside the sentence, no overlap
    "range_overlaps": ([mwt("1-2"), root(), Bad(mwt("2-3")), tok(2), tok(3)], "overlaps 1-2"),
    "range_nested": ([mwt("1-3"), Bad(mwt("1-2")), root(), tok(2), tok(3)], "overlaps 1-3"),
    "range_repeated": ([mwt("1-2"), Bad(mwt("1-2")), root(), tok(2)], "overlaps 1-2"),
    "range_after_its_word": ([root(), Bad(mwt("1-2")), tok(2)], "not right before word 1"),
    "range_too_early": ([Bad(mwt("2-3")), root(), tok(2), tok(3)], "not right before word 2"),
    "range_then_empty_node": (
        [root(), Bad(mwt("2-3")), empty("1.1"), tok(2), tok(3)],
        "not right before word 2",
    ),
    "range_past_end": ([root(), Bad(mwt("2-3")), tok(2)], "past the last word 2"),
    "range_at_end": ([root(), tok(2), Bad(mwt("3-4"))], "past the last word 2"),
    "range_of_one_word": (
        [Bad(mwt("1-1")), root(), tok(2)],
        "first word must come before its last",
    ),
    "range_reversed": ([Bad(mwt("2-1")), root(), tok(2)], "first word must come before its last"),
    "range_with_lemma": (
        [Bad(mwt("1-2", lemma="ab")), root(), tok(2)],
        "multiword token with LEMMA",
    ),
    "range_with_space": (
        [Bad(mwt("1-2", form="a b")), root(), tok(2)],
        "FORM 'a b' contains whitespace",
    ),
    # empty nodes: N.1, N.2 … right after word N, HEAD and DEPREL '_'
    "empty_past_end": (
        [root(), tok(2), Bad(empty("3.1"))],
        "past the end of the sentence (2 words)",
    ),
    "empty_far_past_end": (
        [root(), Bad(empty("9.1")), tok(2)],
        "past the end of the sentence (2 words)",
    ),
    "empty_0_after_word_1": ([root(), Bad(empty("0.1")), tok(2)], "must come before word 1"),
    "empty_before_its_word": ([root(), Bad(empty("2.1")), tok(2)], "right after word 2"),
    "empty_after_a_later_word": ([root(), tok(2), Bad(empty("1.1"))], "right after word 1"),
    "empty_out_of_order": ([root(), Bad(empty("1.2")), empty("1.1"), tok(2)], "expected 1.1"),
    "empty_gap": ([root(), empty("1.1"), Bad(empty("1.3")), tok(2)], "expected 1.2"),
    "empty_repeated": ([root(), empty("1.1"), Bad(empty("1.1")), tok(2)], "expected 1.2"),
    "empty_head_zz": ([root(), Bad(empty("1.1", head="zz")), tok(2)], "HEAD 'zz'"),
    "empty_head_word": ([root(), Bad(empty("1.1", head="1")), tok(2)], "HEAD '1'"),
    "empty_deprel": ([root(), Bad(empty("1.1", deprel="dep")), tok(2)], "DEPREL 'dep'"),
    # empty cells and whitespace
    "empty_form": ([root(), Bad(tok(2, "")), tok(3)], "FORM is empty"),
    "empty_lemma": ([root(), Bad(tok(2, lemma="")), tok(3)], "LEMMA is empty"),
    "empty_xpos": ([root(), Bad(tok(2, xpos=""))], "XPOS is empty"),
    "empty_misc": ([root(), Bad(tok(2, misc=""))], "MISC is empty"),
    "empty_id": ([root(), Bad("\t" + tok(2).split("\t", 1)[1])], "ID is empty"),
    "space_form": ([root(), Bad(tok(2, " "))], "starts or ends with whitespace"),
    "leading_space_form": ([root(), Bad(tok(2, " w"))], "starts or ends with whitespace"),
    "trailing_space_lemma": ([root(), Bad(tok(2, lemma="w "))], "starts or ends with whitespace"),
    "double_space_form": ([root(), Bad(tok(2, "a  b"))], "consecutive whitespace"),
    "nbsp_misc_end": ([root(), Bad(tok(2, misc="Gloss=a\xa0"))], "starts or ends with whitespace"),
    "space_upos": ([root(), Bad(tok(2, upos="NO UN"))], "UPOS 'NO UN' contains whitespace"),
    "space_xpos": ([root(), Bad(tok(2, xpos="N N"))], "XPOS 'N N' contains whitespace"),
    "space_feats": (
        [root(), Bad(tok(2, feats="Case=Nom "))],
        "FEATS 'Case=Nom ' contains whitespace",
    ),
    "space_head": ([root(), Bad(tok(2, head="1 "))], "HEAD '1 ' contains whitespace"),
    "space_deprel": ([root(), Bad(tok(2, deprel=" dep"))], "DEPREL ' dep' contains whitespace"),
    "space_deps": ([root(), Bad(tok(2, deps="1:dep "))], "DEPS '1:dep ' contains whitespace"),
    "whitespace_line": ([root(), Bad(" "), tok(2)], "only whitespace"),
    "tab_line": ([root(), Bad("\t\t"), tok(2)], "only whitespace"),
    # control characters and Unicode normalization
    "nul_in_form": ([root(), Bad(tok(2, "w\x00"))], "U+0000 in FORM"),
    "nul_in_misc": ([root(), Bad(tok(2, misc="SpaceAfter=No\x00"))], "U+0000 in MISC"),
    "nul_in_comment": ([Bad("# text = r\x00w"), root(), tok(2)], "U+0000"),
    "escape_in_lemma": ([root(), Bad(tok(2, lemma="\x1b[0m"))], "U+001B in LEMMA"),
    "cr_inside_line": ([root(), Bad(tok(2, "a\rb"))], "U+000D in FORM"),
    "delete_in_form": ([root(), Bad(tok(2, "a\x7f"))], "U+007F in FORM"),
    "not_nfc_form": ([root(), Bad(tok(2, "e\u0301"))], "NFC"),
    "not_nfc_comment": ([Bad("# text = e\u0301"), root(), tok(2)], "NFC"),
    "comment_after_tokens": ([root(), Bad("# note"), tok(2)], "comment after the token lines"),
    # UPOS and DEPREL
    "unknown_upos": ([root(), Bad(tok(2, upos="NOUNX"))], "UPOS 'NOUNX'"),
    "lowercase_upos": ([root(), Bad(tok(2, upos="noun"))], "UPOS 'noun'"),
    "unknown_deprel": ([root(), Bad(tok(2, deprel="foo"))], "'foo' is not a universal relation"),
    "uppercase_deprel": ([root(), Bad(tok(2, deprel="Nsubj"))], "DEPREL 'Nsubj'"),
    "deprel_two_subtypes": ([root(), Bad(tok(2, deprel="nmod:poss:x"))], "DEPREL 'nmod:poss:x'"),
    # FEATS
    "feats_lowercase_name": (
        [root(), Bad(tok(2, feats="case=Nom"))],
        "'case=Nom' is not Name=Value",
    ),
    "feats_lowercase_value": (
        [root(), Bad(tok(2, feats="Case=nom"))],
        "'Case=nom' is not Name=Value",
    ),
    "feats_no_value": ([root(), Bad(tok(2, feats="Case"))], "'Case' is not Name=Value"),
    "feats_empty_value": ([root(), Bad(tok(2, feats="Case="))], "'Case=' is not Name=Value"),
    "feats_trailing_bar": ([root(), Bad(tok(2, feats="Case=Nom|"))], "'' is not Name=Value"),
    "feats_semicolon": ([root(), Bad(tok(2, feats="Case=Nom;Gender=Masc"))], "is not Name=Value"),
    "feats_bad_layer": ([root(), Bad(tok(2, feats="Number[Psor]=Sing"))], "is not Name=Value"),
    "feats_unsorted": ([root(), Bad(tok(2, feats="Number=Sing|Case=Nom"))], "not sorted"),
    "feats_unsorted_ignoring_case": (
        [root(), Bad(tok(2, feats="NumType=Card|Number=Sing"))],
        "not sorted",
    ),
    "feats_name_twice": ([root(), Bad(tok(2, feats="Case=Acc|Case=Nom"))], "gives Case twice"),
    "feats_values_unsorted": ([root(), Bad(tok(2, feats="Case=Nom,Acc"))], "distinct and sorted"),
    "feats_value_twice": ([root(), Bad(tok(2, feats="Case=Acc,Acc"))], "distinct and sorted"),
    "feats_empty_node": (
        [root(), Bad(empty("1.1").replace("NOUN\t_\t_", "NOUN\t_\tcase=Nom")), tok(2)],
        "not Name=Value",
    ),
    # DEPS
    "deps_no_colon": ([root(), Bad(tok(2, deps="1dep"))], "'1dep' is not head:relation"),
    "deps_no_relation": ([root(), Bad(tok(2, deps="1:"))], "'1:' is not head:relation"),
    "deps_bad_head": ([root(), Bad(tok(2, deps="x:dep"))], "'x:dep' is not head:relation"),
    "deps_head_with_zero": ([root(), Bad(tok(2, deps="01:dep"))], "'01:dep' is not head:relation"),
    "deps_trailing_bar": ([root(), Bad(tok(2, deps="1:dep|"))], "'' is not head:relation"),
    "deps_unknown_word": ([root(), Bad(tok(2, deps="9:dep"))], "head 9 is not 0 or an ID"),
    "deps_unknown_empty_node": (
        [root(), Bad(tok(2, deps="1.1:dep"))],
        "head 1.1 is not 0 or an ID",
    ),
    "deps_unsorted": ([root(), tok(2), Bad(tok(3, deps="2:dep|1:dep"))], "not sorted"),
    "deps_unsorted_empty_node": (
        [root(), empty("1.1"), tok(2), Bad(tok(3, deps="2:dep|1.1:dep")), tok(4)],
        "not sorted",
    ),
    "deps_unsorted_relations": ([root(), Bad(tok(2, deps="1:obj|1:dep"))], "not sorted"),
    "deps_twice": ([root(), Bad(tok(2, deps="1:dep|1:dep"))], "gives a relation twice"),
    "deps_self_loop": ([root(), Bad(tok(2, deps="2:dep"))], "its own head"),
    "deps_self_loop_empty_node": (
        [root(), Bad(empty("1.1", deps="1.1:dep")), tok(2)],
        "its own head",
    ),
    "deps_uppercase_relation": (
        [root(), Bad(tok(2, deps="1:Dep"))],
        "'Dep' is not a universal relation",
    ),
    "deps_unknown_relation": (
        [root(), Bad(tok(2, deps="1:foo"))],
        "'foo' is not a universal relation",
    ),
    "deps_too_many_subtypes": ([root(), Bad(tok(2, deps="1:nmod:a:b:c:d"))], "is not relation"),
    "deps_two_free_subtypes": ([root(), Bad(tok(2, deps="1:obl:в:на"))], "is not relation"),
    "deps_case_part_punct": ([root(), Bad(tok(2, deps="1:nmod:'s"))], "not lowercase letters"),
    "deps_case_part_uppercase": ([root(), Bad(tok(2, deps="1:obl:В"))], "not lowercase letters"),
}


@pytest.mark.parametrize("name", list(BAD))
def test_invalid_input_is_an_error_at_the_offending_line(name: str, tmp_path: Path):
    block, fragment = BAD[name]
    path, line = bad_file(tmp_path, block)
    with pytest.raises(CoNLLUError) as err:
        list(read_conllu(path))
    assert (err.value.path, err.value.line) == (str(path), line), err.value.message
    assert fragment in err.value.message
    assert str(err.value).startswith(f"{path}:{line}: ")


def test_an_error_quotes_a_huge_cell_cut_short(tmp_path: Path):
    feats = "|".join(f"F{i:04d}=Yes" for i in range(3000, 0, -1))  # 3,000 items, unsorted
    path, line = bad_file(tmp_path, [root(), Bad(tok(2, feats=feats))])
    with pytest.raises(CoNLLUError) as err:
        list(read_conllu(path))
    assert "is not sorted by feature name" in str(err.value)
    assert len(str(err.value)) < 300 and f"({len(feats):,} characters)" in str(err.value)


GOOD = {
    "enhanced_relations": [
        root(deps="0:root"),
        empty("1.1", deps="1:conj:and"),
        tok(2, deps="1:nmod:poss|1.1:nsubj:pass"),
        tok(3, deps="1:obl:в:acc|2:ref"),
        tok(4, deps="1:obl:according_to"),
        tok(5, deps="1:advcl:إذا"),
    ],
    "feats_sorted_ignoring_case": [root(feats="Number=Sing|NumType=Card")],
    "feats_layers_and_lists": [root(feats="Number[psor]=Plur|Person=3|PronType=Int,Rel")],
    "range_typo": [mwt("1-2", feats="Typo=Yes"), root(), tok(2)],
    "ranges_and_empty_nodes": [
        empty("0.1"),
        empty("0.2"),
        mwt("1-2"),
        root(),
        tok(2),
        empty("2.1"),
        mwt("3-4"),
        tok(3),
        tok(4),
        empty("4.1"),
    ],
    "spaces_inside_form_and_misc": [root(), tok(2, "New York", lemma="New York", misc="Note=a b")],
    "unicode_line_break_in_form": [root(), tok(2, "a\u2028b")],
}


@pytest.mark.parametrize("name", list(GOOD))
def test_valid_input_still_reads(name: str, tmp_path: Path):
    path = tmp_path / "good.conllu"
    lines = ["# sent_id = good", *GOOD[name], ""]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    (sentence,) = read_conllu(path)
    assert sentence.lines == lines[:-1]


@pytest.mark.parametrize("suffix", ["", ".gz", ".xz"])
def test_byte_order_mark_is_dropped(suffix: str, tmp_path: Path):
    text = "\n".join(["# sent_id = a", root(), tok(2), "", "# sent_id = b", root(), tok(2, head=5)])
    compress = {"": bytes, ".gz": gzip.compress, ".xz": lzma.compress}[suffix]
    plain, marked = tmp_path / f"plain.conllu{suffix}", tmp_path / f"bom.conllu{suffix}"
    plain.write_bytes(compress(text.encode("utf-8")))
    marked.write_bytes(compress(b"\xef\xbb\xbf" + text.encode("utf-8")))
    for path in (plain, marked):
        with pytest.raises(CoNLLUError) as err:
            list(read_conllu(path))
        assert err.value.line == 7  # numbering is not shifted by the mark
    text = text.rsplit("\n", 1)[0] + "\n" + tok(2) + "\n"
    plain.write_bytes(compress(text.encode("utf-8")))
    marked.write_bytes(compress(b"\xef\xbb\xbf" + text.encode("utf-8")))
    (a1, b1), (a2, b2) = list(read_conllu(plain)), list(read_conllu(marked))
    assert (a2.sent_id, a2.lines, a2.line, b2.lines) == (a1.sent_id, a1.lines, a1.line, b1.lines)
    assert a2.lines[0] == "# sent_id = a"


# Every kind of line a sentence can hold, and the case of the brief: empty node 8.1 after the
# last word 8 (valid UD), alone and followed by 8.2.
ROUND_TRIP = "\n\n".join(
    "\n".join(block)
    for block in (
        ["# newdoc id = d", "# sent_id = a", "# text = ab c",
         empty("0.1"), mwt("1-2"), root(), tok(2, "b", deps="1:dep"), tok(3, "c"), empty("3.1")],
        ["# sent_id = b", *[root() if i == 1 else tok(i, head=1) for i in range(1, 9)],
         empty("8.1")],
        ["# sent_id = c", "# text = x", root(misc="SpaceAfter=No"), mwt("2-3", "yz"),
         tok(2, "y", feats="Case=Nom|Number=Sing"), tok(3, "z"), empty("3.1"), empty("3.2")],
    )
) + "\n\n"  # fmt: skip


def test_valid_file_comes_back_byte_for_byte_through_export(tmp_path: Path):
    source = tmp_path / "source.conllu"
    source.write_text(ROUND_TRIP, encoding="utf-8")
    sentences = list(read_conllu(source))
    assert [s.n_empty_nodes for s in sentences] == [2, 1, 2]

    written = tmp_path / "written.conllu"
    write_conllu(sentences, written)
    assert written.read_bytes() == source.read_bytes()

    rows = [SentenceColumns.from_sentence(s).row() for s in sentences]
    folder = tmp_path / "dataset"
    (folder / "cfg").mkdir(parents=True)
    table = pa.Table.from_pylist(rows, schema=Features(FEATURES).arrow_schema)
    pq.write_table(table, folder / "cfg" / "orig-00000-of-00001.parquet")
    exported = tmp_path / "exported.conllu"
    assert export_conllu(folder, "cfg", "orig", exported) == 3
    assert exported.read_bytes() == source.read_bytes()


@pytest.mark.parametrize(
    ("column", "wid"),
    [("empty_nodes", "9.1"), ("multiword_tokens", "8-9"), ("multiword_tokens", "9-10")],
)
def test_export_refuses_a_line_it_cannot_place(column: str, wid: str, tmp_path: Path):
    """A dataset built by an older, lenient reader can hold such a line; it is not dropped."""
    source = tmp_path / "source.conllu"
    source.write_text(ROUND_TRIP, encoding="utf-8")
    rows = [SentenceColumns.from_sentence(s).row() for s in read_conllu(source)]
    line = dict(
        rows[0]["empty_nodes"][0] if column == "empty_nodes" else rows[0]["multiword_tokens"][0]
    )
    rows[1][column] = [*rows[1][column], {**line, "id": wid}]
    folder = tmp_path / "dataset"
    (folder / "cfg").mkdir(parents=True)
    table = pa.Table.from_pylist(rows, schema=Features(FEATURES).arrow_schema)
    pq.write_table(table, folder / "cfg" / "orig-00000-of-00001.parquet")
    out = tmp_path / "exported.conllu"
    with pytest.raises(InputError, match=rf"sentence 'b' has {wid} past its last word \(8 words\)"):
        export_conllu(folder, "cfg", "orig", out)
    assert not out.exists()


def test_a_sentence_without_an_end_is_refused_before_it_fills_memory(tmp_path, monkeypatch):
    """Millions of comment lines in one sentence: one error line naming where it starts."""
    from perturbed_ud.ud import conllu_io

    monkeypatch.setattr(conllu_io, "BLOCK_LINES", 1000)
    path = tmp_path / "en_comments-ud-test.conllu"
    body = "".join(f"# comment line {i}\n" for i in range(5000))
    path.write_text("# sent_id = 1\n" + body + "1\tHi\thi\tINTJ\t_\t_\t0\troot\t_\t_\n\n")
    with pytest.raises(conllu_io.CoNLLUError, match=r"en_comments-ud-test.conllu:1: sentence too"):
        list(conllu_io.read_conllu(path))
