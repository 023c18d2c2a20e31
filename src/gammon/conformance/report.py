"""What ``gammon ubgi-check`` reports: one result per check, and the compliance level they add up to.

>>> report = CheckReport("engine", "v0.2", [CheckResult("handshake", PASS, "ok", 0),
...                                         CheckResult("cube", SKIP, "not supported", 1)])
>>> report.level, report.ok(), report.ok(require_level=1)
(0, True, False)
>>> print(report.text())
PASS handshake: ok
SKIP cube: not supported
compliance level: 0
checks: 1 passed, 0 failed, 1 skipped
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import GammonError

PASS, FAIL, SKIP = "pass", "fail", "skip"


class CheckSetupError(GammonError, ValueError):
    """The suite cannot run at all: the engine command does not start, or --positions is unreadable."""


@dataclass(frozen=True, slots=True)
class CheckResult:
    """One check's outcome. ``level`` is the compliance level it counts for (None: an extension,
    reported only); an ``optional`` check may be skipped without costing its level."""

    name: str
    status: str
    detail: str
    level: int | None = 0
    optional: bool = False

    def line(self) -> str:
        return f"{self.status.upper()} {self.name}: {' '.join(self.detail.split())}"

    def as_dict(self) -> dict[str, object]:
        return {"name": self.name, "status": self.status, "detail": self.detail, "level": self.level}


@dataclass
class CheckReport:
    """Every check's result and the compliance level they add up to (-1: not even level 0)."""

    engine: str
    dialect: str | None
    checks: list[CheckResult] = field(default_factory=list)

    @property
    def level(self) -> int:
        reached = -1
        for level in (0, 1, 2):
            for check in self.checks:
                if check.level is None or check.level > level:
                    continue
                if check.status == FAIL or (check.status == SKIP and not check.optional):
                    return reached
            reached = level
        return reached

    def _count(self, status: str) -> int:
        return sum(1 for check in self.checks if check.status == status)

    @property
    def passed(self) -> int:
        return self._count(PASS)

    @property
    def failed(self) -> int:
        return self._count(FAIL)

    @property
    def skipped(self) -> int:
        return self._count(SKIP)

    def ok(self, require_level: int = 0) -> bool:
        """The exit-status rule: level 0 reached, and at least ``require_level``."""
        return self.level >= max(0, require_level)

    def summary_lines(self) -> list[str]:
        return [
            f"compliance level: {self.level}",
            f"checks: {self.passed} passed, {self.failed} failed, {self.skipped} skipped",
        ]

    def text(self) -> str:
        return "\n".join([check.line() for check in self.checks] + self.summary_lines())

    def as_dict(self) -> dict[str, object]:
        return {
            "engine": self.engine,
            "dialect": self.dialect,
            "level": self.level,
            "checks": [check.as_dict() for check in self.checks],
            "passed": self.passed,
            "failed": self.failed,
            "skipped": self.skipped,
        }
