"""Personal tokens: a player's own delegated tokens, each with the scopes he chose.

The token itself is django-oauth-toolkit's ``AccessToken`` with no application (stored as a
digest only, authenticated and scope-checked as an app's token is); this row adds what a player
needs to tell his tokens apart. Revoking deletes the access token, and this row with it.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone


class PersonalToken(models.Model):
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="personal_tokens"
    )
    access_token = models.OneToOneField(
        settings.OAUTH2_PROVIDER_ACCESS_TOKEN_MODEL,
        on_delete=models.CASCADE,
        related_name="personal",
    )
    description = models.CharField(max_length=100)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.player_id}: {self.description}"
