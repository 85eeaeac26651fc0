"""A thread-safe token bucket that keeps every thread sharing one client under SEC's rate limit.

SEC allows 10 requests per second per client and answers faster callers with 429s and, if they
persist, a temporary block. The limit is shared by every thread of a process that uses one
`EdgarClient`, so the bucket is one object behind a lock.

The bucket is written in its virtual-scheduling form (GCRA): instead of counting tokens, it keeps
the theoretical time at which the next token is free. A caller reserves the next slot under the
lock and sleeps *outside* it, so waiting threads queue in arrival order and nobody spins. With a
capacity of one token, consecutive requests start at least `1 / rate` seconds apart, which bounds
every one-second window at `rate` requests.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable


class TokenBucket:
    """At most `rate_per_s` acquisitions per second on average, bursts of at most `capacity`."""

    def __init__(
        self,
        rate_per_s: float,
        capacity: float = 1.0,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ):
        if rate_per_s <= 0:
            raise ValueError(f"rate_per_s must be positive, got {rate_per_s}")
        if capacity < 1:
            raise ValueError(f"capacity must be at least one token, got {capacity}")
        self.rate_per_s = rate_per_s
        self.capacity = capacity
        self._interval = 1.0 / rate_per_s
        # How far ahead of the schedule a caller may run: the burst a full bucket allows.
        self._tolerance = (capacity - 1.0) * self._interval
        self._clock = clock
        self._sleep = sleep
        self._lock = threading.Lock()
        self._next_free = clock()

    def reserve(self) -> float:
        """Take the next slot; return how many seconds the caller must wait before using it."""
        with self._lock:
            now = self._clock()
            slot = max(self._next_free, now)
            self._next_free = slot + self._interval
            return max(0.0, slot - self._tolerance - now)

    def acquire(self) -> float:
        """Block until a token is available; return the seconds waited."""
        wait = self.reserve()
        if wait > 0:
            self._sleep(wait)
        return wait

    def pause_until(self, deadline: float) -> None:
        """No token is handed out before `deadline` (a clock time), e.g. after a 429.

        Every thread is held back, not just the one that got the 429: the server counts the
        client as a whole.
        """
        with self._lock:
            self._next_free = max(self._next_free, deadline + self._tolerance)
