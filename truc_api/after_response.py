"""Work that does not change the answer, run once the answer is sent.

What follows a committed action outside the database (waking its streams, sending its tasks and
webhooks to the broker) changes nothing in the response, yet ran before it: the client waited
for it. ``defer(work)`` inside a request keeps ``work`` until Django sends ``request_finished``,
which it does when the WSGI server closes the response (granian, which serves the REST API: on
the request's own thread, once the body is handed to the client; the next request of the same
keep-alive connection waits for it); outside a request (a Celery task, the sweep, a management
command) it runs ``work`` at once, as before. Under ASGI (``make run``'s one process) Django
sends ``request_started`` from a task of its own, whose context the request does not share: the
work runs at once there, as before.

The guarantee is today's: such work runs after the commit that caused it, in the process that
made it, at most once; what must not be lost has a sweep behind it (the turn clock, the bots,
the ratings, the webhooks' deliveries) or a check (a stream re-reads the log). A piece of work
that fails is logged and the next one still runs: none of it can turn a committed action into
an error for its client.
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar
from typing import Any

import structlog
from django.core.signals import request_finished, request_started
from django.db import transaction

logger = structlog.get_logger(__name__)

Work = Callable[[], object]

#: The work deferred by the request this context serves; None outside a request.
_pending: ContextVar[list[Work] | None] = ContextVar("after_response", default=None)


def defer(work: Work) -> None:
    """Run ``work`` once this request's response is sent, or at once outside a request."""
    pending = _pending.get()
    if pending is None:
        work()
    else:
        pending.append(work)


def on_commit(work: Work) -> None:
    """Run ``work`` once the current transaction commits (never on rollback) and, inside a
    request, once its response is sent: ``transaction.on_commit`` for what can wait."""
    transaction.on_commit(lambda: defer(work))


def deferred(receiver: Callable[..., object]) -> Callable[..., None]:
    """A signal receiver that defers ``receiver``'s call, with the same arguments. Connect it
    with ``weak=False``: nothing else holds it."""

    def defer_call(*args: Any, **kwargs: Any) -> None:
        defer(lambda: receiver(*args, **kwargs))

    return defer_call


def _started(**_: Any) -> None:
    # Work left by a request whose response was never closed in this context (a server that did
    # not call ``close()``) runs now: late rather than never.
    _run(_pending.get())
    _pending.set([])


def _finished(**_: Any) -> None:
    pending = _pending.get()
    _pending.set(None)  # work deferred by this work runs at once
    _run(pending)


def _run(pending: list[Work] | None) -> None:
    for work in pending or ():
        try:
            work()
        except Exception:
            logger.exception("after_response.failed", work=getattr(work, "__qualname__", None))


request_started.connect(_started, dispatch_uid="truc_api.after_response.started")
request_finished.connect(_finished, dispatch_uid="truc_api.after_response.finished")
