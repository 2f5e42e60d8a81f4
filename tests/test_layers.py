"""The package's layers, read from the source: no module imports from a layer above its own
(even inside a function), and the imports made when modules load form no cycle."""

from __future__ import annotations

import ast
from pathlib import Path

import perturbed_ud

ROOT = Path(perturbed_ud.__file__).parent
# Lowest first. A module may import from its own layer and those below.
LAYERS = [
    {"errors", "files", "rng", "options", "settings", "registry", "releases", "download",
     "licences", "lexicons", "version", "manifest", "redaction", "progress"},
    {"ud"},
    {"lm"},
    {"resources"},  # lexicons of word forms and WordNet: read by perturbations and grammars
    {"perturb"},
    {"grammar"},
    {"data"},
    {"builders", "evaluation"},  # siblings: neither imports the other
    {"api"},
    {"cli", "__main__", "__init__"},
]  # fmt: skip


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path, *, loading_only: bool, source: str | None = None) -> set[str]:
    """The perturbed_ud modules ``path`` imports (read from ``source`` if given); with
    ``loading_only``, only those imported when it loads (not inside functions)."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    tree = ast.parse(source if source is not None else path.read_text(encoding="utf-8"))
    found = set()
    for node in tree.body if loading_only else ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            if target.startswith("perturbed_ud"):
                found |= {_module(target, alias.name) for alias in node.names}
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("perturbed_ud")}
    return found


def _module(target: str, name: str) -> str:
    """``from target import name``: the module name, or target when name is an attribute."""
    sub = ROOT.parent / f"{target}.{name}".replace(".", "/")
    return f"{target}.{name}" if sub.is_dir() or sub.with_suffix(".py").is_file() else target


def layer(module: str) -> int:
    part = module.split(".")[1] if "." in module else "__init__"
    for rank, members in enumerate(LAYERS):
        if part in members:
            return rank
    raise AssertionError(f"{module} is in no layer: add its folder to LAYERS")


SOURCES = sorted(ROOT.rglob("*.py"))


def test_no_module_imports_from_a_layer_above_its_own():
    upward = [
        f"{module_name(path)} imports {target}"
        for path in SOURCES
        for target in imports(path, loading_only=False)
        if layer(module_name(path)) < layer(target)
    ]
    assert not upward


def test_builders_and_evaluation_do_not_import_each_other():
    """Both stand on data/: a family never depends on how it is evaluated, nor a task on
    how a family builds."""

    def package(module: str) -> str:
        return (module.split(".") + [""])[1]

    crossing = [
        f"{module_name(path)} imports {target}"
        for path in SOURCES
        for target in imports(path, loading_only=False)
        if {package(module_name(path)), package(target)} == {"builders", "evaluation"}
    ]
    assert not crossing


# evaluation/'s sub-packages, lowest first: what every run shares, what a reader sees, what
# the tasks compute, the tasks.
EVALUATION_LAYERS = [{"running"}, {"reporting"}, {"measures", "finetune"}, {"tasks"}]


def evaluation_layer(module: str) -> int | None:
    parts = module.split(".")
    if len(parts) < 3 or parts[1] != "evaluation":
        return None
    for rank, members in enumerate(EVALUATION_LAYERS):
        if parts[2] in members:
            return rank
    raise AssertionError(f"{module} is in no layer of evaluation/: add it to EVALUATION_LAYERS")


def test_evaluations_sub_packages_import_only_downwards():
    upward = [
        f"{module_name(path)} imports {target}"
        for path in SOURCES
        if (own := evaluation_layer(module_name(path))) is not None
        for target in imports(path, loading_only=False)
        if (other := evaluation_layer(target)) is not None and own < other
    ]
    assert not upward


def test_modules_import_each_other_in_no_cycle_when_they_load():
    graph = {module_name(p): imports(p, loading_only=True) for p in SOURCES}
    done, stack = set(), []

    def visit(module: str) -> None:
        if module in stack:
            cycle = stack[stack.index(module) :] + [module]
            raise AssertionError("import cycle: " + " -> ".join(cycle))
        if module in done:
            return
        stack.append(module)
        for target in sorted(graph.get(module, ())):
            if target != "perturbed_ud":  # the package itself: its __init__ is loaded first
                visit(target)
        stack.pop()
        done.add(module)

    for module in sorted(graph):
        visit(module)


def test_the_layer_check_sees_an_upward_import():
    """The check reads relative imports as Python does: a data module reaching for the
    builders, or a lazy import inside a function, is caught."""
    writer = ROOT / "data" / "writer.py"
    assert "perturbed_ud.errors" in imports(writer, loading_only=False)
    lazy = "def f():\n    from ..builders.family import DatasetFamily\n"
    found = imports(writer, loading_only=False, source=lazy)
    assert found == {"perturbed_ud.builders.family"}
    assert layer("perturbed_ud.data.writer") < layer("perturbed_ud.builders.family")
    assert layer("perturbed_ud.builders.family") == layer("perturbed_ud.evaluation.running.runner")
    runner = "perturbed_ud.evaluation.running.runner"  # a run's code reaching for a report's
    assert evaluation_layer(runner) < evaluation_layer("perturbed_ud.evaluation.reporting.tables")
    assert not imports(writer, loading_only=True, source=lazy)


def test_only_the_command_line_uses_click():
    """The library converts, checks and warns on its own (`settings.field_value`,
    `warnings`); click, and what it prints, belongs to `cli.py`."""
    users = [
        module_name(path)
        for path in SOURCES
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Import | ast.ImportFrom)
        and any((getattr(node, "module", None) or a.name).split(".")[0] == "click"
                for a in node.names)
    ]  # fmt: skip
    assert set(users) == {"perturbed_ud.cli"}
