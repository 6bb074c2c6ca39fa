from ledgerly.tasks.celery_app import app

REMINDER_DAYS = (3, 10, 21)


@app.task(acks_late=True)
def send_reminders() -> int:
    return 0
