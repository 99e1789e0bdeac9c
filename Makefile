# The two commands: `make run` (serve the API) and `make test` (run every test).
# Both build .venv with python3.11 from requirements.lock first; that step is skipped while
# neither requirements.lock nor pyproject.toml has changed since the last install.

PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
INSTALLED := $(VENV)/.installed

.PHONY: run test test-fast test-thorough install lock demo schema

# Where `make run` serves: `make run HOST=0.0.0.0 PORT=8080` (set SECRET_KEY off loopback). Read
# from make's command line only, not the environment, where some shells keep a HOST of their own.
HOST := 127.0.0.1
PORT := 8000
# Readable log lines, and a broker in a folder under .run/ (no service to start).
RUN_ENV = LOG_FORMAT="$${LOG_FORMAT:-console}" \
	CELERY_BROKER_URL="$${CELERY_BROKER_URL:-filesystem://localhost/}"

# `serve` runs the API (granian, ASGI: the streams too) with a Celery worker and beat beside it,
# and prints the links once the server answers (games/management/commands/serve.py).
run: $(INSTALLED)
	@$(RUN_ENV) $(BIN)/python manage.py migrate --noinput --verbosity 0
	@$(RUN_ENV) $(BIN)/python manage.py serve $(HOST):$(PORT)

# With `make run` going in another terminal: a whole match against a bot, narrated.
demo: $(INSTALLED)
	$(BIN)/python manage.py demo --pause 0.3

TEST_ENV = DATABASE_URL="$${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/truc_api}" \
	CELERY_BROKER_URL="$${CELERY_BROKER_URL:-redis://127.0.0.1:6379/0}"

# `make test PROFILE=quick`: every test not marked slow (worker processes, servers, the generated
# client, schemathesis), 10 property matches per preset and table size. `make test
# PROFILE=thorough`: everything, 2,000 property matches and 100 schemathesis examples an operation
# (before a release, after a referee change).
PROFILE := default
PROFILE_ENV_quick = TRUC_PROPERTY_EXAMPLES=10
PROFILE_ARGS_quick = -m "not slow"
PROFILE_ENV_thorough = TRUC_PROPERTY_PROFILE=thorough TRUC_SCHEMATHESIS_EXAMPLES=100
ifeq ($(filter $(PROFILE),quick default thorough),)
$(error PROFILE is quick, default or thorough, not "$(PROFILE)")
endif

# Two pytest processes at once, on the machine's two cores: the tests that touch no database,
# broker, Redis, server or shared folder (the referee, the bots, conformance, mypy and ruff, the
# import graph) beside all the others, which run one at a time as before (they share Redis's
# databases, the broker's queues, .run/ and node_modules). The first one's report is printed
# after the second's; the run fails if either does.
ON_THEIR_OWN := tests/engine tests/bots tests/test_conformance.py tests/test_imports.py \
	tests/test_engine_purity.py tests/test_quality.py
PYTEST = $(TEST_ENV) $(PROFILE_ENV_$(PROFILE)) $(BIN)/python -m pytest $(PROFILE_ARGS_$(PROFILE))

test: $(INSTALLED)
	@mkdir -p .run
	@$(PYTEST) $(ON_THEIR_OWN) > .run/tests-on-their-own.log 2>&1 & own=$$!; \
	$(PYTEST) $(addprefix --ignore=,$(ON_THEIR_OWN)); rest=$$?; \
	wait $$own; own_status=$$?; \
	echo; echo "== $(ON_THEIR_OWN)"; cat .run/tests-on-their-own.log; \
	[ $$rest -eq 0 ] && [ $$own_status -eq 0 ]

test-fast:
	$(MAKE) test PROFILE=quick

test-thorough:
	$(MAKE) test PROFILE=thorough

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
