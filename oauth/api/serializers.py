"""The apps', authorizations' and personal tokens' request and answer bodies."""

from __future__ import annotations

from typing import Any

from oauth2_provider.models import Application
from rest_framework import serializers

from players.api.serializers import PASSWORD_MAX_LENGTH
from truc_api.scopes import NEVER_DELEGATED, SCOPES
from truc_api.serializers import StrictSerializer

_PORT = (
    r"(:(6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[1-9][0-9]{0,3}))?"
)
#: A redirect URI: absolute https, or http on the loopback interface only (a native app's
#: listener, RFC 8252 §7.3); no credentials (the host admits no `@`), no fragment (RFC 6749
#: §3.1.2). One pattern, so the document says exactly what the server takes.
REDIRECT_URI = (
    r"^(https://[A-Za-z0-9.-]+|http://(127\.0\.0\.1|\[::1\]|localhost))"
    + _PORT
    + r"(/[^#\s\u0000]*)?$"
)


def redirect_uri_field(**kwargs: Any) -> serializers.RegexField:
    return serializers.RegexField(
        REDIRECT_URI,
        max_length=500,
        error_messages={"invalid": "An absolute https URI (http only on the loopback interface)."},
        **kwargs,
    )


class AppCreateSerializer(StrictSerializer):
    """A new OAuth app: its name, where it may send players back, and its kind. Unknown keys
    are a 400."""

    name = serializers.CharField(max_length=100)
    redirect_uris = serializers.ListField(
        child=redirect_uri_field(),
        min_length=1,
        max_length=10,
        help_text="Where the player is sent back; each compared exactly (RFC 6749 §3.1.2), but"
        " the port of an http loopback URI (RFC 8252 §7.3).",
    )
    client_type = serializers.ChoiceField(
        [Application.CLIENT_PUBLIC, Application.CLIENT_CONFIDENTIAL],
        help_text="`public`: a browser or native app, which can keep no secret (PKCE alone);"
        " `confidential`: a server, which also sends its secret to the token endpoint.",
    )


class AppChangeSerializer(StrictSerializer):
    """What to change of an app; any subset. Unknown keys are a 400."""

    name = serializers.CharField(max_length=100, required=False)
    redirect_uris = serializers.ListField(
        child=redirect_uri_field(), min_length=1, max_length=10, required=False
    )


class AppSerializer(serializers.Serializer[Any]):
    """An OAuth app (never its secret)."""

    id = serializers.IntegerField()
    client_id = serializers.CharField()
    name = serializers.CharField()
    redirect_uris = serializers.SerializerMethodField()
    client_type = serializers.CharField()
    created = serializers.DateTimeField()

    def get_redirect_uris(self, app: Application) -> list[str]:
        return list(app.redirect_uris.split())


class RegisteredAppSerializer(serializers.Serializer[Any]):
    """An app just registered, with its secret this once."""

    app = AppSerializer()
    client_secret = serializers.CharField(
        allow_null=True,
        help_text="A confidential app's secret, shown this once (only its digest is kept);"
        " null for a public app.",
    )


class AuthorizationSerializer(serializers.Serializer[Any]):
    """An app you allowed, and the scopes it holds now."""

    app_id = serializers.IntegerField(source="app.id")
    name = serializers.CharField(source="app.name")
    scopes = serializers.ListField(child=serializers.CharField())
    granted_at = serializers.DateTimeField()


class ScopeField(serializers.ChoiceField):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(list(SCOPES), **kwargs)


class TokenCreateSerializer(StrictSerializer):
    """A new personal token: what it is for, and the scopes it carries. Unknown keys are a
    400."""

    description = serializers.CharField(max_length=100)
    scopes = serializers.ListField(child=ScopeField(), min_length=1, max_length=len(SCOPES))
    password = serializers.CharField(
        max_length=PASSWORD_MAX_LENGTH,
        trim_whitespace=False,
        write_only=True,
        required=False,
        help_text=f"Your password: required for {', '.join(sorted(NEVER_DELEGATED))}.",
    )


class PersonalTokenSerializer(serializers.Serializer[Any]):
    """A personal token (never its secret)."""

    id = serializers.IntegerField()
    description = serializers.CharField()
    scopes = serializers.SerializerMethodField()
    created_at = serializers.DateTimeField()
    expires_at = serializers.DateTimeField(source="access_token.expires")

    def get_scopes(self, personal: Any) -> list[str]:
        return list(personal.access_token.scope.split())


class MadeTokenSerializer(serializers.Serializer[Any]):
    """A personal token just made, with its secret this once."""

    token = serializers.CharField(help_text="The token, shown this once: only its digest is kept.")
    personal = PersonalTokenSerializer()
