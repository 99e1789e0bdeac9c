"""Every route under /api/players/: a player's profile, which shows his record at the tables
(games/api/profiles.py), his account's blocks, ratings and deletion (players/api/views.py), and
his data export, which holds his challenges and chat too (lobby/api/table.py), his personal
tokens (oauth/api/views.py), and his devices and choices for push notifications
(push/api/views.py)."""

from django.urls import path

from games.api import profiles
from lobby.api import table as lobby
from oauth.api import views as oauth
from players.api import ratings
from players.api import views as players
from push.api import views as push

urlpatterns = [
    path("players/me", profiles.MeView.as_view(), name="players-me"),
    path("players/<int:player_id>", profiles.PlayerDetailView.as_view(), name="players-detail"),
    path("players/me/delete", players.AccountDeleteView.as_view(), name="players-me-delete"),
    path("players/me/blocks", players.BlocksView.as_view(), name="players-me-blocks"),
    path(
        "players/me/blocks/<int:player_id>",
        players.BlockDetailView.as_view(),
        name="players-me-unblock",
    ),
    path(
        "players/<int:player_id>/ratings",
        ratings.PlayerRatingsView.as_view(),
        name="players-ratings",
    ),
    path("players/me/export", lobby.ExportView.as_view(), name="players-me-export"),
    path("players/me/tokens", oauth.TokensView.as_view(), name="players-me-tokens"),
    path(
        "players/me/tokens/<int:token_id>",
        oauth.TokenDetailView.as_view(),
        name="players-me-tokens-revoke",
    ),
    path("players/me/devices", push.DeviceListView.as_view(), name="players-me-devices"),
    path(
        "players/me/devices/<str:device_id>",
        push.DeviceView.as_view(),
        name="players-me-device",
    ),
    path(
        "players/me/devices/<str:device_id>/deliveries",
        push.DeliveryLogView.as_view(),
        name="players-me-device-deliveries",
    ),
    path(
        "players/me/notifications",
        push.PushSettingsView.as_view(),
        name="players-me-notifications",
    ),
]
