"""Each player's durable notices: the log his stream replays after the cursor it is given.

A notice's ``seq`` counts per player, with no gap and in commit order: ``notices.notify_players``
takes it from the player's ``PlayerFeed`` row, locked until the transaction ends, so no later
seq ever commits before an earlier one (a reader at seq 7 can never miss a 6 that commits
later). ``UNIQUE(player, seq)`` is the backstop.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models


class PlayerFeed(models.Model):
    player = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, primary_key=True, related_name="+"
    )
    last_seq = models.PositiveBigIntegerField(default=0)


class PlayerNotice(models.Model):
    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    seq = models.PositiveBigIntegerField()
    kind = models.CharField(max_length=40)
    data = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["player", "seq"], name="streams_notice_player_seq")
        ]
        ordering = ["player", "seq"]
