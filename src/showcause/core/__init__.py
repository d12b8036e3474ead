"""The bottom layer: plain types (claims, answers, artifacts, results, decisions), errors, bounded parsing,
and the facts about the host and how showcause starts its own programs. Imports nothing else of showcause."""
