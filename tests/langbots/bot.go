// bot.go: a refd bot in Go that plays a random card (tests/langbots.py).
package main

import (
	"bufio"
	"fmt"
	"math/rand"
	"os"
	"strings"
)

var cmds = []string{"bid", "called", "deal_end", "deal_start", "draw",
	"genbid", "gencall", "genplay", "joker", "known_command",
	"list_commands", "match_end", "match_start", "name", "partner",
	"partner_hand", "play", "protocol_version", "quit", "trick", "version"}

func known(c string) bool {
	for _, k := range cmds {
		if k == c {
			return true
		}
	}
	return false
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	out := bufio.NewWriter(os.Stdout)
	for in.Scan() {
		line := strings.SplitN(in.Text(), "#", 2)[0]
		w := strings.Fields(line)
		id := ""
		if len(w) > 0 && strings.Trim(w[0], "0123456789") == "" {
			id, w = w[0], w[1:]
		}
		if len(w) == 0 {
			continue
		}
		c, r, ok := w[0], "", true
		switch {
		case c == "protocol_version":
			r = "2"
		case c == "name":
			r = "bot.go"
		case c == "version":
			r = "1"
		case c == "known_command":
			r = "false"
			if len(w) > 1 && known(w[1]) {
				r = "true"
			}
		case c == "list_commands":
			r = strings.Join(cmds, "\n")
		case c == "genplay" && len(w) < 3:
			ok, r = false, "no cards"
		case c == "genplay":
			r = w[2+rand.Intn(len(w)-2)]
		case c == "genbid":
			r = "pass"
		case c == "gencall":
			r = string("CDBS"[rand.Intn(4)])
		case !known(c):
			ok, r = false, "unknown command"
		}
		mark := "="
		if !ok {
			mark = "?"
		}
		if r != "" {
			r = " " + r
		}
		fmt.Fprintf(out, "%s%s%s\n\n", mark, id, r)
		out.Flush()
		if c == "quit" {
			return
		}
	}
}
