"""The worker processes of a run (``--num-proc``) end when the run's process ends.

`datasets.map` forks its workers and a manager process that carries their results. A run
ended by SIGKILL (the out-of-memory killer, a scheduler's time limit, ``kill -9``) cannot stop
them, and they would live on as orphans, each holding a copy of the model (on a GPU, its
memory). Every process forked while a run maps over several workers asks Linux to send it
SIGTERM when the run's process ends (``prctl(PR_SET_PDEATHSIG)``). Elsewhere nothing is
asked.
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager

_PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>
_parent: int | None = None  # the run's process, while it forks workers


def _end_with_parent() -> None:
    """In a process just forked by a run's map: end when the run's process ends (also if it
    already has, before the request was made)."""
    if _parent is None:
        return
    import ctypes

    ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
    if os.getppid() != _parent:
        os.kill(os.getpid(), signal.SIGTERM)


if sys.platform.startswith("linux"):
    os.register_at_fork(after_in_child=_end_with_parent)


@contextmanager
def workers_end_with_this_process() -> Iterator[None]:
    """Inside the block, every process this one forks ends when this one ends."""
    global _parent
    _parent = os.getpid()
    try:
        yield
    finally:
        _parent = None
