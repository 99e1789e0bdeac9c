from django.apps import AppConfig


class GamesConfig(AppConfig):
    """Games: storage, services and API around the referee in games/engine/."""

    name = "games"
