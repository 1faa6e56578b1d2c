#!/bin/sh
# Run the cheater suite (tests/cheat.py) against the built refd.
top_srcdir=${top_srcdir:-.}
top_builddir=${top_builddir:-.}
export top_srcdir top_builddir
exec python3 "$top_srcdir/tests/cheat.py" "$@"
