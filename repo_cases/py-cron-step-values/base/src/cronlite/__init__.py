from cronlite.schedule import CronSchedule

__all__ = ["CronSchedule"]
