"""GitHub Markdown tables, for cards and summaries (no heavy imports: `summarize` uses it)."""

from __future__ import annotations

import math
import re

# A run of backslashes before a pipe: doubled, so that the pipe's own escape is not undone.
_PIPE = re.compile(r"(\\*)\|")
_LINE_BREAKS = re.compile(r"[\r\n\v\f\x1c-\x1e\x85\u2028\u2029]+")


def table_cell(value) -> str:
    """A value as one table cell: a pipe would end the cell and a line break the row, so
    pipes are escaped and line breaks become spaces (Markdown inside, such as `code`,
    stays)."""
    text = _LINE_BREAKS.sub(" ", str(value))
    return _PIPE.sub(lambda m: m.group(1) * 2 + "\\|", text)


def markdown_table(header: list[str], rows: list[list]) -> str:
    lines = ["| " + " | ".join(map(table_cell, header)) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(map(table_cell, row)) + " |" for row in rows]
    return "\n".join(lines)


def frame_table(table, digits: int = 4) -> str:
    """A DataFrame as a Markdown table; floats rounded for reading (the CSV keeps every
    digit), NaN left blank."""

    def cell(value) -> str:
        if isinstance(value, float):
            return "" if math.isnan(value) else f"{value:.{digits}f}"
        return str(value)

    rows = [[cell(v) for v in row] for row in table.itertuples(False)]
    return markdown_table(list(table.columns), rows) + "\n"


def _fence(text: str, shortest: int) -> str:
    """Backticks that no run of backticks inside ``text`` can close."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    return "`" * max(shortest, longest + 1)


def code_block(text: str, info: str = "") -> str:
    """A fenced block its text cannot close: the fence is longer than any run of backticks
    inside (READMEs quote their citations in fences of their own)."""
    fence = _fence(text, 3)
    return f"{fence}{info}\n{text}\n{fence}"


def inline_code(text: str) -> str:
    """``text`` as one code span on one line, whatever backticks or line breaks it holds."""
    text = _LINE_BREAKS.sub(" ", text)
    fence = _fence(text, 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"
