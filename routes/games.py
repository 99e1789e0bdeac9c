"""Every route under /api/games/: the games (games/api/views.py), a game's streams
(streams/views.py), its rematch and chat (lobby/api/table.py).

The games' own routes come first: the requests every client makes all the time are theirs, and
the resolver tries the patterns in order.
"""

from django.urls import path

from games.api import views as games
from lobby.api import table as lobby
from streams import views as streams

urlpatterns = [
    path("games", games.GameCreateView.as_view(), name="games-create"),
    path("games/open", games.OpenGamesView.as_view(), name="games-open"),
    path("games/live", games.LiveGamesView.as_view(), name="games-live"),
    path("games/mine", games.MyGamesView.as_view(), name="games-mine"),
    path("games/join", games.JoinByCodeView.as_view(), name="games-join-by-code"),
    path("games/<str:game_id>", games.GameView.as_view(), name="games-read"),
    path("games/<str:game_id>/join", games.JoinView.as_view(), name="games-join"),
    path("games/<str:game_id>/leave", games.LeaveView.as_view(), name="games-leave"),
    path("games/<str:game_id>/resign", games.ResignView.as_view(), name="games-resign"),
    path("games/<str:game_id>/actions", games.ActionView.as_view(), name="games-act"),
    path("games/<str:game_id>/events", games.EventFeedView.as_view(), name="games-events"),
    path("games/<str:game_id>/history", games.HistoryView.as_view(), name="games-history"),
    path("games/<str:game_id>/export", games.ExportView.as_view(), name="games-export"),
    path(
        "games/<str:game_id>/events/wait",
        streams.events_wait_view,
        name="games-events-wait",
    ),
    path("games/<str:game_id>/stream", streams.game_stream_view, name="games-stream"),
    path("games/<str:game_id>/rematch", lobby.RematchView.as_view(), name="games-rematch"),
    path(
        "games/<str:game_id>/rematch/decline",
        lobby.RematchDeclineView.as_view(),
        name="games-rematch-decline",
    ),
    path("games/<str:game_id>/chat", lobby.ChatView.as_view(), name="games-chat"),
    path(
        "games/<str:game_id>/chat/<int:line_id>",
        lobby.ChatLineView.as_view(),
        name="games-chat-line",
    ),
]
