"""Logging: structlog for our own logs and Django's, to stdout, with a request id on every line."""

import logging
import re
import secrets
from collections.abc import Callable
from typing import Any

import orjson
import structlog
from django.http import HttpRequest, HttpResponse

REQUEST_ID_HEADER = "X-Request-ID"
# An id the client sends is kept only if it is short and plain, so it cannot forge log lines.
_CLIENT_REQUEST_ID = re.compile(r"[A-Za-z0-9._-]{1,64}")

_SHARED_PROCESSORS: list[Any] = [
    structlog.contextvars.merge_contextvars,
    structlog.stdlib.add_log_level,
    structlog.stdlib.add_logger_name,
    structlog.processors.TimeStamper(fmt="iso", utc=True),
]


def _json_line(event: dict[str, Any], **options: Any) -> str:
    """An event as one JSON line, with orjson: cheaper than the standard library's encoder on
    every request's log lines. What orjson does not know goes to structlog's fallback (its repr)."""
    return orjson.dumps(
        event, default=options.get("default"), option=orjson.OPT_NON_STR_KEYS
    ).decode()


def logging_config(*, json: bool, level: str, colours: bool = False) -> dict[str, Any]:
    """Configure structlog and return the stdlib LOGGING dict that renders through it: JSON
    lines, or a readable line an event (coloured on a terminal) for a developer."""
    # No line shows the thread, the process or its name: each record would look them up anyway.
    logging.logThreads = logging.logProcesses = logging.logMultiprocessing = False
    structlog.configure(
        processors=[
            structlog.stdlib.filter_by_level,
            *_SHARED_PROCESSORS,
            structlog.stdlib.PositionalArgumentsFormatter(),
            structlog.processors.StackInfoRenderer(),
            structlog.stdlib.ProcessorFormatter.wrap_for_formatter,
        ],
        logger_factory=structlog.stdlib.LoggerFactory(),
        wrapper_class=structlog.stdlib.BoundLogger,
        cache_logger_on_first_use=True,
    )
    if json:
        renderers: list[Any] = [
            # Tracebacks as data, without local variables: they may hold hidden cards or secrets.
            structlog.processors.ExceptionRenderer(
                structlog.tracebacks.ExceptionDictTransformer(show_locals=False)
            ),
            structlog.processors.JSONRenderer(serializer=_json_line),
        ]
    else:
        # Plain tracebacks: rich's would print local variables (hidden cards, secrets).
        renderers = [
            structlog.dev.ConsoleRenderer(
                colors=colours, exception_formatter=structlog.dev.plain_traceback
            )
        ]
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {
            "structlog": {
                "()": structlog.stdlib.ProcessorFormatter,
                "foreign_pre_chain": _SHARED_PROCESSORS,
                "processors": [structlog.stdlib.ProcessorFormatter.remove_processors_meta]
                + renderers,
            },
        },
        "handlers": {
            "stdout": {
                "class": "logging.StreamHandler",
                "stream": "ext://sys.stdout",
                "formatter": "structlog",
            },
        },
        "root": {"handlers": ["stdout"], "level": level},
        "loggers": {
            # Replace Django's own console handlers so that each line is written once, by us.
            "django": {"handlers": [], "level": level, "propagate": True},
            "django.server": {"handlers": [], "level": level, "propagate": True},
            # httpx logs every request's URL at INFO: an APNs URL holds a device's token.
            "httpx": {"handlers": [], "level": "WARNING", "propagate": True},
        },
    }


def request_id_from(sent: str) -> str:
    """The client's X-Request-ID if it is short and plain, else a new one."""
    return sent if _CLIENT_REQUEST_ID.fullmatch(sent) else secrets.token_hex(16)


class RequestIdMiddleware:
    """Give each request an id, bind it to every log line and return it in X-Request-ID."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        request_id = request_id_from(request.META.get("HTTP_X_REQUEST_ID", ""))
        # Cleared here rather than on the way out: Django logs a failed request's line, and the
        # server its access line, after the middleware has returned.
        structlog.contextvars.clear_contextvars()
        structlog.contextvars.bind_contextvars(request_id=request_id)
        response = self.get_response(request)
        response[REQUEST_ID_HEADER] = request_id
        return response

    def process_view(
        self, request: HttpRequest, view: Callable[..., Any], args: Any, kwargs: dict[str, Any]
    ) -> None:
        """Every line of a request under /api/games/<id>/ names the game."""
        if "game_id" in kwargs:
            structlog.contextvars.bind_contextvars(game_id=str(kwargs["game_id"]))
