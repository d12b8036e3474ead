"""Decision review, one product in one package: a decision document (a problem and a proposed solution, no
code) reviewed by a decision mode.

- `modes`: the built-in decision modes (`blind_first`, `proposal_first`) and what every mode shares;
- `registry`: `DECISION_MODES`, the registry of decision modes (entry-point group `showcause.decision_modes`);
- `review`: the service entry (a file, a set of fields, a validated input; telemetry);
- `render`: its report formats;
- `arms`: the decision benchmark's arms, which the bench alone registers (bench/decision_arms.py).

The blindness check (judges/blindness.py) stays below, in `judges/`: the code-change `blind_first` runs it too.
"""

__all__: list[str] = []
