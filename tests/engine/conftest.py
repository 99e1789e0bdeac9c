"""Hypothesis profiles for the engine's property tests.

- ``default``: 50 random matches per preset and table size, 300 in all (``test_properties.py``
  the largest share of a run: docs/testing.md);
- ``thorough``: 2,000 per preset and table size, for a run on demand (``make test-thorough``);
- ``features_default`` / ``features_thorough``: the same for the flor and six-player
  configurations of ``test_properties.py`` (100 or 2,000 matches each, of one cama to 12).

``TRUC_PROPERTY_PROFILE=thorough`` picks a profile, ``TRUC_PROPERTY_EXAMPLES=N`` sets the number of
matches of either. Neither has a deadline: how long an example takes is not a property of the rules.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

_EXAMPLES = os.environ.get("TRUC_PROPERTY_EXAMPLES")


def _profile(examples: int) -> settings:
    return settings(
        max_examples=int(_EXAMPLES) if _EXAMPLES else examples,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow],
    )


# Registered, not loaded: test_properties.py applies the one TRUC_PROPERTY_PROFILE names to its
# matches, and the suite's active profile (tests/conftest.py) stays in force everywhere else.
# Named apart from hypothesis's own "default" profile, which other plugins may load.
settings.register_profile("engine_default", _profile(50))
settings.register_profile("engine_thorough", _profile(2_000))
# The flor and six-player configurations (RULES.md §5.3, §9), five of them, in short matches:
# 100 each by default (about 40 s in all), thousands on demand as above.
settings.register_profile("engine_features_default", _profile(100))
settings.register_profile("engine_features_thorough", _profile(2_000))
