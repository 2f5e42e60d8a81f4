"""Progress of long work, on a terminal and off one.

On a terminal, a rich progress bar on stderr. Written to a file (nohup, a SLURM log), a bar
shows nothing until it ends, so a line instead every ``every_seconds``: what is done of how
much, the rate, the time left; and a last one at the end. Work done within the first
interval writes no line, so a short job's log holds only what it says itself.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import Progress


@contextmanager
def progress(
    what: str, total: int, unit: str = "rows", *, transient: bool = False, every_seconds=30.0
) -> Iterator[Callable[[int], None]]:
    """``advance(n)``: ``n`` more of ``total`` ``unit`` done, shown as a bar on a terminal or
    as lines in a log."""
    console = Console(stderr=True)
    if console.is_terminal:
        with Progress(transient=transient, console=console) as bar:
            task = bar.add_task(what, total=total)
            yield lambda n=1: bar.advance(task, n)
        return
    lines = ProgressLines(what, total, unit, every_seconds)
    yield lines.advance
    lines.end()


class ProgressLines:
    """Progress as lines on stderr, at most one per ``every_seconds``, and one at the end of
    work that wrote any."""

    def __init__(self, what: str, total: int, unit: str, every_seconds: float):
        self.what, self.total, self.unit, self.every = what, total, unit, every_seconds
        self.done, self.said = 0, False
        self.start = self.last = time.monotonic()

    def advance(self, n: int = 1) -> None:
        self.done += n
        now = time.monotonic()
        if now - self.last >= self.every and self.done < self.total:
            self.last, self.said = now, True
            self._say(self.line(now))

    def end(self) -> None:
        if self.said:
            self._say(self.line(time.monotonic()))

    def line(self, now: float) -> str:
        """``what: 1,024 of 8,000 rows (12.8 %), 35.2 rows/s, about 3 min 18 s left``."""
        elapsed = max(now - self.start, 1e-9)
        rate = self.done / elapsed
        share = f" ({self.done / self.total:.1%})" if self.total else ""
        text = f"{self.what}: {self.done:,} of {self.total:,} {self.unit}{share}"
        text += f", {rate:,.1f} {self.unit}/s"
        if self.done >= self.total:
            return text + f", done in {duration(elapsed)}"
        if rate > 0:
            text += f", about {duration((self.total - self.done) / rate)} left"
        return text

    @staticmethod
    def _say(text: str) -> None:
        print(text, file=sys.stderr, flush=True)


def duration(seconds: float) -> str:
    """``42 s``, ``3 min 18 s``, ``2 h 05 min``."""
    seconds = round(seconds)
    if seconds < 60:
        return f"{seconds} s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes} min {seconds:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"
