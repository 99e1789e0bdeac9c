"""The static files under ASGI (truc_api/static_files.py), on the real granian processes: sent
whole, 304 and HEAD as whitenoise answers them, and never through a synchronous iterator (Django
then logs "StreamingHttpResponse must consume synchronous iterators in order to serve them
asynchronously" and reads the whole file into memory before sending it)."""

from __future__ import annotations

import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from django.contrib.staticfiles import finders

pytestmark = [pytest.mark.slow]

WARNING = "must consume synchronous iterators"
#: The web table's module and the docs' largest asset (over a megabyte: many chunks).
FILES = ["play/live.js", "drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.js"]


def get(url: str, method: str = "GET", **headers: str) -> tuple[int, Any, bytes]:
    request = urllib.request.Request(url, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=20) as answer:
            return answer.status, answer.headers, answer.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read()


@pytest.mark.parametrize("name", FILES)
def test_a_static_file_is_sent_whole_from_an_asynchronous_iterator(servers_pair, name) -> None:
    server = servers_pair[0]
    on_disk = Path(finders.find(name)).read_bytes()
    status, headers, body = get(f"{server.url}/static/{name}")
    assert status == 200 and body == on_disk
    assert int(headers["Content-Length"]) == len(on_disk)
    assert headers["Content-Type"].startswith("text/javascript")
    status, again, body = get(f"{server.url}/static/{name}", **{"If-None-Match": headers["ETag"]})
    assert (status, body) == (304, b"")
    status, head, body = get(f"{server.url}/static/{name}", method="HEAD")
    assert (status, body, head["Content-Length"]) == (200, b"", str(len(on_disk)))
    assert WARNING not in server.log.read_text(errors="replace")
