"""``manage.py conformance PATH...``: run worked rule cases; needs no database or other service."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.conformance import run_paths


class Command(BaseCommand):
    help = "Run conformance case files (or folders of them) against the referee."
    requires_system_checks: list[str] = []  # no database, no other service
    requires_migrations_checks = False

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("paths", nargs="+", help="case files or folders of case files")

    def handle(self, *args: Any, **options: Any) -> None:
        outcomes = run_paths(options["paths"])
        failed = [outcome for outcome in outcomes if outcome.failure is not None]
        for outcome in failed:
            self.stdout.write(outcome.line())
        self.stdout.write(f"{len(outcomes) - len(failed)} passed, {len(failed)} failed")
        if failed or not outcomes:
            raise CommandError("conformance failed" if failed else "no cases found", returncode=1)
