"""The lobby under /api/: seeks and challenges. A game's rematch and chat are under /api/games/
(routes/games.py), the data export under /api/players/ (routes/players.py)."""

from django.urls import path

from lobby.api import views

urlpatterns = [
    path("seeks", views.SeeksView.as_view(), name="seeks"),
    path("seeks/<str:seek_id>", views.SeekDetailView.as_view(), name="seeks-detail"),
    path("seeks/<str:seek_id>/join", views.SeekJoinView.as_view(), name="seeks-join"),
    path("challenges", views.ChallengesView.as_view(), name="challenges"),
    path("challenges/link/<str:token>", views.ChallengeLinkView.as_view(), name="challenges-link"),
    path(
        "challenges/link/<str:token>/accept",
        views.ChallengeLinkAcceptView.as_view(),
        name="challenges-link-accept",
    ),
    path(
        "challenges/<str:challenge_id>",
        views.ChallengeDetailView.as_view(),
        name="challenges-detail",
    ),
    path(
        "challenges/<str:challenge_id>/accept",
        views.ChallengeAcceptView.as_view(),
        name="challenges-accept",
    ),
    path(
        "challenges/<str:challenge_id>/decline",
        views.ChallengeDeclineView.as_view(),
        name="challenges-decline",
    ),
    path(
        "challenges/<str:challenge_id>/cancel",
        views.ChallengeCancelView.as_view(),
        name="challenges-cancel",
    ),
]
