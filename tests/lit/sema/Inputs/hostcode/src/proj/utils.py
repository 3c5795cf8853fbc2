def is_accelerator_available():
    """Asks a library that is not installed; Python answers False."""
    try:
        from not_installed_pkg.utils import probe
        return probe()
    except Exception:
        return False


def block_for(n):
    try:
        import not_installed_pkg  # noqa: F401
    except (AttributeError, ImportError) as e:
        reason = e
        return n * 2
    else:
        return 0
    finally:
        pass


def unguarded():
    import not_installed_pkg
    return not_installed_pkg.WIDTH


def ordinary(n):
    if n > 4:
        return n - 4
    return n
