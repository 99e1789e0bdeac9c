"""Accounts under /api/: auth/... for tokens, players/... for ratings, blocks and deletion;
leaderboards. The profile (players/me, players/{id}) shows games, so games/api/urls.py routes it."""

from django.urls import path

from players.api import views

urlpatterns = [
    path("auth/register", views.RegisterView.as_view(), name="auth-register"),
    path("auth/login", views.LoginView.as_view(), name="auth-login"),
    path("auth/logout", views.LogoutView.as_view(), name="auth-logout"),
    path("auth/logout-all", views.LogoutAllView.as_view(), name="auth-logout-all"),
    path("auth/password", views.PasswordView.as_view(), name="auth-password"),
    path("players/me/delete", views.AccountDeleteView.as_view(), name="players-me-delete"),
    path("players/me/blocks", views.BlocksView.as_view(), name="players-me-blocks"),
    path(
        "players/me/blocks/<int:player_id>",
        views.BlockDetailView.as_view(),
        name="players-me-unblock",
    ),
    path(
        "players/<int:player_id>/ratings", views.PlayerRatingsView.as_view(), name="players-ratings"
    ),
    path(
        "leaderboards/<str:family>/<str:size>",
        views.LeaderboardView.as_view(),
        name="leaderboards-read",
    ),
]
