"""The ledger of a review's tool calls and the gate that decides which claims may block."""
