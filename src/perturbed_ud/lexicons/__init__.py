"""Language resources the builders read; each file's header says where it came from."""

import tomllib
from functools import cache
from importlib.resources import files


@cache
def load_toml(name: str) -> dict:
    """A TOML lexicon shipped with the package, read once per process."""
    return tomllib.loads(files(__package__).joinpath(name).read_text(encoding="utf-8"))


def stoplist(lang: str) -> frozenset[str]:
    """The paper protocol's closed-class safety filter for ``lang`` (empty if none)."""
    return frozenset(load_toml("stoplists.toml").get(lang, {}).get("stop", ()))
