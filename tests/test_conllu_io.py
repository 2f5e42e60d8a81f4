"""CoNLL-U ingestion: lossless round trips on real UD data, located errors, counted drops."""

from __future__ import annotations

import gzip
import hashlib
import json
import lzma
import re
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner
from conftest import UD_ROOT

import perturbed_ud
from perturbed_ud.builders.engine import build
from perturbed_ud.cli import main
from perturbed_ud.errors import CoNLLUError
from perturbed_ud.ud.conllu_io import read_conllu, write_conllu
from perturbed_ud.ud.selection import Selection
from perturbed_ud.ud.sources import from_files

# The UD excerpts of the test data and the whole PUD treebanks shipped with the package, each
# folder with a sample.json that counts its files from the lines alone (scripts/make_ud_samples.py).
PUD_ROOT = Path(perturbed_ud.__file__).parent / "ud" / "pud"
SAMPLE_ROOTS = [UD_ROOT, PUD_ROOT]


def sample_files(root: Path) -> list[Path]:
    return sorted(p for p in root.glob("UD_*/*") if ".conllu" in p.suffixes)


def sample_records(root: Path) -> dict[Path, dict]:
    """UD folder/file -> its record in ``root/sample.json``."""
    manifest = json.loads((root / "sample.json").read_text(encoding="utf-8"))
    return {
        Path(name) / entry["file"]: entry for name, entries in manifest.items() for entry in entries
    }


SAMPLE_FILES = [
    pytest.param(root, path, id=str(path.relative_to(root.parent)))
    for root in SAMPLE_ROOTS
    for path in sample_files(root)
]

WORD_LINE = re.compile(r"^[1-9][0-9]*\t")
MWT_LINE = re.compile(r"^[1-9][0-9]*-[1-9][0-9]*\t")
EMPTY_LINE = re.compile(r"^[0-9]+\.[1-9][0-9]*\t")


def file_bytes(path: Path) -> bytes:
    """The file's bytes, decompressed when it is stored as .gz or .xz."""
    opener = {".gz": gzip.open, ".xz": lzma.open}.get(path.suffix, open)
    with opener(path, "rb") as f:
        return f.read()


def token_lines(path: Path) -> list[str]:
    text = file_bytes(path).decode("utf-8")
    return [line for line in text.split("\n") if line.strip() and not line.startswith("#")]


def tok(wid, form, head, deprel="dep", upos="NOUN", lemma=None, feats="_", deps="_", misc="_"):
    lemma = form.lower() if lemma is None else lemma
    return "\t".join(map(str, (wid, form, lemma, upos, "_", feats, head, deprel, deps, misc)))


def mwt(span, form):
    return "\t".join([span, form] + ["_"] * 8)


def write_lines(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


# ---------------------------------------------------------------------------------------------
# Round trip on every file of the UD sample and of the packaged PUD treebanks


@pytest.mark.parametrize("root", SAMPLE_ROOTS, ids=["tests-data-ud", "package-pud"])
def test_sample_json_records_exactly_the_files_there(root: Path):
    assert sample_files(root)
    assert set(sample_records(root)) == {p.relative_to(root) for p in sample_files(root)}


@pytest.mark.parametrize(("root", "path"), SAMPLE_FILES)
def test_round_trip_keeps_every_token_line(root: Path, path: Path, tmp_path: Path):
    sentences = list(read_conllu(path))
    out = tmp_path / "written.conllu"
    write_conllu(sentences, out)

    original, written = token_lines(path), token_lines(out)
    assert len(written) == len(original)
    pairs = enumerate(zip(original, written, strict=True))
    mismatches = [(i, a, b) for i, (a, b) in pairs if a != b]
    assert not mismatches, f"first differing token line: {mismatches[0]}"

    n_words = sum(bool(WORD_LINE.match(line)) for line in original)
    n_mwt = sum(bool(MWT_LINE.match(line)) for line in original)
    n_empty = sum(bool(EMPTY_LINE.match(line)) for line in original)
    assert n_words + n_mwt + n_empty == len(original)
    assert sum(len(s) for s in sentences) == n_words
    assert sum(len(s.multiword_tokens) for s in sentences) == n_mwt
    assert sum(s.n_empty_nodes for s in sentences) == n_empty

    data = file_bytes(path)
    sent_ids = re.findall(r"^# sent_id = (.*)$", data.decode("utf-8"), re.M)
    assert [s.sent_id for s in sentences] == sent_ids

    record = sample_records(root)[path.relative_to(root)]
    counts = ("sentences", "words", "multiword_tokens", "empty_nodes")
    assert (len(sentences), n_words, n_mwt, n_empty) == tuple(record[k] for k in counts)
    if root == PUD_ROOT:  # the whole treebank, byte for byte as released
        assert len(sentences) == record["sentences_in_release"]
        assert hashlib.sha256(data).hexdigest() == record["release_sha256"]
    else:
        assert len(sentences) <= record["sentences_in_release"]


def test_word_columns_skip_ranges_and_empty_nodes(tmp_path: Path):
    path = write_lines(
        tmp_path / "de_x-ud-test.conllu",
        [
            "# sent_id = a",
            "# text = Er geht zum Markt.",
            tok(1, "Er", 2, "nsubj", "PRON", "er"),
            tok(2, "geht", 0, "root", "VERB", "gehen", deps="0:root|2.1:dep"),
            "2.1\tgehen\tgehen\tVERB\t_\t_\t_\t_\t2:conj\t_",
            mwt("3-4", "zum"),
            tok(3, "zu", 5, "case", "ADP"),
            tok(4, "dem", 5, "det", "DET", "der", feats="Case=Dat|Gender=Masc"),
            tok(5, "Markt", 2, "obl", misc="SpaceAfter=No|Gloss=a=b"),
            tok(6, ".", 2, "punct", "PUNCT"),
        ],
    )
    (s,) = read_conllu(path)
    assert s.forms == ["Er", "geht", "zu", "dem", "Markt", "."]
    assert s.heads == [2, 0, 5, 5, 2, 2]
    assert s.feats[3] == "Case=Dat|Gender=Masc"
    assert [(m.start, m.end, m.form) for m in s.multiword_tokens] == [(2, 3, "zum")]
    assert s.n_empty_nodes == 1
    assert (s.sent_id, s.text, s.line) == ("a", "Er geht zum Markt.", 1)

    out = tmp_path / "out.conllu"
    write_conllu([s], out)
    assert token_lines(out) == token_lines(path)


def test_crlf_and_unicode_line_separators(tmp_path: Path):
    lines = [
        "# sent_id = a",
        "# text = one\u2028two \x85 three",
        tok(1, "one", 0, "root"),
        tok(2, "two\u2028two", 1, "dep"),
        "",
        "# sent_id = b",
        tok(1, "x", 0, "root"),
        tok(2, "y", 5, "dep"),
    ]
    path = tmp_path / "seps.conllu"
    path.write_bytes("\r\n".join(lines).encode("utf-8") + b"\r\n")
    with pytest.raises(CoNLLUError) as err:
        list(read_conllu(path))
    assert (err.value.path, err.value.line) == (str(path), 8)

    path.write_bytes("\r\n".join(lines[:5]).encode("utf-8"))
    (s,) = read_conllu(path)
    assert s.forms == ["one", "two\u2028two"]
    assert s.text == "one\u2028two \x85 three"
    out = tmp_path / "out.conllu"
    write_conllu([s], out)
    assert token_lines(out) == lines[2:4]


# ---------------------------------------------------------------------------------------------
# Broken files: the error names the file and the exact line

GOOD = [
    "# newdoc id = d1",
    "# sent_id = s1",
    "# text = The dog barks .",
    tok(1, "The", 2, "det", "DET"),
    tok(2, "dog", 3, "nsubj"),
    tok(3, "barks", 0, "root", "VERB", "bark"),
    tok(4, ".", 3, "punct", "PUNCT"),
    "",
    "# sent_id = s2",
    mwt("1-2", "dogs'"),
    tok(1, "dogs", 3, "nmod:poss"),
    tok(2, "'", 1, "case", "PART"),
    tok(3, "bone", 0, "root"),
    "",
]
NEXT = len(GOOD) + 1  # line number of the first line after GOOD


def _case(*block: str) -> list[str]:
    return [*GOOD, "# sent_id = bad", *block]


BROKEN = {
    "nine_columns": (
        _case(tok(1, "a", 0, "root"), "2\tb\tb\tNOUN\t_\t_\t1\tdep\t_", tok(3, "c", 1)),
        NEXT + 2,
        "10 tab-separated columns",
    ),
    "spaces_not_tabs": (
        _case(tok(1, "a", 0, "root"), "2 b b NOUN _ _ 1 dep _ _"),
        NEXT + 2,
        "10 tab-separated columns",
    ),
    "non_integer_head": (
        _case(tok(1, "a", 0, "root"), tok(2, "b", "one"), tok(3, "c", 1)),
        NEXT + 2,
        "HEAD",
    ),
    "negative_head": (
        _case(tok(1, "a", 0, "root"), tok(2, "b", -1)),
        NEXT + 2,
        "HEAD",
    ),
    "head_out_of_range": (
        _case(tok(1, "a", 0, "root"), tok(2, "b", 1), tok(3, "c", 4)),
        NEXT + 3,
        "out of range",
    ),
    "own_head": (
        _case(tok(1, "a", 0, "root"), tok(2, "b", 2)),
        NEXT + 2,
        "own head",
    ),
    "head_cycle": (
        _case(tok(1, "a", 0, "root"), tok(2, "b", 3), tok(3, "c", 4), tok(4, "d", 2)),
        NEXT + 2,
        "cycle",
    ),
    "duplicate_word_id": (
        _case(tok(1, "a", 0, "root"), tok(2, "b", 1), tok(2, "c", 1), tok(3, "d", 1)),
        NEXT + 3,
        "duplicate ID",
    ),
    "duplicate_sent_id": (
        [*GOOD, "# newdoc id = d2", "# newpar", "# sent_id = s1", tok(1, "a", 0, "root")],
        NEXT + 2,
        "first at line 2",
    ),
}


@pytest.mark.parametrize("name", list(BROKEN))
def test_broken_file_names_file_and_line(name: str, tmp_path: Path):
    lines, line, message = BROKEN[name]
    path = write_lines(tmp_path / f"{name}.conllu", lines)
    with pytest.raises(CoNLLUError) as err:
        list(read_conllu(path))
    assert err.value.path == str(path)
    assert err.value.line == line
    assert message in err.value.message
    assert str(err.value).startswith(f"{path}:{line}: ")


@pytest.mark.parametrize(
    ("data", "line"),
    [
        pytest.param(b"", 1, id="empty"),
        pytest.param(b"\n\n\n", 1, id="only_blank_lines"),
        pytest.param(
            "\n".join(GOOD).encode()
            + b"\n# sent_id = u\n1\tcaf\xe9\t_\tNOUN\t_\t_\t0\troot\t_\t_\n",
            NEXT + 1,
            id="latin1_byte",
        ),
        pytest.param(
            "\n".join(GOOD[:5]).encode() + b"\n2\tdo\xe2\x82\tdog\tNOUN\t_\t_\t3\tnsubj\t_\t_\n",
            6,
            id="truncated_sequence",
        ),
    ],
)
def test_unreadable_file_names_file_and_line(data: bytes, line: int, tmp_path: Path):
    path = tmp_path / "bad.conllu"
    path.write_bytes(data)
    with pytest.raises(CoNLLUError) as err:
        list(read_conllu(path))
    assert (err.value.path, err.value.line) == (str(path), line)


# ---------------------------------------------------------------------------------------------
# Not errors: sentences dropped (and counted) by a build, and the '_' lemma fallback

DROPS = [
    "# sent_id = content",
    "# text = The dog barks.",
    tok(1, "The", 2, "det", "DET", "the"),
    tok(2, "dog", 3, "nsubj", "NOUN", "dog"),
    tok(3, "barks", 0, "root", "VERB", "bark"),
    tok(4, ".", 3, "punct", "PUNCT", "."),
    "",
    "# sent_id = punct",
    "# text = ...!",
    tok(1, "...", 0, "root", "PUNCT", "..."),
    tok(2, "!", 1, "punct", "PUNCT", "!"),
    "",
    "# sent_id = function",
    "# text = All of them!",
    tok(1, "All", 0, "root", "DET", "all"),
    tok(2, "of", 3, "case", "ADP", "of"),
    tok(3, "them", 1, "nmod", "PRON", "they"),
    tok(4, "!", 1, "punct", "PUNCT", "!"),
    "",
    "# sent_id = nolemma",
    "# text = It is Zorblax.",
    tok(1, "It", 3, "nsubj", "PRON", "it"),
    tok(2, "is", 3, "cop", "AUX", "be"),
    tok(3, "Zorblax", 0, "root", "PROPN", "_"),
    tok(4, ".", 3, "punct", "PUNCT", "."),
]


def _split(folder: Path, config: str, split: str) -> list[dict]:
    return pq.read_table(folder / config / f"{split}-00000-of-00001.parquet").to_pylist()


def test_build_counts_drops_and_falls_back_to_form(tmp_path: Path):
    path = write_lines(tmp_path / "en_test-ud-test.conllu", DROPS)
    folder = build(
        "perturbed-ud", tmp_path / "out", treebanks=from_files([path]), seeds=[1],
        selection=Selection(),
    )  # fmt: skip
    assert folder == tmp_path / "out" / "perturbed-ud"
    manifest = json.loads((folder / "build.json").read_text(encoding="utf-8"))

    assert sorted(manifest["configs"]) == ["en_full_seed1", "en_head_seed1", "en_part_seed1"]
    for config in manifest["configs"].values():
        assert config["sentences"] == 4
        assert config["sentence_drops"] == {"no_content_word": 1, "only_punctuation": 1}
        assert set(config["splits"].values()) == {2}
    # Part shuffles the content words among themselves: one per sentence here, so nothing
    # moves, and the paper drops such rows.
    part = manifest["configs"]["en_part_seed1"]
    assert part["row_drops"] == {"part:no_movement": 2, "part_lemma:no_movement": 2}
    assert part["empty_splits"] == ["part", "part_lemma"]

    for family in ("full", "head"):
        config = f"en_{family}_seed1"
        for split in ("orig", family, "orig_lemma", f"{family}_lemma"):
            rows = _split(folder, config, split)
            assert [r["sent_id"] for r in rows] == ["content", "nolemma"]

        orig = {r["sent_id"]: r for r in _split(folder, config, "orig")}
        lemma = {r["sent_id"]: r for r in _split(folder, config, "orig_lemma")}
        assert orig["nolemma"]["words"] == ["It", "is", "Zorblax", "."]
        assert lemma["nolemma"]["words"] == ["it", "be", "Zorblax", "."]
        assert lemma["content"]["words"] == ["the", "dog", "bark", "."]
        assert lemma["nolemma"]["lemmas"] == ["it", "be", "_", "."]
        assert lemma["nolemma"]["target_index"] == 2
        assert lemma["nolemma"]["target"] == "Zorblax"
        assert lemma["nolemma"]["target_lemma"] == "Zorblax"
        assert orig["nolemma"]["target"] == "Zorblax"

        (moved,) = [
            r for r in _split(folder, config, f"{family}_lemma") if r["sent_id"] == "nolemma"
        ]
        assert sorted(moved["words"]) == sorted(["it", "be", "Zorblax", "."])
        assert moved["words"][moved["target_index"]] == moved["target"] == "Zorblax"


# ---------------------------------------------------------------------------------------------
# The CLI never leaves partial output


def _cli(*args: str):
    return CliRunner().invoke(main, ["build", "perturbed-ud", "--seeds", "1", *args])


def _broken_late(path: Path) -> tuple[Path, int]:
    lines = [*GOOD, "# sent_id = late", tok(1, "a", 0, "root"), tok(2, "b", 9, "dep")]
    return write_lines(path, lines), len(lines)


def test_cli_broken_later_file_leaves_nothing(tmp_path: Path):
    good = write_lines(tmp_path / "en_test-ud-test.conllu", DROPS)
    bad, line = _broken_late(tmp_path / "de_test-ud-test.conllu")
    out = tmp_path / "out"
    result = _cli("--files", str(good), "--files", str(bad), "--out", str(out))
    assert result.exit_code == 1, result.output
    assert f"{bad}:{line}:" in result.stderr
    assert not out.exists()  # the folder it created, the partial build inside it, are gone


def test_cli_refuses_existing_output(tmp_path: Path):
    good = write_lines(tmp_path / "en_test-ud-test.conllu", DROPS)
    out = tmp_path / "out"
    existing = out / "perturbed-ud"
    existing.mkdir(parents=True)
    (existing / "keep.txt").write_text("old build", encoding="utf-8")
    (existing / "build.json").write_text("{}", encoding="utf-8")  # --overwrite replaces datasets
    old = ["build.json", "keep.txt"]

    result = _cli("--files", str(good), "--out", str(out))
    assert result.exit_code == 1
    assert "--overwrite" in result.stderr
    assert [p.name for p in out.iterdir()] == ["perturbed-ud"]
    assert sorted(p.name for p in existing.iterdir()) == old
    assert (existing / "keep.txt").read_text(encoding="utf-8") == "old build"

    bad, line = _broken_late(tmp_path / "de_test-ud-test.conllu")
    result = _cli("--files", str(good), "--files", str(bad), "--out", str(out), "--overwrite")
    assert result.exit_code == 1
    assert f"{bad}:{line}:" in result.stderr
    assert [p.name for p in out.iterdir()] == ["perturbed-ud"]
    assert sorted(p.name for p in existing.iterdir()) == old

    result = _cli("--files", str(good), "--out", str(out), "--overwrite")
    assert result.exit_code == 0, result.output
    assert [p.name for p in out.iterdir()] == ["perturbed-ud"]
    assert not (existing / "keep.txt").exists()
    assert (existing / "build.json").is_file()
