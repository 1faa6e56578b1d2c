#!/bin/sh
# Replay every deal vector through libbriscola.
exec "${top_builddir:-.}/tests/check-vectors" "${top_srcdir:-.}/tests/deals.txt"
