import argparse
import sys
from datetime import datetime

from cronlite.fields import CronSyntaxError
from cronlite.schedule import CronSchedule


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="cronlite", description="Show the next runs of a cron expression.")
    parser.add_argument("expression")
    parser.add_argument("-n", "--count", type=int, default=5)
    parser.add_argument("--after", type=datetime.fromisoformat, default=None)
    args = parser.parse_args(argv)
    try:
        schedule = CronSchedule.parse(args.expression)
    except CronSyntaxError as exc:
        print(f"cronlite: {exc}", file=sys.stderr)
        return 2
    start = args.after or datetime.now().replace(second=0, microsecond=0)
    for when in schedule.upcoming(start, args.count):
        print(when.strftime("%Y-%m-%d %H:%M %a"))
    return 0
