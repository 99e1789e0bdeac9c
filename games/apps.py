from django.apps import AppConfig


class GamesConfig(AppConfig):
    """Games: storage, services and API around the referee in games/engine/."""

    name = "games"

    def ready(self) -> None:
        # Imported once the models are ready (Django's way for receivers).
        from games import accounts, signals, tasks
        from games.models import Game
        from players.signals import account_deleting
        from truc_api import after_response

        # The tasks are sent once the answer is (they change nothing in it).
        signals.events_committed.connect(
            after_response.deferred(tasks.follow_committed_events),
            sender=Game,
            dispatch_uid="games.tasks",
            weak=False,
        )
        account_deleting.connect(accounts.on_account_deleting, dispatch_uid="games.accounts")
