"""What an op may raise instead of returning a result (spec/PROTOCOL.md: `error`, `skipped`)."""

from typing import Optional


class Refused(Exception):
    """The implementation refuses the request under a spec rule: an `error` reply.

    `rule` is the stable rule id the corpus expects (e.g. "composition-stride-divisibility"),
    `clause` the spec clause when known; the message is informational."""

    def __init__(self, rule: str, message: str = "", clause: Optional[str] = None) -> None:
        super().__init__(message or rule)
        self.rule = rule
        self.clause = clause


class Skipped(Exception):
    """The implementation does not handle this request (a `skipped` reply: the case counts as
    unsupported, never as a failure)."""

    def __init__(self, reason: str = "not supported by this implementation") -> None:
        super().__init__(reason)
        self.reason = reason
