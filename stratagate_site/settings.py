"""Django settings, read from the environment (DESIGN §5); every variable is optional."""

from __future__ import annotations

import secrets
from datetime import timedelta
from pathlib import Path

import dj_database_url
from django.utils.csp import CSP

from stratagate_site.env import (
    CONFIG_PROBLEMS,
    SecretKeyUnusable,
    env_bool,
    env_choice,
    env_float,
    env_int,
    env_origins,
    env_str,
    env_time_zone,
    secret_key_from_data_dir,
)

BASE_DIR = Path(__file__).resolve().parent.parent
DATA_DIR = Path(env_str("STRATAGATE_DATA_DIR") or BASE_DIR / "var").resolve()

DEBUG = env_bool("DJANGO_DEBUG", False)
_secret = env_str("DJANGO_SECRET_KEY")
_data_dir_usable = True
try:
    if not _secret:
        # A local install gets a per-data-dir secret so sessions survive restarts without config.
        _secret = secret_key_from_data_dir(DATA_DIR)
    elif not env_str("DATABASE_URL"):  # the SQLite database goes there
        DATA_DIR.mkdir(mode=0o700, parents=True, exist_ok=True)
except SecretKeyUnusable as exc:
    CONFIG_PROBLEMS.append(("stratagate.E005", str(exc)))
except OSError as exc:
    CONFIG_PROBLEMS.append(("stratagate.E002", f"cannot use {DATA_DIR} for data: {exc}"))
    _data_dir_usable = False
if not _secret:
    # Never a built-in key: the check error stops serve, migrate and db_worker, and a process
    # that runs without checks signs with a random key nobody can guess (its sessions and CSRF
    # tokens are good for this process only).
    _secret = secrets.token_urlsafe(50)
SECRET_KEY = _secret
ALLOWED_HOSTS = [
    h for h in env_str("DJANGO_ALLOWED_HOSTS", "localhost,127.0.0.1,[::1]").split(",") if h
]

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "channels",
    "memory",  # before django_tasks_db: our db_worker wraps theirs with job recovery
    "django_tasks_db",
    "graphui",
    "axes",  # login throttling (STRATAGATE_LOGIN_FAILURE_LIMIT below)
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "graphui.middleware.UILoginRequired",
    "graphui.middleware.UnstorableTextRefused",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    "graphui.middleware.StrataGateErrorPages",
    # Last, as django-axes asks: turns a login refused for throttling into the lock-out page.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "stratagate_site.urls"
WSGI_APPLICATION = None
ASGI_APPLICATION = "stratagate_site.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.csp",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "django.template.context_processors.i18n",
                "graphui.context.layout",
            ],
        },
    },
]

# --- database ---------------------------------------------------------------------------------
DATABASE_URL = env_str("DATABASE_URL")
# Django's SQLite backend handing the write lock over within a millisecond (its module says why).
SQLITE_ENGINE = "stratagate_site.sqlite"
SQLITE_OPTIONS = {
    # IMMEDIATE: writers take the lock at BEGIN, so two writers never deadlock on lock upgrade.
    "transaction_mode": "IMMEDIATE",
    "timeout": 20,
    # WAL is a property of the database file, set once after migrate (memory.apps); setting
    # it on every connection cost half of each request's connection time.
    "init_command": "PRAGMA synchronous=NORMAL; PRAGMA busy_timeout=20000; PRAGMA foreign_keys=ON;",
}
# PostgreSQL plans every statement of a StrataGate connection with random_page_cost 1.1, the
# usual value for SSDs or a database that fits in memory: with the default 4 the planner
# seq-scans a search index table once a query's terms match a few thousand rows (47 ms where
# the GIN bitmap scan takes 12). Set when connecting, so no statement pays a round trip for it;
# an `options` given in DATABASE_URL comes after it and wins.
POSTGRES_OPTIONS = "-c random_page_cost=1.1"


def postgres_options(given: str | None) -> str:
    return f"{POSTGRES_OPTIONS} {given}" if given else POSTGRES_OPTIONS


if DATABASE_URL:
    try:
        DATABASES = {"default": dj_database_url.parse(DATABASE_URL)}
    except Exception as exc:  # dj_database_url raises plain exceptions for unknown schemes
        CONFIG_PROBLEMS.append(("stratagate.E003", f"DATABASE_URL is not usable: {exc}"))
        DATABASES = {"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": ":memory:"}}
    if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
        DATABASES["default"]["ENGINE"] = SQLITE_ENGINE
        DATABASES["default"]["OPTIONS"] = dict(SQLITE_OPTIONS)
    elif DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
        pg = DATABASES["default"].setdefault("OPTIONS", {})
        pg["options"] = postgres_options(pg.get("options"))
else:
    DATABASES = {
        "default": {
            "ENGINE": SQLITE_ENGINE,
            # In memory when the data directory is unusable (stratagate.E002), so that
            # `manage.py check` runs to report it: Django's own checks open the database.
            "NAME": str(DATA_DIR / "stratagate.sqlite3") if _data_dir_usable else ":memory:",
            "OPTIONS": dict(SQLITE_OPTIONS),
            "TEST": {"NAME": str(DATA_DIR / "test-stratagate.sqlite3")},
        }
    }
# Persistent connections: the web server answers HTTP on a fixed pool of threads
# (stratagate_site.http_bridge), each keeping its connection between requests; opening one per
# request cost a third of a small request's CPU. `close_old_connections` (request start and
# end, and around channels' database calls) replaces one older than this or found broken.
DATABASES["default"]["CONN_MAX_AGE"] = 600
DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- channels ---------------------------------------------------------------------------------
REDIS_URL = env_str("REDIS_URL")
if REDIS_URL:
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            # A consumer waits for messages with BZPOPMIN for up to 5 s, and redis-py 8 reads
            # with a 5 s socket timeout by default: the read would time out as the wait ends
            # and kill every idle page's socket. A longer read timeout (a `socket_timeout=` in
            # REDIS_URL still wins) keeps them open.
            "CONFIG": {"hosts": [{"address": REDIS_URL, "socket_timeout": 15}]},
        }
    }
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}

# --- background work --------------------------------------------------------------------------
TASKS = {
    "default": {
        "BACKEND": "django_tasks_db.DatabaseBackend",
        "QUEUES": ["default"],
    }
}

# --- StrataGate -------------------------------------------------------------------------------
STRATAGATE_LLM_BASE_URL = env_str("STRATAGATE_LLM_BASE_URL")
STRATAGATE_LLM_API_KEY = env_str("STRATAGATE_LLM_API_KEY")
STRATAGATE_LLM_MODEL = env_str("STRATAGATE_LLM_MODEL")
# Seconds one model request may take; a slower answer fails the attempt like any transient
# error (the job retries with backoff). Raise it for slow local models.
STRATAGATE_LLM_TIMEOUT_SECONDS = env_int(
    "STRATAGATE_LLM_TIMEOUT_SECONDS", 60, low=1, high=3600, check_id="stratagate.E022"
)
STRATAGATE_BLOCK_TURNS = env_int(
    "STRATAGATE_BLOCK_TURNS", 6, low=1, high=100, check_id="stratagate.E010"
)
STRATAGATE_BLOCK_LAMBDA = env_float(
    "STRATAGATE_BLOCK_LAMBDA", 0.30, low=0.0, high=1.0, check_id="stratagate.E011"
)
STRATAGATE_NAMESPACE_MODE = env_choice(
    "STRATAGATE_NAMESPACE_MODE",
    "project",
    ("project", "session", "global"),
    check_id="stratagate.E012",
)
# Seconds a claimed job may run before another worker may take it over (a killed worker's job).
STRATAGATE_JOB_LEASE_SECONDS = env_int(
    "STRATAGATE_JOB_LEASE_SECONDS", 300, low=5, high=86400, check_id="stratagate.E013"
)
# Days the task queue keeps a finished trigger's row (django-tasks-db's DBTaskResult) before
# the workers delete it (memory.services.task_results); ProcessingJob rows are always kept.
STRATAGATE_TASK_RESULT_RETENTION_DAYS = env_int(
    "STRATAGATE_TASK_RESULT_RETENTION_DAYS", 7, low=1, high=3650, check_id="stratagate.E015"
)

# --- the model proxy (docs/PROXY.md) ------------------------------------------------------------
# Each upstream's base URL as its SDK takes it (https://api.openai.com/v1,
# https://api.anthropic.com, or any compatible server); unset answers 503
# `proxy_upstream_not_configured`. The keys are used when a client authenticates with its
# StrataGate token alone; a client's own provider key passes through untouched instead.
STRATAGATE_PROXY_OPENAI_URL = env_str("STRATAGATE_PROXY_OPENAI_URL").rstrip("/")
STRATAGATE_PROXY_ANTHROPIC_URL = env_str("STRATAGATE_PROXY_ANTHROPIC_URL").rstrip("/")
STRATAGATE_PROXY_OPENAI_KEY = env_str("STRATAGATE_PROXY_OPENAI_KEY")
STRATAGATE_PROXY_ANTHROPIC_KEY = env_str("STRATAGATE_PROXY_ANTHROPIC_KEY")
STRATAGATE_PROXY_CONNECT_TIMEOUT_SECONDS = env_float(
    "STRATAGATE_PROXY_CONNECT_TIMEOUT_SECONDS",
    10.0,
    low=0.1,
    high=600.0,
    check_id="stratagate.E030",
)
# Longest wait for the upstream's answer to begin, and between two chunks of a stream.
STRATAGATE_PROXY_READ_TIMEOUT_SECONDS = env_float(
    "STRATAGATE_PROXY_READ_TIMEOUT_SECONDS", 600.0, low=1.0, high=3600.0, check_id="stratagate.E031"
)
# How long building the memory to inject may take before the request goes on without it.
STRATAGATE_PROXY_INJECT_DEADLINE_MS = env_int(
    "STRATAGATE_PROXY_INJECT_DEADLINE_MS", 150, low=10, high=10_000, check_id="stratagate.E032"
)
# Largest request body the proxy reads (images travel inside it); larger is a 413.
STRATAGATE_PROXY_MAX_BODY_MB = env_int(
    "STRATAGATE_PROXY_MAX_BODY_MB", 50, low=1, high=1024, check_id="stratagate.E033"
)
# Process memory (block views, events, graph) with the proxy's upstream and the model the
# namespace's proxied requests used last, when no STRATAGATE_LLM_* model is configured.
STRATAGATE_LLM_FROM_PROXY = env_bool("STRATAGATE_LLM_FROM_PROXY", False)

# Threads per web process answering HTTP requests (each with its own database connection);
# more requests than this wait in the server's event loop for a free thread.
STRATAGATE_HTTP_THREADS = env_int(
    "STRATAGATE_HTTP_THREADS", 8, low=1, high=64, check_id="stratagate.E016"
)

# --- auth, static, security -------------------------------------------------------------------
LOGIN_URL = "/accounts/login/"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "/accounts/login/"
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]
# Login throttling (django-axes, counted in the database so every web process shares the
# counts, no Redis needed): after LOGIN_FAILURE_LIMIT failed logins within the lock-out
# time from one address, or for one user name from anywhere, that address or user may not
# log in for STRATAGATE_LOGIN_LOCKOUT_MINUTES; tries during the lock-out do not prolong it.
# `manage.py axes_reset` (or axes_reset_ip / axes_reset_username) unlocks at once.
STRATAGATE_LOGIN_FAILURE_LIMIT = env_int(
    "STRATAGATE_LOGIN_FAILURE_LIMIT", 5, low=1, high=100, check_id="stratagate.E042"
)
STRATAGATE_LOGIN_LOCKOUT_MINUTES = env_int(
    "STRATAGATE_LOGIN_LOCKOUT_MINUTES", 15, low=1, high=10080, check_id="stratagate.E043"
)
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",  # first: refuses a locked-out login before checking
    "django.contrib.auth.backends.ModelBackend",
]
AXES_HANDLER = "axes.handlers.database.AxesDatabaseHandler"
AXES_FAILURE_LIMIT = STRATAGATE_LOGIN_FAILURE_LIMIT
AXES_COOLOFF_TIME = timedelta(minutes=STRATAGATE_LOGIN_LOCKOUT_MINUTES)
AXES_LOCKOUT_PARAMETERS = ["ip_address", "username"]
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
# Not reset by a successful login: from one address, a login to one's own account would
# otherwise wipe that address's failures against every other account.
AXES_RESET_ON_SUCCESS = False
AXES_LOCKOUT_CALLABLE = "stratagate_site.login_throttle.locked_out_page"
AXES_CLIENT_IP_CALLABLE = "stratagate_site.login_throttle.client_ip"
AXES_VERBOSE = False
STATIC_URL = "/static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = DATA_DIR / "static"
SECURE_CSP = {
    "default-src": [CSP.SELF],
    "script-src": [CSP.SELF, CSP.NONCE],
    "style-src": [CSP.SELF, CSP.NONCE],
    "img-src": [CSP.SELF, "data:"],
    "connect-src": [CSP.SELF],
    "object-src": [CSP.NONE],
    "base-uri": [CSP.SELF],
    "frame-ancestors": [CSP.NONE],
    "form-action": [CSP.SELF],
}
# Largest request body: a 4 MiB import plus JSON overhead; larger bodies get a 413 from the
# web process while it reads them (stratagate_site.http_bridge), before any view or login.
DATA_UPLOAD_MAX_MEMORY_SIZE = 6 * 1024 * 1024
SESSION_COOKIE_HTTPONLY = True
CSRF_COOKIE_HTTPONLY = False
X_FRAME_OPTIONS = "DENY"

# --- behind a TLS-terminating reverse proxy (docs/OPERATIONS.md, "Behind a TLS proxy") ----------
# The proxy speaks HTTPS to browsers and plain HTTP to StrataGate; it says so in
# X-Forwarded-Proto, which is trusted only when this is set (the proxy must overwrite the
# header, never pass on a client's). Then requests count as secure: CSRF checks the https
# Origin a browser sends, and the session, CSRF and language cookies are Secure.
STRATAGATE_BEHIND_TLS_PROXY = env_bool("STRATAGATE_BEHIND_TLS_PROXY", False)
if STRATAGATE_BEHIND_TLS_PROXY:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SESSION_COOKIE_SECURE = STRATAGATE_BEHIND_TLS_PROXY
CSRF_COOKIE_SECURE = STRATAGATE_BEHIND_TLS_PROXY
LANGUAGE_COOKIE_SECURE = STRATAGATE_BEHIND_TLS_PROXY
# Strict-Transport-Security on secure responses (0: none). Up to two years.
SECURE_HSTS_SECONDS = env_int(
    "STRATAGATE_HSTS_SECONDS", 0, low=0, high=63_072_000, check_id="stratagate.E041"
)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("STRATAGATE_HSTS_INCLUDE_SUBDOMAINS", False)
# Origins (scheme://host[:port]) a form may be posted from besides the request's own host:
# needed when the public address differs from the Host header the proxy passes on.
CSRF_TRUSTED_ORIGINS = env_origins("DJANGO_CSRF_TRUSTED_ORIGINS", check_id="stratagate.E040")
# The Memory UI speaks English and Simplified Chinese; the browser's language (or the
# switcher's choice) decides. Times are stored in UTC and shown in STRATAGATE_TIME_ZONE.
LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("zh-hans", "简体中文")]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = env_time_zone("STRATAGATE_TIME_ZONE", "UTC", check_id="stratagate.E014")
USE_I18N = True
USE_TZ = True

# One handler, on the root logger, writes every process's log to stderr with credentials
# redacted (SPEC §15.3: logs are a way out too). Configuring the root replaces what a launcher
# installed there (a launcher's logging.basicConfig, as daphne's CLI calls before loading the
# site, printed each line of ours twice and 500 tracebacks unredacted). Loggers add no handlers
# of their own and propagate to it.
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"redact": {"()": "memory.engine.redact.RedactingFilter"}},
    "formatters": {"line": {"format": "{asctime} {levelname} {name}: {message}", "style": "{"}},
    "handlers": {
        "console": {"class": "logging.StreamHandler", "filters": ["redact"], "formatter": "line"}
    },
    "root": {"handlers": ["console"], "level": "WARNING"},
    "loggers": {
        "memory": {"level": env_str("STRATAGATE_LOG_LEVEL", "INFO")},
        # Django's own: everything from INFO with DJANGO_DEBUG (as Django's default), otherwise
        # errors only: an unhandled exception in a view (logger django.request, the 500 with
        # its traceback), a django.security refusal, a failed task; not each 4xx answer.
        # (This also drops Django's default mail_admins handler: no ADMINS, no mail set up.)
        "django": {"level": "INFO" if DEBUG else "ERROR"},
        # A web process says where it listens, and the access log (uvicorn.access, one line
        # per request) is at INFO; uvicorn's own notices (uvicorn.error) from WARNING.
        "stratagate_site.web": {"level": "INFO"},
        "uvicorn.access": {"level": "INFO"},
    },
}
