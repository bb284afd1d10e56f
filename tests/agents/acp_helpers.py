"""What the ACP integration tests share: running a turn and a gate that records its calls."""

from desktop.contract.events import Resolution, parse_event


async def run(provider, request) -> list[dict]:
    """Every event of one turn, each checked to be a valid contract event."""
    events = [event async for event in provider.start(request)]
    for event in events:
        parse_event({**event, "runId": request.run_id})
    return events


def of_type(events: list[dict], kind: str) -> list[dict]:
    return [e for e in events if e["type"] == kind]


def recording_gate(decision: str):
    """A gate answering ``decision`` to every call, and the list of calls it was asked."""
    asked: list = []

    async def gate(tool, context):
        asked.append(tool)
        return Resolution(status=decision, reason="not this one" if decision == "denied" else None)

    return gate, asked
