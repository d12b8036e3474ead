from string import Template

TEMPLATES: dict[str, tuple[str, str]] = {
    "digest": ("Your weekly digest ($count items)", "Hello $name,\n\n$items\n\n-- Acme"),
    "alert": ("[$severity] $title", "$text\n\nRunbook: $runbook"),
}


def render(template: str, /, **values: object) -> tuple[str, str]:
    subject, body = TEMPLATES[template]
    return Template(subject).substitute(values), Template(body).substitute(values)
