from django.apps import AppConfig


class NotificationsConfig(AppConfig):
    """Notifications: webhooks to integrators, deadline reminders and the live event stream.

    It follows the game log through ``games.signals.events_recorded``; games/ does not know it.
    """

    name = "notifications"

    def ready(self) -> None:
        from notifications import outbox

        outbox.follow_games()
