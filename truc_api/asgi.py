"""ASGI entry point (granian --interface asgi truc_api.asgi:application): the streams' server.

Django's handler runs each request's synchronous parts (signal receivers, sync middleware, ORM
calls through ``sync_to_async``) on a thread of the request's own, kept until the request ends
(asgiref's ``ThreadSensitiveContext``): an open stream would hold an idle thread for its whole
life. This handler leaves that context out, so every request's synchronous parts share the
process's one sync thread, and an open stream is a coroutine only. The streams' reads are short;
REST requests served here queue on that thread, which is why production serves them under WSGI
(docker-compose.yml).
"""

import os
from typing import Any

import django
from django.core.handlers.asgi import ASGIHandler

from truc_api import collector

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "truc_api.settings")


class StreamsASGIHandler(ASGIHandler):
    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":  # nothing to start or stop: say so to the server
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                elif message["type"] == "lifespan.shutdown":
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        if scope["type"] != "http":
            raise ValueError(f"Django serves HTTP only, not {scope['type']}.")
        await self.handle(scope, receive, send)


django.setup(set_prefix=False)
application = StreamsASGIHandler()
collector.tune()  # last: what start-up loaded is frozen (truc_api/collector.py)
