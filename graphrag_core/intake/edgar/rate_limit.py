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


class SharedTokenBucket(TokenBucket):
    """The same schedule, shared by every process on the machine through a small file.

    Dagster runs filings in several processes at once (multiprocess executor, concurrent
    runs), each with its own client; SEC counts them as one caller. The next free slot is kept
    as a wall-clock time in `path`, read and advanced under an exclusive `flock`, so all
    processes (and their threads) draw from one schedule. Waiting happens outside the lock.
    """

    def __init__(self, path, rate_per_s: float, capacity: float = 1.0):
        super().__init__(rate_per_s, capacity, clock=time.time)
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)

    def _update(self, advance) -> float:
        import fcntl
        import os

        with self._lock:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)
                raw = os.pread(fd, 64, 0)
                try:
                    next_free = float(raw.decode() or 0.0)
                except ValueError:
                    next_free = 0.0
                new_value, result = advance(next_free)
                payload = f"{new_value:.6f}".encode()
                os.ftruncate(fd, 0)
                os.pwrite(fd, payload, 0)
                return result
            finally:
                os.close(fd)  # closing the descriptor releases the flock

    def reserve(self) -> float:
        def advance(next_free: float) -> tuple[float, float]:
            now = time.time()
            slot = max(next_free, now)
            return slot + self._interval, max(0.0, slot - self._tolerance - now)

        return self._update(advance)

    def pause_until(self, deadline: float) -> None:
        """`deadline` is on the monotonic clock (as for TokenBucket); stored as wall time."""
        wall = time.time() + (deadline - time.monotonic())
        self._update(lambda next_free: (max(next_free, wall + self._tolerance), None))
