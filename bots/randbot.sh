#!/bin/sh
# randbot.sh [-r file] [seed]: a refd bot in sh and awk playing random cards.
# With -r every line received is appended to file as received, and each answer
# after it as "> " and its first line without the id: the transcript that, with
# the receipt in its match_end line, refctl verify-receipt holds the log to.
f=; if [ "$1" = -r ]; then f=$2; shift 2; fi
case $(awk -W version 2>&1) in *mawk*) ia="-W interactive" ;; esac
exec awk $ia -v s="$1" -v p=$$ -v f="$f" 'BEGIN { srand(); srand(s == "" ? srand() + p : s); rk = "- 1 3 10 9 8 7 6 5 4 2 -"
  k = " bid called deal_end deal_start draw genbid gencall genplay joker known_command list_commands" \
    " match_end match_start name partner partner_hand play protocol_version quit trick version " }
{ if (f != "") { w = $0; sub(/\r$/, "", w); print w >> f; fflush(f) }
  gsub(/\r|#.*/, ""); n = split($0, a, " "); id = ""; r = ""; e = 0
  if (a[1] ~ /^[0-9]+$/) { id = a[1]; n--; for (j = 1; j <= n; j++) a[j] = a[j+1] }
  if (n == 0) next; c = a[1]; if (c == "protocol_version") r = 2
  else if (c == "name" || c == "version") r = c == "name" ? "randbot.sh" : "1.0"
  else if (c == "list_commands") { r = substr(k, 2, length(k) - 2); gsub(/ /, "\n", r) }
  else if (c == "known_command") r = n > 1 && index(k, " " a[2] " ") ? "true" : "false"
  else if (c == "genplay") { e = n < 3; r = e ? "no cards" : a[3 + int(rand() * (n-2))] }
  else if (c == "genbid") { i = n > 2 ? index(rk, a[3] " ") : 0; split(substr(rk, i), q, " ")
    r = i && rand() < .5 && q[2] != "-" ? q[2] : "pass" }
  else if (c == "gencall") r = substr("CDBS", 1 + int(rand() * 4), 1)
  else if (!index(k, " " c " ")) { e = 1; r = "unknown command" }
  printf "%s%s%s%s\n\n", e ? "?" : "=", id, r == "" ? "" : " ", r; fflush()
  if (f != "") { w = index(r, "\n"); print "> " (e ? "?" : "=") (w ? substr(r, 1, w - 1) : r) >> f; fflush(f) } if (c == "quit") exit }'
