"""Every route under /api/oauth/: a player's apps, and the apps he allowed. His personal tokens
are under /api/players/me/tokens (routes/players.py)."""

from django.urls import path

from oauth.api import views

urlpatterns = [
    path("oauth/apps", views.AppsView.as_view(), name="oauth-apps"),
    path("oauth/apps/<int:app_id>", views.AppDetailView.as_view(), name="oauth-apps-detail"),
    path("oauth/authorizations", views.AuthorizationsView.as_view(), name="oauth-authorizations"),
    path(
        "oauth/authorizations/<int:app_id>",
        views.AuthorizationDetailView.as_view(),
        name="oauth-authorizations-revoke",
    ),
]
