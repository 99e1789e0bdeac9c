"""The Celery app, configured from Django's settings under the CELERY_ namespace."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "truc_api.settings")

app = Celery("truc_api")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
