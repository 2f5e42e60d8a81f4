"""Quote each family's card opening in its page: docs/families/<family>.md holds, between
``<!-- card: description -->`` and ``<!-- /card -->``, the ``description`` section of the
family's card template (``src/perturbed_ud/builders/cards/<family>.md``), so the page and
every card say the same.

    python scripts/family_cards.py           # rewrite the quoted sections
    python scripts/family_cards.py --check   # exit 1 if a page quotes an older text
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from perturbed_ud.builders.family import card_prose
from perturbed_ud.registry import FAMILIES

ROOT = Path(__file__).resolve().parent.parent
PAGES = ROOT / "docs" / "families"
QUOTED = re.compile(r"(<!-- card: description -->\n)(?:.*?\n)?(<!-- /card -->)", re.DOTALL)


def quoted(page: str, family: str) -> str:
    """``page`` with its quoted card opening set to the family's template."""
    text = card_prose(family, "description")
    if not QUOTED.search(page):
        raise SystemExit(f"docs/families/{family}.md: no <!-- card: description --> section")
    return QUOTED.sub(lambda m: m.group(1) + text + "\n" + m.group(2), page)


def families() -> list[str]:
    """The families shipped with a page of their own."""
    return [name for name in FAMILIES.short_names() if (PAGES / f"{name}.md").is_file()]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true")
    check = parser.parse_args(argv).check
    stale = []
    for family in families():
        path = PAGES / f"{family}.md"
        page = path.read_text(encoding="utf-8")
        new = quoted(page, family)
        if new != page:
            stale.append(path.name)
            if not check:
                path.write_text(new, encoding="utf-8")
    if check and stale:
        print(
            f"out of date: {', '.join(stale)}; run python scripts/family_cards.py", file=sys.stderr
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
