#!/bin/sh
# Run the end-to-end tests (tests/e2e.py) against the built refd.
top_srcdir=${top_srcdir:-.}
top_builddir=${top_builddir:-.}
export top_srcdir top_builddir
exec python3 "$top_srcdir/tests/e2e.py" "$@"
