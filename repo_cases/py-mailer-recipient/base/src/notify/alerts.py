from notify.mailer import Transport, send_email
from notify.templates import render

RUNBOOK_URL = "https://runbooks.acme.example/"


def alert_oncall(transport: Transport, oncall: list[str], severity: str, title: str, text: str) -> None:
    subject, body = render("alert", severity=severity.upper(), title=title, text=text,
                           runbook=RUNBOOK_URL + title.lower().replace(" ", "-"))
    for address in dict.fromkeys(oncall):
        send_email(transport, address, subject, body)
