"""A time budget per formula, so one pathological formula becomes a diagnostic and the rest of the paper is read.

    with formula_budget("eq:15"):
        reading = read_equation(index, eq)      # BudgetExceeded after FORMULA_SECONDS

Every stage is bounded on its own (`papermath.limits`), so the budget is the last line of defence, not the
mechanism. It uses a real-time timer (SIGALRM), so it is active where that is possible: on POSIX, in the main
thread, when the program has not installed its own SIGALRM handler. Elsewhere (threads of a server, Windows)
it does nothing, and the per-stage limits still hold. Budgets do not nest: inside an active one, an inner
`formula_budget` is part of the outer.

Expiry is level-triggered, as a cancel scope is: a stage that catches the exception (a broad `except` around a
library call that answers "no opinion") is interrupted again at the next tick, and a block whose budget ran out
never ends with a result — it ends with `BudgetExceeded`, whatever it caught or raised meanwhile.
"""
from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from .errors import PapermathError
from .limits import FORMULA_SECONDS


class BudgetExceeded(PapermathError):
    """One formula took longer than its time budget (`PAPERMATH_FORMULA_SECONDS`)."""


_ACTIVE = [False]
_EXPIRED = [False]
_AGAIN_SECONDS = 0.05
"""After expiry, the interval at which the budget interrupts again until its block has ended."""


def budget_active() -> bool:
    """Whether a `formula_budget` is running now (an inner one is then part of it)."""
    return _ACTIVE[0]


def _available() -> bool:
    return (hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
            and signal.getsignal(signal.SIGALRM) in (signal.SIG_DFL, None))


@contextmanager
def formula_budget(what: str, seconds: float | None = None) -> Iterator[None]:
    """Raise `BudgetExceeded` in the block after `seconds` (default FORMULA_SECONDS) of wall time."""
    seconds = FORMULA_SECONDS if seconds is None else seconds
    if _ACTIVE[0] or not _available():
        yield
        return

    message = (f"{what}: not read, it took more than {seconds:g} s (the per-formula budget; "
               "PAPERMATH_FORMULA_SECONDS sets it)")

    def expire(signum, frame):
        if _ACTIVE[0]:
            _EXPIRED[0] = True
            signal.setitimer(signal.ITIMER_REAL, _AGAIN_SECONDS)
            raise BudgetExceeded(message)

    previous = signal.signal(signal.SIGALRM, expire)
    _ACTIVE[0] = True
    _EXPIRED[0] = False
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    except BudgetExceeded:
        raise
    except Exception as error:  # what a swallowed expiry left behind (a None used, a half-built value) is the budget's
        if _EXPIRED[0]:
            raise BudgetExceeded(message) from error
        raise
    finally:
        _ACTIVE[0] = False
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    if _EXPIRED[0]:
        raise BudgetExceeded(message)


@contextmanager
def outside_budget() -> Iterator[None]:
    """Work done for the paper rather than for the formula being read (a lazy index parsing another display,
    classifying a sentence): the formula's timer stops meanwhile and resumes with the time it had left, and the
    work inside has budgets of its own (`Paper.parse_result`'s), as when the index was built before the
    reading."""
    if not _ACTIVE[0]:
        yield
        return
    remaining = signal.setitimer(signal.ITIMER_REAL, 0)[0]
    handler = signal.signal(signal.SIGALRM, signal.SIG_DFL)
    _ACTIVE[0] = False
    try:
        yield
    finally:
        signal.signal(signal.SIGALRM, handler)
        _ACTIVE[0] = True
        signal.setitimer(signal.ITIMER_REAL, max(remaining, 1e-3))
