"""URLs: the admin, the OpenAPI schema and its docs, health probes, and the API's routes: for each
prefix under /api/, the one module that holds its routes."""

from django.contrib import admin
from django.urls import URLPattern, URLResolver, include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerView
from oauth2_provider.views import OAuthServerMetadataView

from truc_api import health
from truc_api.api_index import ApiIndexView

# Everything under /api/, by prefix: each prefix's routes are in the one module named beside it.
# The games first, as the requests every client makes all the time are theirs and the resolver
# tries the patterns in order.
api_urlpatterns: list[URLPattern | URLResolver] = [
    path("", include("routes.games")),  # games/...: games, their streams, rematch and chat
    path("", include("games.api.urls")),  # rules
    path("", include("routes.players")),  # players/...: profiles, blocks, ratings, export
    path("", include("players.api.urls")),  # auth/..., leaderboards/...
    path("", include("notifications.api.urls")),  # webhooks/...
    path("", include("streams.urls")),  # stream
    path("", include("push.api.urls")),  # push/...
    path("", include("lobby.api.urls")),  # seeks..., challenges...
    path("", include("oauth.api.urls")),  # oauth/...: a player's apps and the apps he allowed
    path("", ApiIndexView.as_view(), name="api-index"),
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    path("docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="docs"),
    path(
        "redoc/",
        SpectacularRedocView.as_view(url_name="schema", template_name="truc_api/redoc.html"),
        name="redoc",
    ),
    path("health/live", health.live, name="health-live"),
    path("health/ready", health.ready, name="health-ready"),
]

urlpatterns = [
    path("api/", include(api_urlpatterns)),
    path("admin/", admin.site.urls),
    # The OAuth server: sign in, consent, token and revocation (oauth/urls.py), and its RFC 8414
    # discovery document at the origin's root, where clients look for it.
    path("oauth/", include("oauth.urls")),
    path(
        ".well-known/oauth-authorization-server",
        OAuthServerMetadataView.as_view(),
        name="oauth-server-metadata",
    ),
    # The web table: a page and static modules that use only the API above.
    path("play/", include("play.urls")),
]

# Every error outside DRF is a problem+json body too (truc_api/problems.py), never an HTML page.
handler400 = "truc_api.problems.bad_request"
handler403 = "truc_api.problems.permission_denied"
handler404 = "truc_api.problems.page_not_found"
handler500 = "truc_api.problems.server_error"
