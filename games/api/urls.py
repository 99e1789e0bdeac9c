"""/api/rules: the referee's tables. The games' routes are in routes/games.py, with a game's
streams, rematch and chat; a player's profile is in routes/players.py."""

from django.urls import path

from games.api import views

urlpatterns = [
    path("rules", views.RulesView.as_view(), name="rules"),
]
