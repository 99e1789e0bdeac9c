from django.urls import path

from games.api import profiles, views

urlpatterns = [
    path("rules", views.RulesView.as_view(), name="rules"),
    path("games", views.GameCreateView.as_view(), name="games-create"),
    path("games/open", views.OpenGamesView.as_view(), name="games-open"),
    path("games/live", views.LiveGamesView.as_view(), name="games-live"),
    path("games/mine", views.MyGamesView.as_view(), name="games-mine"),
    path("games/join", views.JoinByCodeView.as_view(), name="games-join-by-code"),
    path("games/<str:game_id>", views.GameView.as_view(), name="games-read"),
    path("games/<str:game_id>/join", views.JoinView.as_view(), name="games-join"),
    path("games/<str:game_id>/leave", views.LeaveView.as_view(), name="games-leave"),
    path("games/<str:game_id>/resign", views.ResignView.as_view(), name="games-resign"),
    path("games/<str:game_id>/actions", views.ActionView.as_view(), name="games-act"),
    path("games/<str:game_id>/events", views.EventFeedView.as_view(), name="games-events"),
    path("games/<str:game_id>/history", views.HistoryView.as_view(), name="games-history"),
    path("games/<str:game_id>/export", views.ExportView.as_view(), name="games-export"),
    # A player's profile shows his record at the tables: composed here (games/api/profiles.py).
    path("players/me", profiles.MeView.as_view(), name="players-me"),
    path("players/<int:player_id>", profiles.PlayerDetailView.as_view(), name="players-detail"),
]
