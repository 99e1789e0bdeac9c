"""Tokens are checked by knox's own class (truc_api/authentication.py): its expiry and signal, its
AUTO_REFRESH, in one query."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from knox.models import AuthToken
from knox.signals import token_expired
from rest_framework.test import APIClient

from tests.factories import PlayerFactory

pytestmark = pytest.mark.django_db


def _client(token: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client


def test_a_token_and_its_player_take_one_query(django_assert_max_num_queries):
    player = PlayerFactory()
    _, token = AuthToken.objects.create(player)

    # The profile reads its per-pool statistics too; the token and its player are one query.
    with django_assert_max_num_queries(2) as captured:
        response = _client(token).get("/api/players/me")

    assert response.status_code == 200 and response.json()["id"] == player.pk
    reads = [query["sql"] for query in captured.captured_queries]
    token_reads = [sql for sql in reads if '"knox_authtoken"' in sql]
    player_reads = [
        sql
        for sql in reads
        if 'FROM "players_player"' in sql or '"players_player"."password"' in sql
    ]
    assert len(token_reads) == 1 and player_reads == token_reads


def test_auto_refresh_extends_a_used_token(settings):
    settings.REST_KNOX = {**settings.REST_KNOX, "AUTO_REFRESH": True, "MIN_REFRESH_INTERVAL": 0}
    instance, token = AuthToken.objects.create(PlayerFactory())
    soon = timezone.now() + timedelta(hours=1)
    AuthToken.objects.filter(pk=instance.pk).update(expiry=soon)

    assert _client(token).get("/api/players/me").status_code == 200

    assert AuthToken.objects.get(pk=instance.pk).expiry > soon + timedelta(days=1)


def test_without_auto_refresh_a_token_keeps_its_expiry():
    instance, token = AuthToken.objects.create(PlayerFactory())

    assert _client(token).get("/api/players/me").status_code == 200

    assert AuthToken.objects.get(pk=instance.pk).expiry == instance.expiry


def test_an_expired_token_is_deleted_and_knox_says_so():
    player = PlayerFactory()
    instance, token = AuthToken.objects.create(player)
    AuthToken.objects.filter(pk=instance.pk).update(expiry=timezone.now() - timedelta(seconds=1))
    heard: list[dict] = []

    def listen(**kwargs):
        heard.append(kwargs)

    token_expired.connect(listen)
    try:
        response = _client(token).get("/api/players/me")
    finally:
        token_expired.disconnect(listen)

    assert response.status_code == 401
    assert not AuthToken.objects.filter(pk=instance.pk).exists()
    assert [(h["username"], h["source"]) for h in heard] == [(player.username, "auth_token")]
