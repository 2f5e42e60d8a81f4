"""The README and docs/ against the code: the command-line reference is the commands' own
help, every relative link leads to a file, the examples are found and never share an output
folder, and the architecture page names every module. (The examples themselves run in CI by
scripts/run_doc_examples.py, which takes minutes.)"""

from __future__ import annotations

import importlib.util
import re
import shlex
import sys

import pytest
from conftest import REPO

DOCS = REPO / "docs"
PAGES = [REPO / "README.md", *sorted(DOCS.rglob("*.md"))]


def script(name: str):
    spec = importlib.util.spec_from_file_location(name, REPO / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def cli_reference():
    return script("cli_reference")


@pytest.fixture(scope="module")
def examples():
    return script("run_doc_examples")


def test_the_committed_cli_reference_is_what_the_commands_print(cli_reference):
    committed = (DOCS / "cli.md").read_text(encoding="utf-8")
    assert committed == cli_reference.reference(), "run python scripts/cli_reference.py"


def test_the_check_mode_fails_on_a_reference_that_drifted(cli_reference, tmp_path, capsys):
    page = tmp_path / "cli.md"
    page.write_text(cli_reference.reference(), encoding="utf-8")
    assert cli_reference.main(["--check", "--output", str(page)]) == 0
    page.write_text(cli_reference.reference().replace("--limit", "--lmit", 1), encoding="utf-8")
    assert cli_reference.main(["--check", "--output", str(page)]) == 1
    assert "out of date" in capsys.readouterr().err
    assert cli_reference.main(["--check", "--output", str(tmp_path / "missing.md")]) == 1


def test_each_family_page_quotes_its_cards_opening(tmp_path, monkeypatch):
    """docs/families/<family>.md quotes the description section of the family's card
    template; a page that drifted from it is caught by the check mode."""
    family_cards = script("family_cards")
    families = family_cards.families()
    assert len(families) >= 6, families
    assert family_cards.main(["--check"]) == 0, "run python scripts/family_cards.py"
    pages = tmp_path / "families"
    pages.mkdir()
    monkeypatch.setattr(family_cards, "PAGES", pages)
    for family in families:
        page = (DOCS / "families" / f"{family}.md").read_text(encoding="utf-8")
        stale = page.replace("<!-- card: description -->\n", "<!-- card: description -->\nOld. ")
        (pages / f"{family}.md").write_text(stale, encoding="utf-8")
        assert family_cards.main(["--check"]) == 1, family
        (pages / f"{family}.md").write_text(page, encoding="utf-8")


def test_a_card_section_is_filled_with_exactly_its_fields():
    from perturbed_ud.builders.family import card_prose, card_template
    from perturbed_ud.registry import FAMILIES

    for name in FAMILIES.short_names():
        assert "description" in card_template(name), name
    text = card_prose("clams", "parameters", languages="en, fr")
    assert text == "Languages: en, fr. Rows: one per minimal pair."
    for values in ({}, {"languages": "en", "rows": 3}):
        with pytest.raises(ValueError, match=r"cards/clams.md, section 'parameters': fields"):
            card_prose("clams", "parameters", **values)
    with pytest.raises(ValueError, match="no such section"):
        card_prose("clams", "parameter", languages="en")
    with pytest.raises(TypeError):  # one template for every card of the process
        card_template("clams")["parameters"] = "changed"


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("<!-- a -->\none\n<!-- ratios-v3 -->\ntwo", "is no section marker"),
        ("<!-- a -->\none\n<!--b-->\ntwo", "is no section marker"),
        ("<!-- a -->\none\n<!-- a -->\ntwo", "section 'a' twice"),
        ("lost\n<!-- a -->\none", "text before the first section marker"),
    ],
)
def test_a_mistyped_card_template_is_refused(text, error):
    """A marker the parser did not take would hide its text inside the previous section."""
    from perturbed_ud.builders.family import parse_card

    with pytest.raises(ValueError, match=error):
        parse_card(text, "cards/x.md")
    assert parse_card("\n<!-- a -->\n\nbody {x}\n\n<!-- b -->\nmore\n", "x") == {
        "a": "body {x}",
        "b": "more",
    }


def test_a_stray_brace_in_card_prose_names_its_section(monkeypatch):
    from perturbed_ud.builders import family

    for body in ("a { b", "a {} b"):
        monkeypatch.setattr(family, "card_template", lambda name, body=body: {"s": body})
        with pytest.raises(ValueError, match=r"cards/x.md, section 's'"):
            family.card_prose("x", "s")


def test_the_reference_covers_every_build_and_evaluate_subcommand(cli_reference):
    from perturbed_ud.registry import FAMILIES, TASKS

    text = cli_reference.reference()
    for name in FAMILIES.short_names():
        assert f"## `perturbed-ud build {name}`" in text
    for name in TASKS.short_names():
        assert f"## `perturbed-ud evaluate {name}`" in text


def commands(command, ctx):
    """Every command below ``command`` with its context, as `--help` builds them."""
    import click

    if not isinstance(command, click.Group):
        yield command, ctx
        return
    for name in command.list_commands(ctx):
        sub = command.get_command(ctx, name)
        yield from commands(sub, click.Context(sub, info_name=name, parent=ctx))


def test_every_default_is_shown_in_the_help():
    """An option that takes a value when left out says which (``[default: …]``), so that
    no setting of a run is chosen silently; flags off by default and unset options need not."""
    import click

    from perturbed_ud.cli import main

    silent = [
        f"{ctx.command_path} {option.opts[0]}"
        for command, ctx in commands(main, click.Context(main, info_name="perturbed-ud"))
        for option in command.params
        if isinstance(option, click.Option) and not option.hidden
        and option.to_info_dict()["default"] not in (None, False, (), [])
        and "default:" not in option.get_help_record(ctx)[1]
    ]  # fmt: skip
    assert silent == []


LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)|!\[[^\]]*\]\(([^)\s]+)\)")


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(REPO).as_posix())
def test_every_relative_link_points_to_a_file(page):
    text = page.read_text(encoding="utf-8")
    text = re.sub(r"```.*?```", "", text, flags=re.S)  # links inside code are not links
    broken = []
    for match in LINK.finditer(text):
        target = (match.group(1) or match.group(2)).split("#", 1)[0]
        if not target or re.match(r"[a-z][a-z0-9+.-]*:", target):  # an anchor or a URL
            continue
        if not (page.parent / target).exists():
            broken.append(target)
    assert not broken, f"{page.relative_to(REPO)}: {broken}"


def test_every_docs_page_is_listed_in_the_index_and_run_in_its_order(examples):
    order = [p.relative_to(REPO).as_posix() for p in examples.ordered_files()]
    assert order[:2] == ["README.md", "docs/index.md"]
    index = (DOCS / "index.md").read_text(encoding="utf-8")
    for page in DOCS.rglob("*.md"):
        if page.name != "index.md":
            assert f"({page.relative_to(DOCS).as_posix()})" in index, page
    assert sorted(order) == sorted(p.relative_to(REPO).as_posix() for p in PAGES)


def _outputs(code: str) -> list[str]:
    """The --out (and --output_path) folders a block's commands write."""
    joined = code.replace("\\\n", " ")
    found = []
    for line in joined.splitlines():
        if line.lstrip().startswith("#"):
            continue
        try:
            words = shlex.split(line, comments=True)
        except ValueError:
            continue
        found += [
            b for a, b in zip(words, words[1:], strict=False) if a in ("--out", "--output_path")
        ]
    return found


def test_the_examples_are_found_and_each_writes_its_own_out(examples):
    blocks = [b for page in examples.ordered_files() for b in examples.blocks(page)]
    runnable = [b for b in blocks if b.runnable]
    where = {b.path for b in runnable}
    assert "README.md" in where
    for page in [*DOCS.glob("families/*.md"), *DOCS.glob("evaluate/*.md")]:
        assert page.relative_to(REPO).as_posix() in where, f"{page} has no example that runs"
    assert {b.info for b in runnable} == {"bash", "python"}
    assert any(b.info == "bash norun" for b in blocks)  # --download, push: shown only

    seen: dict[str, str] = {}
    for block in runnable:
        outs = _outputs(block.code) if block.language == "bash" else []
        outs += re.findall(r"\bout=\"([^\"]+)\"", block.code)  # perturbed_ud.evaluate(out=...)
        for out in outs:
            assert out != "out", f"{block.where}: --out out is the README's first build"
            assert out not in seen, f"{block.where}: --out {out} is written at {seen[out]} too"
            seen[out] = block.where
    assert len(seen) > 40


def test_a_fence_inside_a_list_and_the_norun_mark_are_read(examples, tmp_path):
    page = tmp_path / "page.md"
    page.write_text(
        "text\n\n- item\n\n  ```bash\n  echo one \\\n      two\n  ```\n\n"
        "```bash norun\nperturbed-ud push x\n```\n\n```python\nprint(1)\n```\n",
        encoding="utf-8",
    )
    found = examples.blocks(page, root=tmp_path)
    assert [(b.line, b.info, b.runnable) for b in found] == [
        (5, "bash", True),
        (10, "bash norun", False),
        (14, "python", True),
    ]
    assert found[0].code == "echo one \\\n    two\n"


def test_the_architecture_page_names_every_module():
    page = (DOCS / "architecture.md").read_text(encoding="utf-8")
    source = REPO / "src" / "perturbed_ud"
    missing = [
        path.relative_to(source).as_posix()
        for path in source.rglob("*.py")
        if path.name != "__init__.py" and path.name not in page
    ]
    assert not missing, f"not in docs/architecture.md: {missing}"


@pytest.mark.parametrize("page", ["README.md", "docs/publishing.md"])
def test_the_default_versions_named_are_the_families_own(page):
    """Where a page lists the families' default versions (``2.0.0 for perturbed-ud, clams and
    substitution; 3.2.0 for spud``), it names every family, each with its version."""
    import dataclasses

    from perturbed_ud.registry import FAMILIES

    text = " ".join((REPO / page).read_text(encoding="utf-8").split())
    named = {}
    for version, families in re.findall(r"(\d+\.\d+\.\d+) for (.+?)(?=, \d|;|\))", text):
        for family in re.split(r", | and ", families):
            named[family.strip()] = version
    own = {}
    for name in FAMILIES.short_names():
        fields = dataclasses.fields(FAMILIES.get(name).settings_class)
        own[name] = next(f.default for f in fields if f.name == "version")
    assert named == own


def test_the_effect_columns_named_in_the_docs_are_those_the_code_writes():
    from perturbed_ud.evaluation.tasks.masked_word.statistics import effect_names

    page = (DOCS / "evaluate" / "masked-word.md").read_text(encoding="utf-8")
    named = set(re.findall(r"`((?:S|I)_[A-Za-z]+|part_minus_head)`", page))
    assert named == set(effect_names())


@pytest.mark.parametrize("page", ["README.md", "docs/index.md"])
def test_every_registered_family_and_task_has_its_page_linked(page):
    """The registries are the list: each family and task has a page, which the README's
    table (families) and the docs index (both) link to."""
    from perturbed_ud.registry import FAMILIES, TASKS

    text = (REPO / page).read_text(encoding="utf-8")
    prefix = "docs/" if page == "README.md" else ""
    pages = [f"{prefix}families/{name}.md" for name in FAMILIES.short_names()]
    if page != "README.md":
        pages += [f"evaluate/{name}.md" for name in TASKS.short_names()]
    missing = [link for link in pages if f"]({link})" not in text]
    assert not missing, f"{page} does not link {missing}"
