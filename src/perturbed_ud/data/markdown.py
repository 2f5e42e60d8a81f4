"""GitHub Markdown tables, for cards and summaries (no heavy imports: `summarize` uses it)."""

from __future__ import annotations

import re


def markdown_table(header: list[str], rows: list[list]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def code_block(text: str, info: str = "") -> str:
    """A fenced block its text cannot close: the fence is longer than any run of backticks
    inside (READMEs quote their citations in fences of their own)."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{info}\n{text}\n{fence}"
