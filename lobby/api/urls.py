"""The lobby under /api/: seeks, challenges, a game's rematch and chat, the data export."""

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
    path("games/<str:game_id>/rematch", views.RematchView.as_view(), name="games-rematch"),
    path(
        "games/<str:game_id>/rematch/decline",
        views.RematchDeclineView.as_view(),
        name="games-rematch-decline",
    ),
    path("games/<str:game_id>/chat", views.ChatView.as_view(), name="games-chat"),
    path(
        "games/<str:game_id>/chat/<int:line_id>",
        views.ChatLineView.as_view(),
        name="games-chat-line",
    ),
    path("players/me/export", views.ExportView.as_view(), name="players-me-export"),
]
