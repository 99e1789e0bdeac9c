"""WSGI entry point (granian truc_api.wsgi:application): Django, behind the shortcut for
unchanged polls (games/api/conditional.py)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "truc_api.settings")

django_application = get_wsgi_application()

from games.api.conditional import ConditionalReads  # noqa: E402 - needs Django set up

application = ConditionalReads(django_application)
