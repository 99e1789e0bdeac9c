from django.apps import AppConfig


class GamesConfig(AppConfig):
    """Games: storage, services and API around the referee in games/engine/."""

    name = "games"

    def ready(self) -> None:
        from games import bot_players, signals

        signals.events_recorded.connect(bot_players.schedule, dispatch_uid="games.bot_players")
