"""The bounds of the whole numbers a request may carry, each what the column or the code that
reads it holds: the serializers refuse what lies outside with a 400 (``truc_api.serializers``'
``player_id_field`` and ``rating_field``), and the schema says the same (tests/api/test_bounds.py
holds every request integer of the document to a minimum and a maximum). A seq, a version or a
cursor is bounded by ``truc_api.pagination.MAX_QUERY_INTEGER``, as every query string's number.

No imports: the settings read it."""

#: A row's id: the primary keys are PostgreSQL bigints (``DEFAULT_AUTO_FIELD``).
MAX_ID = 2**63 - 1

#: A rating a seek's window may name: stored in an integer column, and far beyond any Elo rating
#: players reach (they start at 1500, players/ratings.py).
MIN_RATING, MAX_RATING = 0, 10_000

#: Every integer path parameter (Django's ``int`` converter: digits only), in the schema.
PATH_ID = {"type": "integer", "minimum": 0, "maximum": MAX_ID}
