from ledgerly.tasks.celery_app import app


@app.task(acks_late=True, max_retries=2)
def render_invoice_pdf(invoice_id: int) -> str:
    import weasyprint  # heavy: imported in the worker only

    return weasyprint.__name__
