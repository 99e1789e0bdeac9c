"""Truc API: the Django project package (settings, URLs, Celery app, the one error handler)."""

from truc_api.celery import app as celery_app

__version__ = "0.1.0"
__all__ = ["celery_app"]
