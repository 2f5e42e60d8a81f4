"""Progress written to a log (no terminal): lines with counts, rate and time left, where a
progress bar would show nothing until the end."""

from __future__ import annotations

import re

from perturbed_ud.progress import duration, progress


def test_progress_off_a_terminal_is_lines_with_rate_and_time_left(capsys):
    with progress("scoring", 300, every_seconds=0.0) as advance:
        for _ in range(3):
            advance(100)
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 3
    assert re.fullmatch(r"scoring: 100 of 300 rows \(33\.3%\), [\d,.]+ rows/s, about .+ left",
                        lines[0])  # fmt: skip
    assert re.fullmatch(r"scoring: 300 of 300 rows \(100\.0%\), [\d,.]+ rows/s, done in \d+ s",
                        lines[-1])  # fmt: skip


def test_work_done_within_the_interval_writes_no_line(capsys):
    with progress("scoring", 1000, every_seconds=3600.0) as advance:
        for _ in range(10):
            advance(100)
    assert capsys.readouterr().err == ""


def test_durations_read_as_a_person_would_say_them():
    assert [duration(s) for s in (4.4, 198, 7500)] == ["4 s", "3 min 18 s", "2 h 05 min"]
