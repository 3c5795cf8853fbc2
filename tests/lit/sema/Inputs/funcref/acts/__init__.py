# A package whose __init__ imports what tilec takes as absent; nothing of it is used.
import some_extension_that_is_not_installed  # noqa: F401
