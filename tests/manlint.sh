#!/bin/sh
# Every man page must pass mandoc -Tlint without a single message.
status=0
for f in "${top_srcdir:-.}"/man/*.[1-9]; do
	out=$(mandoc -Tlint -W warning "$f" 2>&1)
	if [ -n "$out" ]; then
		printf '%s\n' "$out"
		status=1
	fi
done
exit $status
