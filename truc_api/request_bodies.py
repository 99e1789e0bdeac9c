"""A request body must come with a Content-Length.

Behind the proxy of docker-compose.yml every body does: nginx reads a chunked body whole and
hands it on with its length (deploy/nginx/truc-api.conf.template). Straight to granian's WSGI
interface, a chunked body reaches Django with no length, and Django's WSGI request reads a body
of no length as empty: a request would then be judged on a body its client never sent. It is
refused instead. Under ASGI (``manage.py serve``) Django reads the body's messages to the end,
chunked or not, so nothing is refused there.
"""

from __future__ import annotations

from collections.abc import Callable
from http import HTTPStatus

from django.core.handlers.wsgi import WSGIRequest
from django.http import HttpRequest, HttpResponse

from truc_api.problems import problem_response

LENGTH_REQUIRED = (
    "Send the request body with a Content-Length: a chunked body is not read here"
    " (the deployment's proxy reads it and sends it on with its length)."
)


class ContentLengthRequiredMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        # With a Transfer-Encoding, a Content-Length (if any) is not the body's (RFC 9112 §6.3).
        if isinstance(request, WSGIRequest) and "HTTP_TRANSFER_ENCODING" in request.META:
            return problem_response(HTTPStatus.BAD_REQUEST, "invalid_request", LENGTH_REQUIRED)
        return self.get_response(request)
