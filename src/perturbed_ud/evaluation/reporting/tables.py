"""Tables as every task writes them: CSV that a spreadsheet reads as text, with a Markdown
twin where asked, credentials redacted."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ...data.markdown import frame_table
from ...files import atomic_path, write_text
from ...redaction import redact


def spreadsheet_text(text: str) -> str:
    """Text a spreadsheet shows as text: a leading ``=``, ``+``, ``-`` or ``@`` would start
    a formula (``=HYPERLINK(...)`` in a model name)."""
    return "'" + text if text[:1] in ("=", "+", "-", "@") else text


def write_table(table: pd.DataFrame, path: str | Path, *, markdown: bool = False) -> list[Path]:
    """``table`` as CSV (pandas' float repr, no index, ``\\n`` line ends), optionally a .md twin;
    a model name or other text that holds a credential is written redacted, and text that a
    spreadsheet would run as a formula is written as text."""
    path = Path(path)
    table = table.map(lambda value: redact(value) if isinstance(value, str) else value)
    cells = table.map(lambda value: spreadsheet_text(value) if isinstance(value, str) else value)
    with atomic_path(path) as tmp:
        cells.to_csv(tmp, index=False, lineterminator="\n")
    written = [path]
    if markdown:
        md = path.with_suffix(".md")
        write_text(md, frame_table(table))
        written.append(md)
    return written
