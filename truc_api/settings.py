"""Django settings for Truc API, read from the environment with django-environ.

With no environment at all the project runs on the defaults below: SQLite in the repository, an
in-process cache, and an in-memory Celery broker whose tasks run eagerly, so `manage.py runserver`
needs nothing else running. Production sets DATABASE_URL, CELERY_BROKER_URL, CACHE_URL, SECRET_KEY
and ALLOWED_HOSTS (see docker-compose.yml).
"""

import ipaddress
import sys
from datetime import timedelta
from pathlib import Path
from typing import Any

import environ
from corsheaders.defaults import default_headers as default_cors_headers
from django.core.exceptions import ImproperlyConfigured

from truc_api import __version__
from truc_api.bounds import PATH_ID
from truc_api.logs import logging_config

BASE_DIR = Path(__file__).resolve().parent.parent

env = environ.Env()

DEBUG = env.bool("DEBUG", default=False)
# For a development server on loopback only: `manage.py serve` (make run) refuses to serve on any
# other address with it, as anyone can read it here.
INSECURE_DEV_SECRET_KEY = "django-insecure-dev-only-key-set-SECRET_KEY-in-every-real-deployment"
SECRET_KEY = env.str("SECRET_KEY", default=INSECURE_DEV_SECRET_KEY)
ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=["localhost", "127.0.0.1", "[::1]", "testserver"])
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "knox",
    "oauth2_provider",
    "django_filters",
    "corsheaders",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "games",
    "players",
    "notifications",
    "streams",
    "push",
    "lobby",
    # OAuth apps, their consent page, personal tokens (django-oauth-toolkit's server).
    "oauth",
    # The web table at /play/ (static ES modules over the public API).
    "play",
]

AUTH_USER_MODEL = "players.Player"

MIDDLEWARE = [
    "truc_api.logs.RequestIdMiddleware",
    # The throttles' counts as RateLimit-Policy and RateLimit fields (truc_api/throttling.py).
    "truc_api.throttling.RateLimitHeadersMiddleware",
    "truc_api.request_bodies.ContentLengthRequiredMiddleware",
    "corsheaders.middleware.CorsMiddleware",
    "django.middleware.security.SecurityMiddleware",
    # Serves the docs' assets (Swagger UI, ReDoc: the sidecar's files) from STATIC_ROOT under
    # granian, with no reverse proxy needed.
    "truc_api.static_files.StaticFilesMiddleware",
    # Sessions, CSRF, authentication and messages: for the admin's pages only (the API's tokens
    # need none of them; truc_api/middleware.py).
    "truc_api.middleware.AdminSessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "truc_api.middleware.AdminCsrfViewMiddleware",
    "truc_api.middleware.AdminAuthenticationMiddleware",
    "truc_api.middleware.AdminMessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # A player who reads a game is at its table: no push about it (push/presence.py).
    "push.presence.seen_middleware",
]

ROOT_URLCONF = "truc_api.urls"
WSGI_APPLICATION = "truc_api.wsgi.application"
ASGI_APPLICATION = "truc_api.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "truc_api" / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# --- Storage ---------------------------------------------------------------------------------

DATABASES = {"default": env.db("DATABASE_URL", default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}")}
# Connections are kept: opening one per request (Django's default) costs each request a connection
# set-up and a PostgreSQL backend's start.
DATABASES["default"]["CONN_MAX_AGE"] = env.int("CONN_MAX_AGE", default=60)
DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # Django's, with a health check that costs no round trip (truc_api/postgresql/base.py).
    DATABASES["default"]["ENGINE"] = "truc_api.postgresql"
    if env.bool("DB_PREPARED", default=True):
        DATABASES["default"]["OPTIONS"] = {"server_side_binding": True, "prepare_threshold": 5}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # The embedded default serves a web process and a worker at once: writers queue up for the
    # lock (IMMEDIATE takes it at BEGIN, so two transactions never deadlock upgrading a read).
    DATABASES["default"]["OPTIONS"] = {"timeout": 20, "transaction_mode": "IMMEDIATE"}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# The throttles count in this cache: set CACHE_URL=redis://... when several processes serve.
CACHES = {"default": env.cache("CACHE_URL", default="locmemcache://")}

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = env.path("STATIC_ROOT", default=BASE_DIR / "staticfiles")
# Without `collectstatic` (a checkout, `make run`), whitenoise finds the assets in the apps, and
# leaves the missing STATIC_ROOT alone (truc_api/static_files.py).
WHITENOISE_USE_FINDERS = not Path(STATIC_ROOT).is_dir()

# --- Celery (every CELERY_* setting is read by truc_api/celery.py) -----------------------------

CELERY_BROKER_URL = env.str("CELERY_BROKER_URL", default="memory://")
# With the in-memory broker no worker could ever see a task, so run tasks in the caller instead.
CELERY_TASK_ALWAYS_EAGER = env.bool(
    "CELERY_TASK_ALWAYS_EAGER", default=CELERY_BROKER_URL.startswith("memory://")
)
CELERY_TASK_EAGER_PROPAGATES = True
if CELERY_BROKER_URL.startswith("filesystem://"):
    # The one-command start (`make run`): a broker in a folder, shared by the web server and the
    # worker it starts beside it, so timeouts, ratings and bots work with no service running.
    _BROKER_FOLDER = Path(
        env.str("CELERY_BROKER_FOLDER", default=str(BASE_DIR / ".run" / "broker"))
    )
    _BROKER_FOLDER.mkdir(parents=True, exist_ok=True)
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(_BROKER_FOLDER),
        "data_folder_out": str(_BROKER_FOLDER),
        # kombu's default is a `control` folder in the working directory (the repository).
        "control_folder": str(_BROKER_FOLDER / "control"),
    }
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_TASK_IGNORE_RESULT = True
CELERY_TIMEZONE = TIME_ZONE
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# Keep Django's LOGGING (structlog, stdout) in the worker instead of Celery's own handlers.
CELERY_WORKER_HIJACK_ROOT_LOGGER = False
# A task is acknowledged after it ran: a worker killed mid-task leaves it to be delivered again.
CELERY_TASK_ACKS_LATE = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1

# Turn clocks (games/clock.py). The deadline in the database is the truth; a task with an ETA
# applies a short one on time, and the sweep applies any overdue one (a lost task only delays it).
# Longer deadlines get no task: Redis delivers a task whose ETA lies past the broker's visibility
# timeout again, and again.
TIMEOUT_TASK_MAX_SECONDS = env.int("TIMEOUT_TASK_MAX_SECONDS", default=1800)
TIMEOUT_SWEEP_SECONDS = env.float("TIMEOUT_SWEEP_SECONDS", default=10.0)
# How long an action's answer is kept for a retry with the same Idempotency-Key: a client retries
# within seconds or minutes; a day covers a phone left offline overnight. The beat purges older
# records every hour (they were much of what the database grew per action).
IDEMPOTENCY_HOURS = env.int("IDEMPOTENCY_HOURS", default=24)
# A player waits at so many open games at most, and an open game waits so long for its players.
OPEN_GAMES_PER_PLAYER = env.int("OPEN_GAMES_PER_PLAYER", default=10)
OPEN_GAME_TTL_HOURS = env.float("OPEN_GAME_TTL_HOURS", default=24.0)
# A guest (POST /api/auth/guest) who has not signed in for this long and sits at no open or
# active table is removed, his finished games kept under an anonymous name.
GUEST_IDLE_DAYS = env.float("GUEST_IDLE_DAYS", default=30.0)
CELERY_BEAT_SCHEDULE = {
    "sweep-overdue-turns": {
        "task": "games.tasks.sweep_overdue_turns",
        "schedule": TIMEOUT_SWEEP_SECONDS,
    },
    # Rates finished games whose rate_game message was lost (games/tasks.py).
    "reconcile-ratings": {
        "task": "games.tasks.reconcile_ratings",
        "schedule": timedelta(minutes=5),
    },
    # Guests idle for GUEST_IDLE_DAYS, erased as a deleted account is (games/accounts.py).
    "remove-idle-guests": {
        "task": "games.tasks.remove_idle_guests",
        "schedule": timedelta(hours=1),
    },
    # Open games that never filled (games/open_tables.py).
    "expire-open-games": {
        "task": "games.tasks.expire_open_games",
        "schedule": timedelta(minutes=10),
    },
    "purge-expired-tokens": {
        "task": "players.tasks.purge_expired_tokens",
        "schedule": timedelta(hours=1),
    },
    # Idempotency records older than IDEMPOTENCY_HOURS (games/tasks.py).
    "purge-idempotency-records": {
        "task": "games.tasks.purge_idempotency_records",
        "schedule": timedelta(hours=1),
    },
}

# --- REST API --------------------------------------------------------------------------------

REST_FRAMEWORK = {
    # Login tokens (knox), then the delegated ones (an app's, a personal token: OAuth's), told
    # apart by their prefix so that each request asks one table (truc_api/authentication.py).
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "truc_api.authentication.TokenAuthentication",
        "truc_api.authentication.DelegatedTokenAuthentication",
    ],
    # A delegated token needs the scope the view declares (truc_api/scopes.py).
    "DEFAULT_PERMISSION_CLASSES": [
        "rest_framework.permissions.IsAuthenticated",
        "truc_api.scopes.ScopeRequired",
    ],
    # JSON only: with DRF's form and multipart parsers every request body is documented under
    # three content types, and the client openapi-python-client generated from it failed to import.
    # DRF's JSON parser and renderer, through orjson (truc_api/json_io.py).
    "DEFAULT_PARSER_CLASSES": ["truc_api.json_io.Parser"],
    "DEFAULT_RENDERER_CLASSES": ["truc_api.json_io.Renderer"],
    "DEFAULT_CONTENT_NEGOTIATION_CLASS": "truc_api.json_io.Negotiation",
    "DEFAULT_SCHEMA_CLASS": "truc_api.openapi.AutoSchema",
    # django-filter's, refusing an empty value as the schema does (truc_api/filtering.py).
    "DEFAULT_FILTER_BACKENDS": ["truc_api.filtering.FilterBackend"],
    "EXCEPTION_HANDLER": "truc_api.problems.problem_exception_handler",
    # DRF's, counting one number per client instead of a list of times (truc_api/throttling.py).
    "DEFAULT_THROTTLE_CLASSES": [
        "truc_api.throttling.AnonRateThrottle",
        "truc_api.throttling.UserRateThrottle",
        "truc_api.throttling.ScopedRateThrottle",
    ],
    "DEFAULT_THROTTLE_RATES": {
        "anon": env.str("THROTTLE_RATE_ANON", default="60/min"),
        "user": env.str("THROTTLE_RATE_USER", default="600/min"),
        # Views that check a password set throttle_scope = "login".
        "login": env.str("THROTTLE_RATE_LOGIN", default="10/min"),
        # A player's actions in his games (games/api/views.py ActionView): a budget of their own
        # instead of "user", so that a client at full speed (a bot) never meets a 429 there.
        "actions": env.str("THROTTLE_RATE_ACTIONS", default="3000/min"),
    },
    "TEST_REQUEST_DEFAULT_FORMAT": "json",
}

# The proxies (addresses or networks) whose X-Forwarded-For is believed: the throttles count a
# client by its address (truc_api/throttling.py). None by default: the peer is the client.
TRUSTED_PROXIES = [
    str(ipaddress.ip_network(proxy, strict=False))  # a typo fails at start, not per request
    for proxy in env.list("TRUSTED_PROXIES", default=[])
]

# --- OAuth (oauth/, docs/oauth.md): django-oauth-toolkit as the authorization server ---------

OAUTH2_PROVIDER: dict[str, Any] = {
    # The scopes are truc_api/scopes.py's; account:manage is never granted to an app.
    "SCOPES_BACKEND_CLASS": "truc_api.scopes.Scopes",
    "PKCE_REQUIRED": True,
    # oauthlib's, refusing any PKCE method but S256 before the consent page (oauth/server.py).
    "OAUTH2_SERVER_CLASS": "oauth.server.Server",
    # RFC 9700 (OAuth 2.0 Security Best Current Practice), each gate enforced: no implicit or
    # password grant, PKCE "S256" only, no token in a query string, the `iss` parameter in the
    # authorization response, tokens stored as digests only.
    "COMPLIANT_BCP_RFC9700_IMPLICIT_GRANT": True,
    "COMPLIANT_BCP_RFC9700_PASSWORD_GRANT": True,
    "COMPLIANT_BCP_RFC9700_PKCE_METHOD": True,
    "COMPLIANT_BCP_RFC9700_ACCESS_TOKEN_TRANSPORT": True,
    "COMPLIANT_BCP_RFC9700_AUTHZ_RESPONSE_ISS": True,
    "COMPLIANT_BCP_RFC9700_TOKEN_STORAGE": True,
    # A refresh token is used once: its answer carries the next one, and a rotated one presented
    # again revokes its whole family (a stolen copy is caught the first time both are used).
    "ROTATE_REFRESH_TOKEN": True,
    "REFRESH_TOKEN_REUSE_PROTECTION": True,
    "ACCESS_TOKEN_EXPIRE_SECONDS": env.int("OAUTH_ACCESS_TOKEN_SECONDS", default=3600),
    "REFRESH_TOKEN_EXPIRE_SECONDS": env.int("OAUTH_REFRESH_TOKEN_SECONDS", default=30 * 86400),
    "AUTHORIZATION_CODE_EXPIRE_SECONDS": 60,
    # Delegated tokens carry a prefix of their own (truc_api/authentication.py tells them apart).
    "ACCESS_TOKEN_GENERATOR": "truc_api.authentication.new_access_token",
    "REFRESH_TOKEN_GENERATOR": "truc_api.authentication.new_refresh_token",
    "OAUTH2_GRANT_TYPES_SUPPORTED": ["authorization_code", "refresh_token"],
    "OAUTH2_RESPONSE_TYPES_SUPPORTED": ["code"],
}
# The toolkit's models are swappable; migrations that point at one name it here.
OAUTH2_PROVIDER_ACCESS_TOKEN_MODEL = "oauth2_provider.AccessToken"
# The consent page asks a player without a session to sign in here first.
LOGIN_URL = "/oauth/login/"
# The languages of the consent and sign-in pages (oauth/locale/).
LANGUAGES = [("en", "English"), ("es", "Español"), ("ca", "Català")]
LOCALE_PATHS = [BASE_DIR / "oauth" / "locale"]
# A personal token lives this long unless revoked.
PERSONAL_TOKEN_DAYS = env.int("PERSONAL_TOKEN_DAYS", default=365)

REST_KNOX = {
    # knox stores only a SHA-512 digest of each token; a token expires after TOKEN_TTL.
    "TOKEN_TTL": timedelta(days=env.int("TOKEN_TTL_DAYS", default=30)),
    "AUTO_REFRESH": False,
}

SPECTACULAR_SETTINGS: dict[str, Any] = {
    "ENUM_NAME_OVERRIDES": {
        "GameStatusEnum": "games.models.Game.Status",
        "LevelEnum": "games.bots.LEVELS",
        "DeclineReasonEnum": "lobby.models.Challenge.DeclineReason",
        "RuleOptionNameEnum": "games.contract.OPTION_NAMES",
    },
    "TITLE": "Truc API",
    "DESCRIPTION": (
        "A REST game server that referees Truc valencià and Truco argentino. "
        "Errors are application/problem+json (RFC 9457) with a stable `code`."
    ),
    "VERSION": __version__,
    "SERVE_INCLUDE_SCHEMA": False,
    # An `<int:...>` path parameter is digits (Django's converter) naming a bigint id: beyond
    # the largest, no row has it (a 404), as the schema says.
    "PATH_CONVERTER_OVERRIDES": {"int": PATH_ID},
    # 3.1: JSON Schema itself, where "this or null" is `oneOf: [X, {type: null}]`, a form every
    # generator reads; 3.0's `nullable` beside a reference has no type to apply to (3.0.3).
    "OAS_VERSION": "3.1.0",
    "COMPONENT_SPLIT_REQUEST": True,
    # Swagger UI and ReDoc are served from the sidecar package: the docs need no internet.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # With no web fonts to fetch (truc_api/templates/truc_api/redoc.html), the system's.
    "REDOC_UI_SETTINGS": {
        "theme": {
            "typography": {
                "fontFamily": "system-ui, sans-serif",
                "headings": {"fontFamily": "system-ui, sans-serif"},
            }
        }
    },
    # The `oauth2` scheme: the authorization-code flow (with PKCE, docs/oauth.md) and every
    # scope (truc_api/scopes.py); each operation lists the scopes its view declares.
    "OAUTH2_FLOWS": ["authorizationCode"],
    "OAUTH2_AUTHORIZATION_URL": "/oauth/authorize/",
    "OAUTH2_TOKEN_URL": "/oauth/token/",
    "OAUTH2_REFRESH_URL": "/oauth/token/",
    # The contract's components (games/contract.py), the webhooks, and the problem codes
    # (truc_api/openapi.py).
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        # Each lobby kind's body, then every webhook and their union (the lobby's first).
        "lobby.api.webhooks.install",
        "notifications.api.webhooks.install",
        "push.api.schema.install",
        "games.contract.install",
        "truc_api.openapi.postprocess",
    ],
}

# --- Notifications (notifications/): webhooks and "deadline is near" reminders ----------------

# Loopback and private addresses are refused as webhook URLs (SSRF) unless this allows them.
WEBHOOK_ALLOW_PRIVATE_ADDRESSES = env.bool("WEBHOOK_ALLOW_PRIVATE_ADDRESSES", default=DEBUG)
# Seconds before each retry: 5 s, 30 s, 2 min, 10 min, 30 min, 1 h, 3 h, 6 h; then it fails.
_DEFAULT_RETRY_DELAYS = [5, 30, 120, 600, 1800, 3600, 10800, 21600]
WEBHOOK_RETRY_DELAYS = [
    float(delay) for delay in env.list("WEBHOOK_RETRY_DELAYS", default=_DEFAULT_RETRY_DELAYS)
]
# An attempt holds a worker this long at most: connecting to the receiver, then the whole
# exchange (a receiver that trickles its answer is cut off at WEBHOOK_TIMEOUT_SECONDS).
WEBHOOK_CONNECT_TIMEOUT_SECONDS: float = env.float("WEBHOOK_CONNECT_TIMEOUT_SECONDS", default=2.0)
WEBHOOK_TIMEOUT_SECONDS: float = env.float("WEBHOOK_TIMEOUT_SECONDS", default=5.0)
# Retries get no task with an ETA (a worker holds those unacknowledged in its prefetch window,
# beside everyone's deliveries): the sweep, every WEBHOOK_SWEEP_SECONDS, sends each retry and
# held-back delivery once due, and a first attempt whose task was lost once it is overdue by
# WEBHOOK_SWEEP_GRACE_SECONDS.
WEBHOOK_SWEEP_SECONDS = env.float("WEBHOOK_SWEEP_SECONDS", default=1.0)
WEBHOOK_SWEEP_GRACE_SECONDS = env.float("WEBHOOK_SWEEP_GRACE_SECONDS", default=30.0)
# Fairness (notifications/breaker.py): attempts of one subscription in flight at once, and the
# breaker: so many failed attempts in a row stop its attempts for so many seconds.
WEBHOOK_CONCURRENCY_PER_SUBSCRIPTION = env.int("WEBHOOK_CONCURRENCY_PER_SUBSCRIPTION", default=2)
WEBHOOK_BREAKER_FAILURES = env.int("WEBHOOK_BREAKER_FAILURES", default=5)
WEBHOOK_BREAKER_SECONDS = env.float("WEBHOOK_BREAKER_SECONDS", default=60.0)
# A queue of their own, with workers of their own (docker-compose.yml, `manage.py serve`), keeps
# slow receivers from delaying turn timeouts and bots; "" sends them to the default queue.
WEBHOOK_QUEUE = env.str("WEBHOOK_QUEUE", default="webhooks")
REMINDER_LEAD_SECONDS = env.int("REMINDER_LEAD_SECONDS", default=3600)
REMINDER_SWEEP_SECONDS = env.float("REMINDER_SWEEP_SECONDS", default=60.0)
CELERY_BEAT_SCHEDULE["sweep-webhook-deliveries"] = {
    "task": "notifications.tasks.sweep_deliveries",
    "schedule": WEBHOOK_SWEEP_SECONDS,
    # A sweep not run by the next one's time is superseded by it: no pile-up while the worker
    # of the default queue is down.
    "options": {"expires": WEBHOOK_SWEEP_SECONDS},
}
CELERY_BEAT_SCHEDULE["deadline-reminders"] = {
    "task": "notifications.tasks.send_deadline_reminders",
    "schedule": REMINDER_SWEEP_SECONDS,
}
SPECTACULAR_SETTINGS["ENUM_NAME_OVERRIDES"] |= {
    "NotificationKindEnum": "notifications.models.Kind",
    "DeliveryStatusEnum": "notifications.models.Delivery.Status",
}

# --- Push notifications (push/): phones and browsers, through their push services ------------

# Each service is off until configured; the server runs without any (docs/push.md).
# Web Push: the VAPID key pair's private half (PEM) and the contact the push services may write to.
WEBPUSH_VAPID_PRIVATE_KEY = env.str("WEBPUSH_VAPID_PRIVATE_KEY", default="")
WEBPUSH_SUBJECT = env.str("WEBPUSH_SUBJECT", default="")
# FCM HTTP v1: a service account's JSON key file; its token_uri and FCM_BASE_URL say where to ask.
FCM_SERVICE_ACCOUNT_FILE = env.str("FCM_SERVICE_ACCOUNT_FILE", default="")
FCM_BASE_URL = env.str("FCM_BASE_URL", default="https://fcm.googleapis.com")
# APNs: a token signing key (.p8, PEM), its id and the team's; APNS_CA_FILE only for a test APNs.
APNS_KEY_FILE = env.str("APNS_KEY_FILE", default="")
APNS_KEY_ID = env.str("APNS_KEY_ID", default="")
APNS_TEAM_ID = env.str("APNS_TEAM_ID", default="")
APNS_HOST = env.str("APNS_HOST", default="https://api.push.apple.com")
APNS_CA_FILE = env.str("APNS_CA_FILE", default="")
# A Web Push endpoint at a loopback or private address is refused (SSRF) unless this allows it.
PUSH_ALLOW_PRIVATE_ADDRESSES = env.bool("PUSH_ALLOW_PRIVATE_ADDRESSES", default=DEBUG)
PUSH_MAX_DEVICES = env.int("PUSH_MAX_DEVICES", default=5)
# A push waits this long, then checks again that it still holds (the turn not already gone, the
# player not at the table) before it is sent: a bot's instant answer buzzes no phone.
PUSH_DELAY_SECONDS = env.float("PUSH_DELAY_SECONDS", default=2.0)
# A player who read the game this recently (his stream of it, or the API) is at the table: no
# push about it (streams/presence.py).
AT_TABLE_SECONDS = env.float("AT_TABLE_SECONDS", default=10.0)
PUSH_RETRY_DELAYS = [
    float(delay) for delay in env.list("PUSH_RETRY_DELAYS", default=[5, 30, 120, 600, 1800])
]
PUSH_TIMEOUT_SECONDS: float = env.float("PUSH_TIMEOUT_SECONDS", default=10.0)
PUSH_SWEEP_SECONDS = env.float("PUSH_SWEEP_SECONDS", default=15.0)
# The sweep sends a push overdue by this much: its task was lost, or its worker died mid-send.
PUSH_SWEEP_GRACE_SECONDS = env.float("PUSH_SWEEP_GRACE_SECONDS", default=5.0)
# A queue and workers of their own: a slow push service delays neither turn clocks nor webhooks.
PUSH_QUEUE = env.str("PUSH_QUEUE", default="push")
CELERY_BEAT_SCHEDULE["sweep-pushes"] = {
    "task": "push.tasks.sweep_pushes",
    "schedule": PUSH_SWEEP_SECONDS,
}
SPECTACULAR_SETTINGS["ENUM_NAME_OVERRIDES"] |= {
    "PushKindEnum": "push.models.PushKind",
    "PushStatusEnum": "push.models.Push.Status",
    "PushPlatformEnum": "push.models.Platform",
    "PushLocaleEnum": "push.models.Locale",
}

# --- Streams (streams/): Server-Sent Events, woken through Redis pub/sub after commit ---------

# Every server process subscribes to <STREAMS_CHANNEL_PREFIX>:* here; with no URL (the embedded
# defaults of `make run`) a process wakes only its own streams (streams/bus.py). Pub/sub channels
# are shared by every database of a Redis server: the prefix keeps deployments (and parallel test
# runs) apart.
STREAMS_REDIS_URL = env.str(
    "STREAMS_REDIS_URL",
    default=CELERY_BROKER_URL if CELERY_BROKER_URL.startswith(("redis://", "rediss://")) else "",
)
STREAMS_CHANNEL_PREFIX = env.str("STREAMS_CHANNEL_PREFIX", default="truc")
# A comment line on an idle stream this often (proxies drop silent connections).
STREAM_HEARTBEAT_SECONDS = env.float("STREAM_HEARTBEAT_SECONDS", default=15.0)
# How often a process asks the database whether anything moved that no notification told (a
# lost one, or with no Redis a move made by another process, such as the Celery worker).
STREAM_CHECK_SECONDS: float = env.float(
    "STREAM_CHECK_SECONDS", default=STREAM_HEARTBEAT_SECONDS if STREAMS_REDIS_URL else 1.0
)
# Threads a streams process reads games on (each with its own database connection): a read
# mostly waits for PostgreSQL, so several overlap. While this many reads are in flight, the games
# woken meanwhile wait and are all read together by the next (streams/hub.py, Hub.read).
# How often each streams process checks its streams' tokens in the database (one query for all):
# a revoked or expired token closes its streams within this even when no notification came.
STREAM_TOKEN_CHECK_SECONDS: float = env.float("STREAM_TOKEN_CHECK_SECONDS", default=1.0)
STREAM_READ_THREADS = env.int("STREAM_READ_THREADS", default=4)
# The most keys (games at a cursor, players) one read takes: the rest go in the next reads.
STREAM_READ_BATCH = env.int("STREAM_READ_BATCH", default=32)
STREAMS_PER_PLAYER = env.int("STREAMS_PER_PLAYER", default=16)
STREAMS_PER_PROCESS = env.int("STREAMS_PER_PROCESS", default=10000)
STREAM_RETRY_AFTER_SECONDS = env.int("STREAM_RETRY_AFTER_SECONDS", default=10)
# The streams process's garbage collector (truc_api/collector.py, applied in truc_api/asgi.py):
# freeze what start-up loaded, so that no collection walks it again, and collect the youngest
# generation after this many new objects instead of Python's 700 (0: Python's own).
STREAMS_GC_FREEZE = env.bool("STREAMS_GC_FREEZE", default=True)
STREAMS_GC_THRESHOLD = env.int("STREAMS_GC_THRESHOLD", default=50000)
# What a stream tells EventSource to wait before reconnecting after a drop.
STREAM_RETRY_MILLISECONDS = env.int("STREAM_RETRY_MILLISECONDS", default=2000)
# The streams are Django async views, which drf-spectacular does not see: a hook documents them.
# Before the contract's hook, which adds the components they refer to (FeedItem, Game).
SPECTACULAR_SETTINGS["POSTPROCESSING_HOOKS"].insert(1, "streams.docs.add_streams")

# --- Logging: structlog to stdout, JSON lines in production, readable lines locally -------------

# `json` (one object a line, for a log collector) or `console` (`make run` sets it). By default
# console with DEBUG or on a terminal, else JSON: a container's output is read by machines.
LOG_FORMAT = env.str("LOG_FORMAT", default="console" if DEBUG or sys.stdout.isatty() else "json")
if LOG_FORMAT not in ("json", "console"):
    raise ImproperlyConfigured(f"LOG_FORMAT is json or console, not {LOG_FORMAT!r}")
LOGGING = logging_config(
    json=LOG_FORMAT == "json",
    level=env.str("LOG_LEVEL", default="INFO"),
    colours=sys.stdout.isatty(),
)

# Browsers may call the API only from the origins listed here (none by default); native mobile
# apps and servers are not subject to CORS. Tokens go in a header, so no credentials are shared.
CORS_ALLOWED_ORIGINS = env.list("CORS_ALLOWED_ORIGINS", default=[])
CORS_EXPOSE_HEADERS = ["ETag", "X-Request-ID", "Idempotent-Replayed", "Retry-After"]
CORS_ALLOW_HEADERS = [*default_cors_headers, "idempotency-key", "if-none-match", "last-event-id"]

# --- Production hardening --------------------------------------------------------------------

if not DEBUG:
    # Off by default so that `make run` works over plain HTTP; turn on behind TLS.
    SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", default=False)
    SESSION_COOKIE_SECURE = env.bool("SESSION_COOKIE_SECURE", default=SECURE_SSL_REDIRECT)
    CSRF_COOKIE_SECURE = env.bool("CSRF_COOKIE_SECURE", default=SECURE_SSL_REDIRECT)
    SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=0)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = env.bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", default=False)
    SECURE_CONTENT_TYPE_NOSNIFF = True
    SECURE_REFERRER_POLICY = "same-origin"
    SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"
    SESSION_COOKIE_HTTPONLY = True
    X_FRAME_OPTIONS = "DENY"
    # Only behind a proxy that sets X-Forwarded-Proto itself and strips the client's.
    if env.bool("TRUST_X_FORWARDED_PROTO", default=False):
        SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

# --- The lobby (lobby/): seeks, challenges, rematches, table chat -------------------------------

# A seek's default rating window: this many points either side of the seeker's rating, widening
# by LOBBY_WINDOW_PER_SECOND for each second waited, up to LOBBY_WINDOW_MOST (lobby/pairing.py).
LOBBY_WINDOW_BASE = env.int("LOBBY_WINDOW_BASE", default=100)
LOBBY_WINDOW_PER_SECOND = env.float("LOBBY_WINDOW_PER_SECOND", default=2.0)
LOBBY_WINDOW_MOST = env.int("LOBBY_WINDOW_MOST", default=500)
LOBBY_SEEK_SECONDS = env.int("LOBBY_SEEK_SECONDS", default=1800)
LOBBY_CHALLENGE_SECONDS = env.int("LOBBY_CHALLENGE_SECONDS", default=86_400)
# The seeks of one pool that one pairing pass locks and considers at most, oldest first.
LOBBY_PAIRING_BATCH = env.int("LOBBY_PAIRING_BATCH", default=5000)
LOBBY_SWEEP_SECONDS = env.float("LOBBY_SWEEP_SECONDS", default=5.0)
CELERY_BEAT_SCHEDULE["lobby-sweep"] = {
    "task": "lobby.tasks.sweep_lobby",
    "schedule": LOBBY_SWEEP_SECONDS,
}
# Table chat: a line's length, and how many lines one player may say at a game in a window.
CHAT_MAX_LENGTH = env.int("CHAT_MAX_LENGTH", default=280)
CHAT_RATE_LINES = env.int("CHAT_RATE_LINES", default=5)
CHAT_RATE_SECONDS = env.int("CHAT_RATE_SECONDS", default=10)
