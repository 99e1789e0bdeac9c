"""The routes of the URL prefixes that several apps answer, one module per prefix: every route
under ``/api/games/`` is in ``routes/games.py`` and every route under ``/api/players/`` in
``routes/players.py``, whichever app's view answers it. ``truc_api/urls.py`` names, for each
prefix, the one module that holds its routes.

Above every app (tests/test_imports.py): it imports their views, and nothing imports it.
"""
