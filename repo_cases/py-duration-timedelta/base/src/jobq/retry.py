from dataclasses import dataclass

from jobq.durations import parse_duration


@dataclass(frozen=True)
class RetryPolicy:
    base: str = "10s"
    cap: str = "15m"
    factor: int = 2

    def delay_for(self, attempt: int) -> int:
        """Seconds to wait before retry number `attempt` (1-based)."""
        if attempt < 1:
            raise ValueError("attempt is 1-based")
        delay = parse_duration(self.base) * self.factor ** (attempt - 1)
        return min(delay, parse_duration(self.cap))
