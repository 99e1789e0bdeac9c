"""WSGI entry point (gunicorn truc_api.wsgi): Django, behind the shortcut for unchanged polls."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "truc_api.settings")

django_application = get_wsgi_application()

from games.api.conditional import ConditionalReads  # noqa: E402 - needs Django set up

application = ConditionalReads(django_application)
