VALUE = "original"
