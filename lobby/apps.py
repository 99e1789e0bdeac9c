from django.apps import AppConfig


class LobbyConfig(AppConfig):
    """The lobby: seeks and pairing, challenges, rematches, table chat; account deletion's part
    in them. It follows players/ through ``players.signals``; players/ does not know it."""

    name = "lobby"

    def ready(self) -> None:
        from lobby import accounts
        from players.signals import account_deleting

        account_deleting.connect(accounts.on_account_deleting, dispatch_uid="lobby.accounts")
