import goodpkg.sub
