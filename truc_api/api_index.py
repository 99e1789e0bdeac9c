"""``GET /api/``: where to start. The API's entry points, for a person who opens the root in a
browser (``make run`` prints its link) and for a client that starts from the root."""

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from truc_api import __version__
from truc_api.serializers import problem_example, problem_responses

#: Each entry point's path, by what it is (tests/test_api_index.py follows every one).
LINKS = {
    "play": "/play/",
    "docs": "/api/docs/",
    "redoc": "/api/redoc/",
    "schema": "/api/schema/",
    "rules": "/api/rules",
    "register": "/api/auth/register",
    "login": "/api/auth/login",
    "my_games": "/api/games/mine",
    "open_games": "/api/games/open",
    "live_games": "/api/games/live",
    "stream": "/api/stream",
    "health": "/api/health/ready",
}

_Index = inline_serializer(
    "ApiIndex",
    {
        "name": serializers.CharField(),
        "version": serializers.CharField(),
        "links": inline_serializer(
            "ApiIndexLinks", {name: serializers.CharField() for name in LINKS}
        ),
    },
)


class ApiIndexView(APIView):
    """Public and the same for everyone, like the rules' metadata; nothing to throttle."""

    authentication_classes = ()
    permission_classes = (AllowAny,)
    throttle_classes = ()

    @extend_schema(
        operation_id="api_index",
        tags=["index"],
        summary="The API's entry points",
        description=(
            "Where to start: the web table, the documentation (Swagger UI, ReDoc, this OpenAPI"
            " document), the rules' metadata, signing up and in, the game lists, the player's"
            " stream and the readiness probe, each as a path on this server."
        ),
        responses={
            200: _Index,
            **problem_responses(
                problem_example(
                    "Method not allowed", 405, "method_not_allowed", 'Method "POST" not allowed.'
                )
            ),
        },
    )
    def get(self, request: Request) -> Response:
        return Response({"name": "Truc API", "version": __version__, "links": LINKS})
