"""The review service: assemble a review from its inputs, run it, render it. The CLI, the bench and the MCP
server call this layer, and nothing below it directly."""
