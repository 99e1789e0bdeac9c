from django.apps import AppConfig


class PlayersConfig(AppConfig):
    """Players: accounts' game profiles and ratings."""

    name = "players"
