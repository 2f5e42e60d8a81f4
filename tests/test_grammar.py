"""Attribute-varying grammars: the released CLAMS evalsets byte for byte, the paper's toy
grammar, and located errors for grammars that cannot mean anything."""

from __future__ import annotations

import tracemalloc
from functools import cache
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import CLAMS_REFERENCE, CONSTRUCTIONS, needs_clams_reference

from perturbed_ud.builders.clams import DEFAULT_GRAMMARS
from perturbed_ud.cli import main
from perturbed_ud.errors import GrammarError
from perturbed_ud.grammar import (
    evalset_lines,
    expand,
    format_evalset,
    generate_folder,
    minimal_sets,
    read_grammar,
    read_grammar_folder,
)

CLAMS = CLAMS_REFERENCE
PACKAGED = DEFAULT_GRAMMARS

TOY_RULES = """S[] je V[1,s]
V[1,s] pense
V[2,s] penses
V[1,p] pensons
V[2,p] pensez
"""


@cache
def released_sets(lang: str):
    return generate_folder(CLAMS / f"{lang}_replication")


def grammar_file(folder: Path, text: str, name: str = "toy.avg", newline: str = "\n") -> Path:
    path = folder / name
    path.write_bytes(text.replace("\n", newline).encode("utf-8"))
    return path


def toy(folder: Path, vary: str) -> list[tuple[bool, str]]:
    return evalset_lines(minimal_sets(read_grammar(grammar_file(folder, vary + "\n" + TOY_RULES))))


def error_of(path: Path, common: Path | None = None) -> GrammarError:
    with pytest.raises(GrammarError) as info:
        minimal_sets(read_grammar(path, common))
    return info.value


# The released evalsets


@needs_clams_reference
@pytest.mark.parametrize("lang", ["de", "fr"])
@pytest.mark.parametrize("construction", CONSTRUCTIONS)
def test_released_grammars_give_released_evalsets(lang, construction):
    text = format_evalset(evalset_lines(released_sets(lang)[construction]))
    expected = (CLAMS / f"{lang}_evalset" / f"{construction}.txt").read_bytes()
    assert text.encode("utf-8") == expected


@pytest.mark.parametrize("lang", ["en", "fr", "de", "he", "ru"])
def test_pairs_locate_the_varied_words(lang):
    for construction, sets in generate_folder(PACKAGED / lang).items():
        for number, minimal_set in enumerate(sets):
            assert minimal_set.item == number and len(minimal_set.pairs) == 1
            for pair in minimal_set.pairs:
                assert pair.construction == construction and pair.good == minimal_set.good
                good, bad = pair.good.split(" "), pair.bad.split(" ")
                assert " ".join(good[i] for i in pair.good_positions) == pair.good_form
                assert " ".join(bad[i] for i in pair.bad_positions) == pair.bad_form
                start, stop = pair.good_positions[0], pair.good_positions[-1] + 1
                bad_stop = pair.bad_positions[-1] + 1
                assert good[:start] == bad[:start] and good[stop:] == bad[bad_stop:]
                assert pair.good_form != pair.bad_form
                assert sorted(pair.varied_attributes) == ["p", "s"]


@needs_clams_reference
def test_pair_fields_of_a_released_item():
    pair = released_sets("de")["obj_rel_within_anim"][0].pairs[0]
    assert pair.good == "die Schriftsteller , die die Wächter mögen , schwimmen"
    assert pair.bad == "die Schriftsteller , die die Wächter mag , schwimmen"
    assert (pair.preterminal, pair.good_form, pair.bad_form) == ("V_1", "mögen", "mag")
    assert (pair.good_attributes, pair.bad_attributes) == (("3", "p"), ("3", "s"))
    assert pair.good_positions == pair.bad_positions == (6,)
    assert pair.template == 1 and pair.varied_attributes == ("p", "s")


@needs_clams_reference
def test_cli_writes_the_released_bytes(tmp_path):
    for lang in ("de", "fr"):
        out = tmp_path / lang
        result = CliRunner().invoke(
            main, ["clams-generate", str(CLAMS / f"{lang}_replication"), str(out)]
        )
        assert result.exit_code == 0, result.output
        assert sorted(p.name for p in out.iterdir()) == [f"{c}.txt" for c in CONSTRUCTIONS]
        for path in out.iterdir():
            assert path.read_bytes() == (CLAMS / f"{lang}_evalset" / path.name).read_bytes()


def test_cli_writes_the_packaged_grammars_evalsets(tmp_path):
    folder = PACKAGED / "fr"
    result = CliRunner().invoke(main, ["clams-generate", str(folder), str(tmp_path / "fr")])
    assert result.exit_code == 0, result.output
    written = sorted((tmp_path / "fr").iterdir())
    assert [p.name for p in written] == [f"{c}.txt" for c in CONSTRUCTIONS]
    generated = generate_folder(folder)
    for path in written:
        expected = format_evalset(evalset_lines(generated[path.stem]))
        assert path.read_bytes() == expected.encode("utf-8")
        assert path.read_bytes().startswith(b"True\t")


def test_line_endings_do_not_matter(tmp_path):
    """CRLF (as in the released German grammars) and a missing final newline read as LF."""
    source = PACKAGED / "de" / "simple_agrmt.avg"
    assert b"\r" not in source.read_bytes()
    crlf = source.read_bytes().replace(b"\n", b"\r\n")
    (tmp_path / "simple_agrmt.avg").write_bytes(crlf.rstrip(b"\r\n"))
    (tmp_path / "common.avg").write_bytes((PACKAGED / "de" / "common.avg").read_bytes())
    assert evalset_lines(generate_folder(tmp_path)["simple_agrmt"]) == evalset_lines(
        generate_folder(PACKAGED / "de")["simple_agrmt"]
    )


# The paper's toy grammar (§3): exactly the outputs the paper lists


def test_toy_vary_any(tmp_path):
    assert toy(tmp_path, "vary: V[]") == [
        (True, "je pense"),
        (False, "je penses"),
        (False, "je pensons"),
        (False, "je pensez"),
    ]


def test_toy_vary_first_person(tmp_path):
    assert toy(tmp_path, "vary: V[1]") == [(True, "je pense"), (False, "je pensons")]


def test_toy_vary_and(tmp_path):
    assert toy(tmp_path, "vary: V[1, s]") == [(True, "je pense")]
    assert toy(tmp_path, "vary: V[s,1]") == [(True, "je pense")]


def test_toy_vary_or(tmp_path):
    expected = [(True, "je pense"), (False, "je penses"), (False, "je pensons")]
    assert toy(tmp_path, "vary: V[1] ; V[s]") == expected
    assert toy(tmp_path, "vary: V[1]\nvary: V[s]") == expected
    assert toy(tmp_path, "vary: V[1]; V[s]; V[]; V[1]") == toy(tmp_path, "vary: V[]")


def test_toy_text_format(tmp_path):
    lines = toy(tmp_path, "vary: V[1]")
    assert format_evalset(lines) == "True\tje pense\nFalse\tje pensons\n"


def test_line_endings_comments_and_spacing(tmp_path):
    text = "# the paper's example\nvary: V[]\n\n" + TOY_RULES.replace("pensez", "pensez  ")
    sets = [
        list(minimal_sets(read_grammar(grammar_file(tmp_path, text, newline=newline))))
        for newline in ("\n", "\r\n")
    ]
    sets.append(list(minimal_sets(read_grammar(grammar_file(tmp_path, text.rstrip("\n"))))))
    assert sets[0] == sets[1] == sets[2]
    assert evalset_lines(sets[0])[-1] == (False, "je pensez")


def test_common_file_is_read_first(tmp_path):
    common = grammar_file(tmp_path, "V[1,s] pense\nV[2,s] penses\n", "common.avg")
    own = grammar_file(tmp_path, "vary: V[]\nS[] je V[1,s] | tu V[2,s]\n", "agr.avg")
    grammars = read_grammar_folder(tmp_path)
    assert list(grammars) == ["agr"]
    assert evalset_lines(minimal_sets(read_grammar(own, common))) == [
        (True, "je pense"),
        (False, "je penses"),
        (True, "tu penses"),
        (False, "tu pense"),
    ]


def test_repeated_left_hand_side_adds_forms(tmp_path):
    path = grammar_file(
        tmp_path,
        "vary: V[]\nS[] on V[3,s]\nV[3,s] rit\nV[3,p] rient\nV[3,s] dort\nV[3,p] dorment\n",
    )
    assert [s.good for s in minimal_sets(read_grammar(path))] == ["on rit", "on dort"]


def test_order_and_positions_with_multiword_forms(tmp_path):
    path = grammar_file(
        tmp_path,
        "vary: V[]\nS[] N[s] V[s] ici\nN[s] le chat | un chien\n"
        "V[s] est là | dort\nV[p] sont là | dorment\n",
    )
    sets = list(minimal_sets(read_grammar(path)))
    # the varied slot varies fastest, the noun slot around it
    assert [s.good for s in sets] == [
        "le chat est là ici",
        "le chat dort ici",
        "un chien est là ici",
        "un chien dort ici",
    ]
    pair = sets[2].pairs[0]
    assert pair.bad == "un chien sont là ici"
    assert (pair.good_positions, pair.bad_positions) == ((2, 3), (2, 3))


def test_plain_slots_after_the_varied_one_vary_slowest(tmp_path):
    path = grammar_file(
        tmp_path,
        "vary: V[]\nS[] A[] V[s] B[]\nA[] a1 | a2\nB[] b1 | b2\nV[s] v1 | v2\nV[p] w1 | w2\n",
    )
    goods = [s.good for s in minimal_sets(read_grammar(path))]
    assert goods[:4] == ["a1 v1 b1", "a1 v2 b1", "a2 v1 b1", "a2 v2 b1"]
    assert goods[4] == "a1 v1 b2"


def test_two_varied_slots_vary_one_at_a_time(tmp_path):
    path = grammar_file(
        tmp_path,
        "vary: D[]; V[]\nS[] D[s] chat V[s]\nD[s] le\nD[p] les\nV[s] dort\nV[p] dorment\n",
    )
    (only,) = minimal_sets(read_grammar(path))
    assert only.lines() == [
        (True, "le chat dort"),
        (False, "les chat dort"),
        (False, "le chat dorment"),
    ]
    assert [p.preterminal for p in only.pairs] == ["D", "V"]


def test_multiword_attributes(tmp_path):
    path = grammar_file(
        tmp_path,
        "vary: V[third person]\nS[] il V[third person, singular]\n"
        "V[singular, third person] dort\nV[third person,plural] dorment\nV[first person] dors\n",
    )
    (only,) = minimal_sets(read_grammar(path))
    assert only.lines() == [(True, "il dort"), (False, "il dorment")]
    assert only.pairs[0].varied_attributes == ("singular", "plural")


# Grammars that cannot mean anything: located errors, never zero sentences


def assert_error(error: GrammarError, path: Path, line: int, words: str) -> None:
    assert str(error).startswith(f"{path}:{line}: "), str(error)
    assert words in str(error)


def test_undefined_preterminal(tmp_path):
    path = grammar_file(tmp_path, "vary: V[]\nS[] je V[1,s]\n\nS[] tu V[2]\nV[1,s] pense\n")
    assert_error(error_of(path), path, 4, "undefined preterminal V[2]")


def test_mismatched_option_counts(tmp_path):
    path = grammar_file(
        tmp_path, "vary: V[]\nS[] je V[1,s]\nV[1,s] pense | crois\nV[1,p] pensons\n"
    )
    assert_error(error_of(path), path, 4, "V[1,p] has 1 forms but V[1,s]")


def test_recursion(tmp_path):
    path = grammar_file(tmp_path, "vary: V[]\nS[] je V[1,s]\nV[1,s] pense | V[1,p]\nV[1,p] x\n")
    assert_error(error_of(path), path, 3, "no recursion")
    path = grammar_file(tmp_path, "vary: V[]\nS[] je V[1,s] S[]\nV[1,s] pense\n")
    assert_error(error_of(path), path, 2, "recursion")


@pytest.mark.parametrize(
    "line, words",
    [
        ("S[] je V[1,s", "malformed preterminal 'V[1,s'"),
        ("S[] je V1,s]", "malformed preterminal"),
        ("S[] je V[1,,s]", "empty attribute"),
        ("S[] je [1,s]", "malformed preterminal"),
        ("S[] je V[1,s] | ", "empty alternative"),
        ("V[1,s]", "has no right-hand side"),
        ("V pense", "a rule starts with Name[attributes]"),
        ("vary V[]", "vary statement"),
        ("vary: V[];", "empty item in the vary statement"),
        ("vary: V", "not Name[attributes]"),
        ("vary:", "names no preterminal"),
        ("S[1] je V[1,s]", "the start symbol takes no attributes"),
    ],
)
def test_syntax_errors(tmp_path, line, words):
    path = grammar_file(tmp_path, "vary: V[]\n# comment\n" + line + "\n" + TOY_RULES)
    assert_error(error_of(path), path, 3, words)


def test_missing_template(tmp_path):
    path = grammar_file(tmp_path, "vary: V[]\nV[1,s] pense\nV[2,s] penses")
    assert_error(error_of(path), path, 3, "no template")


def test_missing_or_unmatched_vary(tmp_path):
    path = grammar_file(tmp_path, "# no vary\n" + TOY_RULES)
    assert_error(error_of(path), path, 2, "no `vary:` statement")
    path = grammar_file(tmp_path, "vary: W[]\n" + TOY_RULES)
    assert_error(error_of(path), path, 1, "vary names W")
    # the paper's V[p] against the slot V[1,s]: nothing to vary, so a located error
    path = grammar_file(tmp_path, "vary: V[p]\n" + TOY_RULES)
    assert_error(error_of(path), path, 2, "the template varies nothing")


def test_errors_in_common_name_common(tmp_path):
    common = grammar_file(tmp_path, "V[1,s] pense\nV[2,s] V[1,s]\n", "common.avg")
    own = grammar_file(tmp_path, "vary: V[]\nS[] je V[1,s]\n", "agr.avg")
    assert_error(error_of(own, common), common, 2, "no recursion")


def test_invalid_utf8(tmp_path):
    path = tmp_path / "bad.avg"
    path.write_bytes(b"vary: V[]\nS[] je V[1,s]\nV[1,s] pens\xe9\n")
    assert_error(error_of(path), path, 3, "not UTF-8")


def test_cli_reports_grammar_errors(tmp_path):
    grammar_file(tmp_path, "vary: V[]\nS[] je V[1,s]\nV[1,s] pense | crois\nV[1,p] pensons\n")
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["clams-generate", str(tmp_path), str(out)])
    assert result.exit_code == 1
    assert f"error: {tmp_path / 'toy.avg'}:4: " in result.output
    assert not out.exists()


# Size: counted before anything is expanded, refused over the limit, generated lazily


def slots_grammar(folder: Path, slots: int, forms: int) -> Path:
    """One template of `slots` slots with `forms` forms each, the last (V) varied."""

    def words(prefix: str) -> str:
        return " | ".join(f"{prefix}{i}" for i in range(forms))

    plain = [f"A{k}[]" for k in range(slots - 1)]
    rules = [f"A{k}[] {words(f'a{k}_')}" for k in range(slots - 1)]
    text = "\n".join(["vary: V[]", f"S[] {' '.join(plain)} V[s]", *rules,
                      f"V[s] {words('v')}", f"V[p] {words('w')}"])  # fmt: skip
    return grammar_file(folder, text + "\n")


def test_an_exploding_grammar_is_refused_before_anything_is_expanded(tmp_path, monkeypatch):
    """8 slots of 10 forms: 10^8 sentences and their variants, which once grew to 1.15 GB in
    90 s without writing a line."""
    monkeypatch.setattr(expand, "_expand", lambda *args, **kwargs: pytest.fail("expanded"))
    path = slots_grammar(tmp_path, 8, 10)
    error = error_of(path)
    assert_error(error, path, 2, "the template expands to 200,000,000 sentences")
    assert f"{' × '.join(['10'] * 8)} combinations of its slots' forms" in str(error)
    assert "over the limit of 1,000,000 sentences per construction" in str(error)
    assert expand.MAX_SENTENCES == 1_000_000
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["clams-generate", str(tmp_path), str(out)])
    assert result.exit_code == 1
    assert result.output.startswith(f"error: {path}:2: the template expands to 200,000,000")
    assert not out.exists()


def test_the_limit_counts_every_template_of_a_construction(tmp_path):
    path = grammar_file(tmp_path, "vary: V[]\nS[] tu V[2,s]\n" + TOY_RULES)
    # two templates of one combination, each sentence with 3 ungrammatical variants
    assert len(evalset_lines(minimal_sets(read_grammar(path), max_sentences=8))) == 8
    error = error_of_limit(path, 7)
    assert_error(error, path, 3, "expands to 4 sentences")
    assert "which takes toy to 8: over the limit of 7 sentences" in str(error)
    assert_error(error_of_limit(path, 3), path, 2, "which takes toy to 4: over the limit of 3")


def error_of_limit(path: Path, max_sentences: int) -> GrammarError:
    with pytest.raises(GrammarError) as info:
        minimal_sets(read_grammar(path), max_sentences=max_sentences)
    return info.value


def test_minimal_sets_are_generated_one_at_a_time(tmp_path):
    grammar = read_grammar(slots_grammar(tmp_path, 3, 30))
    tracemalloc.start()
    try:
        sets = minimal_sets(grammar)
        first = next(sets)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert first.good == "a0_0 a1_0 v0" and first.pairs[0].bad == "a0_0 a1_0 w0"
    assert peak < 1_000_000, f"{peak} bytes to generate one set of 27,000"
    assert 1 + sum(1 for _ in sets) == 30**3
