"""The page that loads the web table. It holds no game logic and no data: the ES modules under
static/play/ do everything through the public API, as any third-party client would."""

from __future__ import annotations

from pathlib import Path

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe

#: The page may load and call only its own origin: nothing from a CDN or the internet, and no
#: inline script or style (the modules are files; cards are drawn as SVG elements).
CONTENT_SECURITY_POLICY = "; ".join(
    (
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "connect-src 'self'",
        "base-uri 'none'",
        "form-action 'none'",
        "frame-ancestors 'none'",
    )
)


@require_safe
def index(request: HttpRequest) -> HttpResponse:
    response = render(request, "play/index.html")
    response["Content-Security-Policy"] = CONTENT_SECURITY_POLICY
    response["Cache-Control"] = "no-cache"
    return response


SERVICE_WORKER = Path(__file__).resolve().parent / "static" / "play" / "sw.js"


@require_safe
def service_worker(request: HttpRequest) -> HttpResponse:
    """The web table's service worker (pushes shown, a click opens the game), served under
    /play/ so that it may control the table's page."""
    response = HttpResponse(SERVICE_WORKER.read_bytes(), content_type="text/javascript")
    response["Cache-Control"] = "no-cache"
    return response
