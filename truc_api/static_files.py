"""The static files (the web table's scripts, the docs' assets), served by whitenoise under both
interfaces.

Whitenoise answers with a ``FileResponse``: a synchronous iterator over the open file. Served
under ASGI (granian: ``make run``, the streams' processes), Django cannot iterate that without
blocking its event loop, so it warns ("StreamingHttpResponse must consume synchronous iterators
in order to serve them asynchronously") and reads the whole file into a list on a thread before
sending a byte. Under ASGI the file is sent from an asynchronous iterator instead, each chunk
read on a thread; under WSGI whitenoise's own response stays (the server may send the file
itself, ``wsgi.file_wrapper``).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator
from typing import Any, BinaryIO

from django.conf import settings
from django.core.handlers.asgi import ASGIRequest
from django.http import HttpRequest, HttpResponse, HttpResponseBase, StreamingHttpResponse
from whitenoise.middleware import WhiteNoiseMiddleware

#: Bytes read from the disk at a time (Django's FileResponse reads the same).
CHUNK = 8192


class AsyncFile:
    """An open file as an asynchronous iterator of its bytes. Django closes it with the
    response (``close``), sent in full or not."""

    def __init__(self, file: BinaryIO) -> None:
        self.file = file

    def __aiter__(self) -> AsyncIterator[bytes]:
        return self._chunks()

    async def _chunks(self) -> AsyncIterator[bytes]:
        while chunk := await asyncio.to_thread(self.file.read, CHUNK):
            yield chunk

    def close(self) -> None:
        self.file.close()


class StaticFilesMiddleware(WhiteNoiseMiddleware):  # type: ignore[misc]  # whitenoise: no type hints
    def add_files(self, root: str, prefix: str | None = None) -> None:
        # A checkout has no STATIC_ROOT (no `collectstatic` ran): the finders serve the apps'
        # files instead (settings.WHITENOISE_USE_FINDERS), so there is nothing to warn about.
        if settings.WHITENOISE_USE_FINDERS and not os.path.isdir(root):
            return
        super().add_files(root, prefix)

    @staticmethod
    def serve(static_file: Any, request: HttpRequest) -> HttpResponseBase:
        if not isinstance(request, ASGIRequest):
            served: HttpResponseBase = WhiteNoiseMiddleware.serve(static_file, request)
            return served
        found = static_file.get_response(request.method, request.META)
        # A 304 or a HEAD has no file to send: a plain response, nothing to iterate.
        answer: HttpResponseBase = (
            StreamingHttpResponse(AsyncFile(found.file), status=int(found.status))
            if found.file is not None
            else HttpResponse(status=int(found.status))
        )
        del answer["Content-Type"]  # whitenoise's headers say it (and the length, the caching)
        for key, value in found.headers:
            answer[key] = value
        return answer
