"""The HTML pages perturbed-ud writes (the comparison report, the review sheet): templates of
this package that extend one page frame (``page.html``: its content security policy, head
and body), rendered with every text from the data escaped."""

from __future__ import annotations

from importlib.resources import files

from jinja2 import Environment, FunctionLoader, StrictUndefined, Template


def page_template(name: str, **filters) -> Template:
    """The page template ``name`` with ``filters``; a name it does not know fails instead
    of showing blank."""
    environment = Environment(
        loader=FunctionLoader(lambda page: files(__package__).joinpath(page).read_text("utf-8")),
        autoescape=True, undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True,
    )  # fmt: skip
    environment.filters.update(filters)
    return environment.get_template(name)
