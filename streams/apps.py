from django.apps import AppConfig


class StreamsConfig(AppConfig):
    """Streams: Server-Sent Events of each game's log and of each player's notices.

    It hears the game log through ``games.signals.events_recorded`` and knox's tokens through
    Django's ``post_delete`` (``streams.receivers``); neither games/ nor players/ knows it. Other
    apps (the lobby) tell a player something with ``streams.notices.notify_players``.
    """

    name = "streams"

    def ready(self) -> None:
        from streams import receivers

        receivers.connect()
