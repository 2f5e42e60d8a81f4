"""Which evaluation tasks read which columns: data that lacks a column a command reads is
refused with the commands it does suit, for builds (balance) and evaluations alike."""

from __future__ import annotations

from ..errors import InputError
from ..registry import TASKS


def tasks_reading_columns(names: list[str]) -> list[str]:
    """The tasks whose (default) columns are all among ``names``."""
    found = []
    for name in TASKS.short_names():
        task = TASKS.get(name)
        needed = task.columns(task.settings_class())
        if needed and set(needed) <= set(names):
            found.append(name)
    return found


def require_columns(names: list[str], needed, command: str, where: str) -> None:
    """Refuse data that lacks a column ``command`` reads, naming the commands it suits."""
    missing = [name for name in needed if name not in names]
    if missing:
        suits = [f"`evaluate {t}`" for t in tasks_reading_columns(names)]
        suits = [s for s in suits if s != f"`{command}`"]
        hint = f"; it is data for {' or '.join(suits)}" if suits else ""
        raise InputError(f"{where} lacks the columns {missing} that `{command}` reads{hint}")
