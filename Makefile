# The two commands: `make run` (serve the API) and `make test` (run every test).
# Both build .venv with python3.11 from requirements.lock first; that step is skipped while
# neither requirements.lock nor pyproject.toml has changed since the last install.

PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
INSTALLED := $(VENV)/.installed

.PHONY: run test test-fast test-thorough install lock demo schema

# `serve` runs the API (runserver --insecure serves the docs' static files with DEBUG off) and a
# Celery worker with beat beside it, on a broker in a folder: no service needed.
run: $(INSTALLED)
	$(BIN)/python manage.py migrate --noinput
	@echo
	@echo "  Truc API:     http://127.0.0.1:8000/api/"
	@echo "  Swagger UI:   http://127.0.0.1:8000/api/docs/"
	@echo "  ReDoc:        http://127.0.0.1:8000/api/redoc/"
	@echo "  OpenAPI:      http://127.0.0.1:8000/api/schema/"
	@echo
	CELERY_BROKER_URL="$${CELERY_BROKER_URL:-filesystem://}" $(BIN)/python manage.py serve 0.0.0.0:8000

# With `make run` going in another terminal: a whole match against a bot, narrated.
demo: $(INSTALLED)
	$(BIN)/python manage.py demo --pause 0.3

TEST_ENV = DATABASE_URL="$${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/truc_api}" \
	CELERY_BROKER_URL="$${CELERY_BROKER_URL:-redis://127.0.0.1:6379/0}"

test: $(INSTALLED)
	$(TEST_ENV) $(BIN)/python -m pytest

# The quick subset (README.md, "Testing"): no test marked slow (worker processes, servers, the
# generated client, schemathesis), and 10 property matches per preset and table size.
test-fast: $(INSTALLED)
	$(TEST_ENV) TRUC_PROPERTY_EXAMPLES=10 $(BIN)/python -m pytest -m "not slow"

# Everything, with the thorough property profile (2,000 matches per preset and table size).
test-thorough: $(INSTALLED)
	$(TEST_ENV) TRUC_PROPERTY_PROFILE=thorough $(BIN)/python -m pytest

install: $(INSTALLED)

# Regenerate the committed OpenAPI schema; tests/api/test_schema.py fails while it is out of date.
schema: $(INSTALLED)
	DEBUG=false $(BIN)/python manage.py spectacular --validate --fail-on-warn --file openapi.yaml

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(INSTALLED): requirements.lock pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -r requirements.lock
	$(BIN)/python -m pip install --quiet --no-deps --no-build-isolation -e .
	touch $@

# Regenerate requirements.lock after changing the pins in pyproject.toml.
lock: $(INSTALLED)
	$(BIN)/pip-compile --quiet --allow-unsafe --extra dev --strip-extras \
		--no-emit-index-url --no-emit-find-links -o requirements.lock pyproject.toml
