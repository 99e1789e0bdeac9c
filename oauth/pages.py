"""The server-rendered pages of the OAuth flow: sign in, then allow (or refuse) an app.

Both work offline (no script, no font, no stylesheet from elsewhere) and speak the player's
language (``Accept-Language``: English, Spanish or Catalan, oauth/locale/). The consent page is
django-oauth-toolkit's ``AuthorizationView`` with a template of its own: it names each scope
asked for, and warns on the dangerous ones (truc_api/scopes.py).
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import views as auth_views
from django.http import HttpRequest, HttpResponseBase
from django.utils import translation
from oauth2_provider.views import AuthorizationView

from truc_api.scopes import DANGEROUS, SCOPES


class _Translated:
    """Render in the language the browser asks for, of ``settings.LANGUAGES``. Only these pages:
    the API's problems stay in English, as their codes are the contract."""

    def dispatch(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
        language = translation.get_language_from_request(request)
        with translation.override(language):
            response: HttpResponseBase = super().dispatch(  # type: ignore[misc]
                request, *args, **kwargs
            )
            render = getattr(response, "render", None)
            if render is not None:
                render()  # now, while the language holds (a TemplateResponse renders lazily)
        response.headers["Content-Language"] = language
        return response


class SignInPage(_Translated, auth_views.LoginView):
    template_name = "oauth/login.html"
    redirect_authenticated_user = True


class ConsentPage(_Translated, AuthorizationView):  # type: ignore[misc]  # no type hints
    template_name = "oauth/authorize.html"

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context: dict[str, Any] = super().get_context_data(**kwargs)
        context["scope_rows"] = [
            {"name": scope, "description": SCOPES[scope], "dangerous": scope in DANGEROUS}
            for scope in context.get("scopes", [])
            if scope in SCOPES
        ]
        context["any_dangerous"] = any(row["dangerous"] for row in context["scope_rows"])
        return context
