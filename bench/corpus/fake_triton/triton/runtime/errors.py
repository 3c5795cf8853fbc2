class OutOfResources(Exception):
    def __init__(self, required=0, limit=0, name=""):
        super().__init__(f"out of resource: {name}, required {required}, limit {limit}")


class PTXASError(Exception):
    pass
