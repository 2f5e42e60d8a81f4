"""GitHub Markdown tables, for cards and summaries (no heavy imports: `summarize` uses it)."""

from __future__ import annotations


def markdown_table(header: list[str], rows: list[list]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)
