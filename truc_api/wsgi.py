"""WSGI entry point (gunicorn truc_api.wsgi)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "truc_api.settings")

application = get_wsgi_application()
