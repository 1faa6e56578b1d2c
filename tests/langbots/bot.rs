// bot.rs: a refd bot in Rust that plays a random card (tests/langbots.py).
use std::io::{self, BufRead, Write};
use std::time::{SystemTime, UNIX_EPOCH};

const CMDS: [&str; 21] = ["bid", "called", "deal_end", "deal_start", "draw",
    "genbid", "gencall", "genplay", "joker", "known_command", "list_commands",
    "match_end", "match_start", "name", "partner", "partner_hand", "play",
    "protocol_version", "quit", "trick", "version"];

fn main() {
    let mut seed = SystemTime::now().duration_since(UNIX_EPOCH).unwrap()
        .as_nanos() as u64 | 1;
    let mut rand = move |n: usize| {
        seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17;
        (seed % n as u64) as usize
    };
    let stdin = io::stdin();
    let mut out = io::stdout();
    for line in stdin.lock().lines() {
        let line = match line { Ok(l) => l, Err(_) => break };
        let line = line.split('#').next().unwrap_or("");
        let mut w: Vec<&str> = line.split_whitespace().collect();
        let mut id = "";
        if !w.is_empty() && w[0].chars().all(|c| c.is_ascii_digit()) {
            id = w.remove(0);
        }
        if w.is_empty() { continue; }
        let c = w[0];
        let (ok, r): (bool, String) = match c {
            "protocol_version" => (true, "2".into()),
            "name" => (true, "bot.rs".into()),
            "version" => (true, "1".into()),
            "known_command" => (true, if w.len() > 1 && CMDS.contains(&w[1])
                { "true".into() } else { "false".into() }),
            "list_commands" => (true, CMDS.join("\n")),
            "genplay" if w.len() < 3 => (false, "no cards".into()),
            "genplay" => (true, w[2 + rand(w.len() - 2)].into()),
            "genbid" => (true, "pass".into()),
            "gencall" => (true, ["C", "D", "B", "S"][rand(4)].into()),
            _ if CMDS.contains(&c) => (true, String::new()),
            _ => (false, "unknown command".into()),
        };
        let sep = if r.is_empty() { "" } else { " " };
        write!(out, "{}{}{}{}\n\n", if ok { "=" } else { "?" }, id, sep, r)
            .unwrap();
        out.flush().unwrap();
        if c == "quit" { return; }
    }
}
