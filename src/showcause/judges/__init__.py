"""Review modes: the mechanical judge, the bounded tool loop and the model-driven modes."""
