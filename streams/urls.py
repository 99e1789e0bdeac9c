from django.urls import path

from streams import views

urlpatterns = [
    path("games/<str:game_id>/stream", views.game_stream_view, name="games-stream"),
    path("stream", views.player_stream_view, name="player-stream"),
    path("games/<str:game_id>/events/wait", views.events_wait_view, name="games-events-wait"),
]
