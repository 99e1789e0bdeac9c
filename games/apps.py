from django.apps import AppConfig


class GamesConfig(AppConfig):
    """Games: storage, services and API around the referee in games/engine/."""

    name = "games"

    def ready(self) -> None:
        # Imported once the models are ready (Django's way for receivers).
        from games import services, signals, tasks
        from games.models import Game
        from players import signals as player_signals

        signals.events_committed.connect(
            tasks.follow_committed_events, sender=Game, dispatch_uid="games.tasks"
        )
        player_signals.game_rated.connect(services.mark_rated, dispatch_uid="games.rated")
