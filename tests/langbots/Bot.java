// Bot.java: a refd bot in Java that plays a random card (tests/langbots.py).
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

public class Bot {
	static final List<String> CMDS = Arrays.asList("bid", "called",
	    "deal_end", "deal_start", "draw", "genbid", "gencall", "genplay",
	    "joker", "known_command", "list_commands", "match_end",
	    "match_start", "name", "partner", "partner_hand", "play",
	    "protocol_version", "quit", "trick", "version");

	public static void main(String[] a) throws Exception {
		BufferedReader in = new BufferedReader(
		    new InputStreamReader(System.in, "US-ASCII"));
		Random rng = new Random();
		String line;
		while ((line = in.readLine()) != null) {
			int h = line.indexOf('#');
			if (h >= 0)
				line = line.substring(0, h);
			String[] w = line.trim().split("\\s+");
			int i = 0;
			String id = "";
			if (w.length > 0 && w[0].matches("[0-9]+"))
				id = w[i++];
			if (i >= w.length || w[i].isEmpty())
				continue;
			String c = w[i], r = "";
			boolean ok = true;
			if (c.equals("protocol_version")) r = "2";
			else if (c.equals("name")) r = "Bot.java";
			else if (c.equals("version")) r = "1";
			else if (c.equals("known_command"))
				r = i + 1 < w.length && CMDS.contains(w[i + 1]) ?
				    "true" : "false";
			else if (c.equals("list_commands")) r = String.join("\n", CMDS);
			else if (c.equals("genplay")) {
				if (w.length - i < 3) { ok = false; r = "no cards"; }
				else r = w[i + 2 + rng.nextInt(w.length - i - 2)];
			} else if (c.equals("genbid")) r = "pass";
			else if (c.equals("gencall")) r = "CDBS".substring(rng.nextInt(4)).substring(0, 1);
			else if (!CMDS.contains(c)) { ok = false; r = "unknown command"; }
			System.out.print((ok ? "=" : "?") + id + (r.isEmpty() ? "" : " " + r) + "\n\n");
			System.out.flush();
			if (c.equals("quit"))
				return;
		}
	}
}
