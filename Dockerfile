# The Truc API image: granian serves truc_api.wsgi; the same image runs the Celery worker and beat.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PYTHONPATH=/app \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /app

# The runtime dependencies from pyproject.toml, at the exact versions requirements.lock pins
# (the lock pins the dev tools too; as constraints they are simply not installed).
COPY pyproject.toml requirements.lock ./
RUN python -c "import tomllib; print('\n'.join(tomllib.load(open('pyproject.toml', 'rb'))['project']['dependencies']))" > /tmp/runtime.txt \
    && pip install -r /tmp/runtime.txt -c requirements.lock \
    && rm /tmp/runtime.txt

COPY manage.py ./
COPY truc_api ./truc_api
COPY games ./games
COPY players ./players
COPY notifications ./notifications
COPY streams ./streams
COPY push ./push
COPY lobby ./lobby
COPY oauth ./oauth
COPY routes ./routes
COPY play ./play

# STATIC_ROOT (/app/staticfiles): whitenoise serves the docs' assets from it at /static/.
RUN python manage.py collectstatic --noinput \
    && useradd --create-home --uid 10001 truc

USER truc
EXPOSE 8000
# Threads and processes: docker-compose.yml says why these.
ENV GRANIAN_WORKERS=2 \
    GRANIAN_BLOCKING_THREADS=2
# No access log: granian writes the decoded path, so a %0a in a URL would forge a line. In
# docker-compose.yml nginx stands in front and writes the access log as JSON.
CMD ["granian", "--interface", "wsgi", "--host", "0.0.0.0", "--port", "8000", \
     "--respawn-failed-workers", "truc_api.wsgi:application"]
