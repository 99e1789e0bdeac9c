from django.apps import AppConfig


class PushConfig(AppConfig):
    """Push notifications to the players' phones and browsers.

    It follows the game log (``games.signals``), the reminders (``notifications.signals``) and is
    told by the lobby; games/ and notifications/ do not know it.
    """

    name = "push"

    def ready(self) -> None:
        from push import outbox

        outbox.follow_games()
