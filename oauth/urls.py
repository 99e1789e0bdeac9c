"""The OAuth server's own URLs, outside /api/ (truc_api/urls.py mounts them): the pages a
player sees, and the token and revocation endpoints an app calls (django-oauth-toolkit's, which
answer in OAuth's own error shape, RFC 6749 §5.2, as OAuth client libraries expect)."""

from django.urls import path
from oauth2_provider import views as toolkit

from oauth import pages

# Under the namespace "oauth2_provider": the toolkit's discovery document reverses these names.
app_name = "oauth2_provider"

urlpatterns = [
    path("login/", pages.SignInPage.as_view(), name="login"),
    path("authorize/", pages.ConsentPage.as_view(), name="authorize"),
    path("token/", toolkit.TokenView.as_view(), name="token"),
    path("revoke/", toolkit.RevokeTokenView.as_view(), name="revoke-token"),
]
