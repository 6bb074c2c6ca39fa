import os

DATABASE_URL = os.environ["DATABASE_URL"]
STRIPE_API_VERSION = "2026-06-24"
STRIPE_WEBHOOK_TOLERANCE = 300  # seconds
CELERY_BROKER_URL = os.environ.get("REDIS_URL", "redis://localhost:6379/0")
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 7200}
FLAGS_FILE = "config/flags.toml"
