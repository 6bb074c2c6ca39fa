import stripe

from ledgerly import settings


def handle(payload: bytes, sig_header: str, secret: str, db) -> None:
    event = stripe.Webhook.construct_event(
        payload, sig_header, secret, tolerance=settings.STRIPE_WEBHOOK_TOLERANCE
    )
    if db.processed_event_exists(event.id):
        return  # idempotent: Stripe retries for up to three days
    db.record_processed_event(event.id)
