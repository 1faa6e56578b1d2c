#!/bin/sh
# Run the tests of refctl audit, show and export (tests/audit.py) against
# the log of a real refd.
top_srcdir=${top_srcdir:-.}
top_builddir=${top_builddir:-.}
export top_srcdir top_builddir
exec python3 "$top_srcdir/tests/audit.py" "$@"
