from celery import Celery
from celery.schedules import crontab

app = Celery("ledgerly")
app.conf.task_routes = {
    "ledgerly.tasks.pdf.*": {"queue": "pdf"},
    "ledgerly.tasks.dunning.*": {"queue": "dunning"},
}
app.conf.beat_schedule = {
    "dunning-daily": {
        "task": "ledgerly.tasks.dunning.send_reminders",
        "schedule": crontab(hour=7, minute=30),
    },
}
