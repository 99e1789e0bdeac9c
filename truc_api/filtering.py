"""List filters as the schema states them: django-filter's backend, refusing an empty value.

django-filter reads `?status=` as no filter at all, so a request the schema calls invalid (an
empty string is no `status`, no uuid) was answered 200; here it is a 400 naming the parameter.
"""

from __future__ import annotations

from typing import Any

from django_filters.rest_framework import DjangoFilterBackend
from rest_framework import serializers

from truc_api.problems import field_error


class FilterBackend(DjangoFilterBackend):  # type: ignore[misc]  # django-filter: no stubs
    def get_filterset(self, request: Any, queryset: Any, view: Any) -> Any:
        filterset = super().get_filterset(request, queryset, view)
        if filterset is not None:
            empty = [name for name in filterset.filters if request.query_params.get(name) == ""]
            if empty:
                blank = field_error("This filter may not be empty.", "blank")
                raise serializers.ValidationError({name: [blank] for name in empty})
        return filterset
