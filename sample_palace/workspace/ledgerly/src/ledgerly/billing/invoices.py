from ledgerly.billing.money import Money


def next_invoice_number(cursor) -> str:
    cursor.execute("SELECT nextval('invoice_number_seq')")
    (n,) = cursor.fetchone()
    return f"INV-{n:06d}"


def total(lines: list[Money]) -> Money:
    currency = lines[0].currency
    return Money(sum(line.amount_minor for line in lines), currency)
