"""A LiteLLM proxy's budget refusals in words a notebook user acts on.

The proxy refuses a request whose key, team, user, end user, project, organization or tag has
spent its budget (HTTP 422 since litellm 1.10x, 429 before), in messages such as
``Budget has been exceeded! Team=data-team Current cost: 12.5, Max budget: 10.0``. They become
``team budget exceeded: team data-team has spent $12.5 of its $10 budget; …``. Only the wording is
read (no litellm import): the same words arrive wrapped in litellm's and openai's exceptions.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

_NUMBER = r"[-+0-9.eE]+|inf|nan|None"
_EXCEEDED = re.compile(
    rf"Budget has been exceeded!\s*(?:(?P<who>[A-Za-z ]+?)=(?P<id>.+?)(?: in Team=(?P<team>\S+))?\s+)?"
    rf"Current cost:\s*(?P<spent>{_NUMBER}),\s*Max budget:\s*(?P<budget>{_NUMBER})"
)
_OVER = re.compile(
    rf"ExceededBudget: (?P<who>End User|User)=(?P<id>.+?) over budget\. Spend=(?P<spent>{_NUMBER}), Budget=(?P<budget>{_NUMBER})"
)
_MODEL = re.compile(r"LiteLLM (?P<who>Team|User|End User): (?P<id>.+?), exceeded budget for model=(?P<model>\S+)")
_HASH = re.compile(r"[0-9a-f]{64}")
_WHAT = {
    "key": "key",
    "team": "team",
    "user": "user",
    "end user": "end user",
    "project": "project",
    "organization": "organization",
    "tag": "tag",
    "model access group": "model access group",
}
ADVICE = "the proxy refuses requests until its admin raises the budget or the budget period resets"


def budget_refusal(text: str) -> str | None:
    """``"<what> budget exceeded: …"`` for a proxy's budget refusal in ``text``; ``None`` otherwise."""
    found = _EXCEEDED.search(text)
    if found is not None:
        spent, budget = _money(found["spent"]), _money(found["budget"])
        if found["team"]:
            who = f"user {found['id']} in team {found['team']}"
            return f"team member budget exceeded: {who} has spent {spent} of a {budget} budget; {ADVICE}"
        what = _WHAT.get((found["who"] or "").strip().lower(), "proxy")
        who = f"{what} {found['id']}" if found["id"] else f"the {what}"
        if what == "key" and _HASH.fullmatch(found["id"] or ""):
            who = f"your key (hash {found['id'][:8]}…)"  # the proxy names a key without alias by its hash
        return f"{what} budget exceeded: {who} has spent {spent} of its {budget} budget; {ADVICE}"
    found = _OVER.search(text)
    if found is not None:
        what = found["who"].lower()
        return (
            f"{what} budget exceeded: {what} {found['id']} has spent {_money(found['spent'])} "
            f"of its {_money(found['budget'])} budget; {ADVICE}"
        )
    found = _MODEL.search(text)
    if found is not None:
        what = found["who"].lower()
        return f"{what} budget exceeded for model {found['model']}: {what} {found['id']} has spent its budget for it; {ADVICE}"
    return None


def _money(text: str) -> str:
    """``$0.00003`` rather than ``3e-05``: budgets of a few cents are common in tests and trials."""
    try:
        value = Decimal(text)
    except InvalidOperation:
        return text
    if not value.is_finite():
        return text
    return "$" + format(value.normalize(), "f")
