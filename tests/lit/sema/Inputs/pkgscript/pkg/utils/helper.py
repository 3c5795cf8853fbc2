try:
    from fastlib import fast  # the installed library, which this host lacks

    HAVE_FASTLIB = True
except ImportError:
    HAVE_FASTLIB = False

SCALE = 3.0 if HAVE_FASTLIB else 2.0
