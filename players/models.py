"""Players: the accounts that sit at tables (people now; bots are players too)."""

from __future__ import annotations

from django.contrib.auth.models import AbstractUser
from django.db import models


class Player(AbstractUser):
    """A person with an account. The username is the public name at the table."""

    display_name = models.CharField(max_length=40, blank=True)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return self.display_name or self.username

    @property
    def public_name(self) -> str:
        return self.display_name or self.username
