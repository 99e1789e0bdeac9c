"""WSGI entry point (granian truc_api.wsgi:application)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "truc_api.settings")

application = get_wsgi_application()
