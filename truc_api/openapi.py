"""The OpenAPI document's project-wide parts, added after drf-spectacular has built it.

`ProblemCode` is the enum of every `code` a problem can carry: the framework's and each
`ApplicationError` subclass's (``codes()``), found by walking the subclasses, so that an app's new
error is listed without this module knowing the app. The `servers` entry says where the paths
are relative to.
"""

from __future__ import annotations

from typing import Any

from truc_api.problems import FRAMEWORK_CODES, ApplicationError


def problem_codes() -> list[str]:
    codes = dict.fromkeys(FRAMEWORK_CODES)
    pending: list[type[ApplicationError]] = [ApplicationError]
    while pending:
        kind = pending.pop()
        pending.extend(kind.__subclasses__())
        if kind is not ApplicationError:
            codes |= dict.fromkeys(kind.codes())
    return sorted(codes)


def postprocess(
    result: dict[str, Any], generator: Any, request: Any, public: bool
) -> dict[str, Any]:
    """drf-spectacular hook: the problem codes' enum and the servers."""
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    schemas["ProblemCode"] = {
        "type": "string",
        "enum": problem_codes(),
        "description": (
            "Every code a problem may carry. 422 codes name the rule that says no (RULES.md §8);"
            " `invalid_request` lists the fields at fault in `errors`."
        ),
    }
    result["components"]["schemas"] = dict(sorted(schemas.items()))
    result["servers"] = [{"url": "/", "description": "This server: the paths start with /api/."}]
    return result
