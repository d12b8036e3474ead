"""Static analysis of a snapshot on the host: code text, retired names, arity, signatures, scope, imports."""
