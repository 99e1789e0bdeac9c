"""Tokens are checked by knox's own class (truc_api/authentication.py): its expiry and signal, its
AUTO_REFRESH, in one query."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from knox.models import AuthToken
from knox.signals import token_expired
from rest_framework.request import Request
from rest_framework.test import APIClient, APIRequestFactory

from players.models import Player
from tests.factories import PlayerFactory
from truc_api.authentication import TokenAuthentication

pytestmark = pytest.mark.django_db


def _client(token: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client


def test_a_token_and_its_player_take_one_query(django_assert_max_num_queries):
    player = PlayerFactory.create()
    _, token = AuthToken.objects.create(player)
    request = Request(APIRequestFactory().get("/", HTTP_AUTHORIZATION=f"Token {token}"))

    with django_assert_max_num_queries(1):
        found, _ = TokenAuthentication().authenticate(request)
        assert isinstance(found, Player)
        assert (found.pk, found.display_name, found.is_active) == (
            player.pk,
            player.display_name,
            True,
        )


def test_auto_refresh_extends_a_used_token(settings):
    settings.REST_KNOX = {**settings.REST_KNOX, "AUTO_REFRESH": True, "MIN_REFRESH_INTERVAL": 0}
    instance, token = AuthToken.objects.create(PlayerFactory.create())
    soon = timezone.now() + timedelta(hours=1)
    AuthToken.objects.filter(pk=instance.pk).update(expiry=soon)

    assert _client(token).get("/api/players/me").status_code == 200

    assert AuthToken.objects.get(pk=instance.pk).expiry > soon + timedelta(days=1)


def test_without_auto_refresh_a_token_keeps_its_expiry():
    instance, token = AuthToken.objects.create(PlayerFactory.create())

    assert _client(token).get("/api/players/me").status_code == 200

    assert AuthToken.objects.get(pk=instance.pk).expiry == instance.expiry


def test_an_expired_token_is_deleted_and_knox_says_so():
    player = PlayerFactory.create()
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
