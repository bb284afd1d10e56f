def clamp(value, low, high):
    raise NotImplementedError
