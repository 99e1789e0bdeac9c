"""OpenAPI pieces of the account views (here and in games/api/profiles.py): the problems a
service answers with, each example built by the code that answers it."""

from players import services
from truc_api.serializers import answer, problem_example

WRONG_PASSWORD = answer("Wrong password", services.WrongPassword("current_password"))
BOT_NAME = answer(
    "Name reads as a bot's",
    services.InvalidField(
        "display_name", "bot_name", "Names that read as a bot's are the server's own."
    ),
)
NO_SUCH_PLAYER = problem_example("No such player", 404, "not_found", "Not found.")
