from django.apps import AppConfig


class PlayConfig(AppConfig):
    """The web table at /play/: static ES modules that use only the public API (issue 17)."""

    name = "play"
