"""/api/stream: the player's own stream. A game's stream and long poll are under /api/games/
(routes/games.py)."""

from django.urls import path

from streams import views

urlpatterns = [
    path("stream", views.player_stream_view, name="player-stream"),
]
