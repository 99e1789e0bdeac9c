"""factory-boy factories shared by the tests. Every player's password is PASSWORD."""

import factory
from factory.django import DjangoModelFactory

from players.models import Player

PASSWORD = "s3cret-Pass!"


class PlayerFactory(DjangoModelFactory[Player]):
    class Meta:
        model = Player

    username = factory.Sequence(lambda n: f"player{n}")
    display_name = factory.LazyAttribute(lambda player: player.username.title())
    password = factory.PostGenerationMethodCall("set_password", PASSWORD)

    @classmethod
    def _after_postgeneration(cls, instance, create, results=None):
        # set_password only sets the attribute: store the hash here, since factory-boy's own
        # save after post-generation is deprecated.
        if create:
            instance.save(update_fields=["password"])
