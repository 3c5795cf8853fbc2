# A package module that imports a library of its own name, as SGLang's quantization/gguf.py
# imports gguf: in Python 3 the import is absolute and finds the library, or fails.
try:
    import scale

    FACTOR = scale.FACTOR * 2
except ImportError:
    FACTOR = 5
