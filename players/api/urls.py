"""Accounts under /api/: auth/... for tokens, leaderboards/... for the pools' tables. The routes
under /api/players/ are in routes/players.py, with the profile and the data export."""

from django.urls import path

from players.api import ratings, views

urlpatterns = [
    path("auth/register", views.RegisterView.as_view(), name="auth-register"),
    path("auth/login", views.LoginView.as_view(), name="auth-login"),
    path("auth/guest", views.GuestView.as_view(), name="auth-guest"),
    path("auth/claim", views.ClaimView.as_view(), name="auth-claim"),
    path("auth/logout", views.LogoutView.as_view(), name="auth-logout"),
    path("auth/logout-all", views.LogoutAllView.as_view(), name="auth-logout-all"),
    path("auth/password", views.PasswordView.as_view(), name="auth-password"),
    path(
        "leaderboards/<str:family>/<str:size>",
        ratings.LeaderboardView.as_view(),
        name="leaderboards-read",
    ),
]
