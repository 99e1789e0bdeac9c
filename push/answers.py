"""What a push service answered, as every sender reports it."""

from __future__ import annotations

import email.utils
from dataclasses import dataclass
from datetime import UTC, datetime


@dataclass(frozen=True)
class Answer:
    """What a push service answered: ``status_code`` None when it did not answer."""

    platform: str
    status_code: int | None
    error: str = ""
    gone: bool = False  # a permanent refusal of the device: it is removed
    retry_after: float | None = None
    duration_ms: int = 0

    @property
    def sent(self) -> bool:
        return self.status_code is not None and 200 <= self.status_code < 300

    @property
    def retryable(self) -> bool:
        """No answer, too many requests, or the service's own failure: worth another try."""
        code = self.status_code
        return code is None or code == 429 or code >= 500


def retry_after(value: str | None) -> float | None:
    """A ``Retry-After`` header's seconds (a number, or an HTTP date); None when absent."""
    if not value:
        return None
    if value.strip().isdigit():
        return float(value.strip())
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, (when - datetime.now(UTC)).total_seconds())
