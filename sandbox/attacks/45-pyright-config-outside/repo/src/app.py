count: int = "not an int"
