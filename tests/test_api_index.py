"""What a newcomer opens first: the API's root answers with its entry points, each of which
answers, and the docs' pages ask nothing of another site."""

import re

import pytest

from truc_api.api_index import LINKS

pytestmark = pytest.mark.django_db


def test_api_index_lists_the_entry_points(client):
    response = client.get("/api/")

    assert response.status_code == 200
    assert response.json()["links"]["play"] == "/play/"
    assert response.json()["links"] == LINKS


@pytest.mark.parametrize("name", sorted(LINKS))
def test_api_index_every_link_answers(client, name):
    """A GET finds each one: public pages answer, the rest ask for a token or another method."""
    response = client.get(LINKS[name])

    assert response.status_code in (200, 401, 405), (name, response.status_code)


def test_redoc_page_fetches_no_image_from_another_site(client):
    """ReDoc's bundle draws Redocly's logo from its CDN; the page's policy keeps the browser to
    this server (the docs work offline)."""
    html = client.get("/api/redoc/").content.decode()

    policy = re.search(r'http-equiv="Content-Security-Policy" content="([^"]*)"', html)
    assert policy is not None
    assert "img-src 'self' data:" in policy.group(1)
    assert "https://" not in policy.group(1)
