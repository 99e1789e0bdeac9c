"""The garbage collector of the streams' server process (truc_api/asgi.py), tuned at its start.

A streams process holds thousands of open streams, each a few hundred objects the collector
tracks, and a full (generation-2) collection walks all of them while the whole process waits:
every stream, its reads and its heartbeats stop for as long. Two settings, both switchable:

- ``STREAMS_GC_FREEZE``: ``gc.freeze()`` once the project is loaded (settings, apps, URLs, views):
  its objects live as long as the process, and no collection walks them again.
- ``STREAMS_GC_THRESHOLD``: the youngest generation's threshold (Python's default is 700). The
  objects a delivery makes die young by their reference counts; at 700 the collector runs
  several times a second under load and moves the reads and states still in use at that
  moment into the older generations, which is what makes full collections come often. Fewer
  young collections promote fewer such objects. 0 keeps Python's default.

Nothing here changes what is collected: a cycle is still freed by the next collection of its
generation, so memory stays bounded.
"""

from __future__ import annotations

import gc

from django.conf import settings
from django.urls import get_resolver


def tune() -> None:
    """Apply the settings in this process; called once, where the process starts."""
    if settings.STREAMS_GC_THRESHOLD:
        _, middle, oldest = gc.get_threshold()
        gc.set_threshold(settings.STREAMS_GC_THRESHOLD, middle, oldest)
    if settings.STREAMS_GC_FREEZE:
        # Load the URLs (and with them every view module) first: Django imports them at the
        # first request otherwise, after the freeze.
        get_resolver().url_patterns  # noqa: B018 (loaded for its side effect)
        gc.collect()  # what start-up left as garbage is freed, not frozen
        gc.freeze()
