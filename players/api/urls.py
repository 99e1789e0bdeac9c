"""Accounts under /api/: auth/... for tokens, players/... for profiles and ratings; leaderboards."""

from django.urls import path

from players.api import views

urlpatterns = [
    path("auth/register", views.RegisterView.as_view(), name="auth-register"),
    path("auth/login", views.LoginView.as_view(), name="auth-login"),
    path("auth/logout", views.LogoutView.as_view(), name="auth-logout"),
    path("auth/logout-all", views.LogoutAllView.as_view(), name="auth-logout-all"),
    path("players/me", views.MeView.as_view(), name="players-me"),
    path("players/<int:player_id>", views.PlayerDetailView.as_view(), name="players-detail"),
    path(
        "players/<int:player_id>/ratings", views.PlayerRatingsView.as_view(), name="players-ratings"
    ),
    path(
        "leaderboards/<str:family>/<str:size>",
        views.LeaderboardView.as_view(),
        name="leaderboards-read",
    ),
]
