#!/usr/bin/env python3
"""settings.py: the one table of match settings, from every entry point.

The table is read from refd(8) (MATCH SETTINGS), where it is documented
once; each entry point must then agree with it: refd's -m and -s,
refd.conf, match_start over refctl and a tournament file each take every
valid value of each setting it carries (the value is seen in the match's
options, or the schedule's settings line), and refuse a value out of the
range and a setting the variant does not use with the same words, which
are derived here from the table, not copied from refd.
Prints "N passed, M failed"; exits 1 if anything failed.
"""
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402

REFD, REFCTL = harness.REFD, harness.REFCTL
# every variant, in libbriscola's order, and those refd referees today
VARIANTS = ["joker3", "classic2", "classic3", "classic4", "classic5",
            "classic6", "briscolone", "chiamata5"]
SEATS = {"joker3": 3, "classic2": 2, "classic3": 3, "classic4": 4,
         "classic5": 5, "classic6": 6, "briscolone": 2, "chiamata5": 5}
SEED = "5e" * 32


def refereed():
    """The variants refd referees today (the others it refuses as it
    parses a tournament), by their seats."""
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "v.tour")
        for v in VARIANTS:
            with open(path, "w") as f:
                f.write("variant %s\nbots a b c d e f\n" % v)
            p = subprocess.run([REFCTL, "tournament", "schedule", path],
                               capture_output=True, text=True, timeout=60)
            if p.returncode == 0:
                out[v] = SEATS[v]
            else:
                print("# %s not refereed: %s" % (v, p.stderr.strip()))
    assert list(out)[:4] == VARIANTS[:4], out
    return out


PLAYED = refereed()


def table():
    """The rows of refd(8)'s MATCH SETTINGS table, by key."""
    text = open(os.path.join(harness.SRC, "man", "refd.8")).read()
    sec = text[text.index(".Sh MATCH SETTINGS"):]
    sec = sec[:sec.index(".El")]
    rows = {}
    for line in sec.splitlines():
        m = re.match(r"\.It Cm (\w+) Ta (.*)$", line)
        if not m:
            continue
        values, dflt, variants, where = [c.strip() for c in
                                         m.group(2).split(" Ta ")]
        if variants == "all":
            vs = list(VARIANTS)
        elif variants.startswith("all but "):
            vs = [v for v in VARIANTS if v not in variants[8:].split(", ")]
        else:
            vs = variants.split(", ")
        assert all(v in VARIANTS for v in vs), variants
        row = {"variants": vs, "default": dflt,
               "where": [] if where == r"\(em" else where.split(", ")}
        rng = re.match(r"(-?\d+) to (\d+)$", values)
        if rng:
            row["min"], row["max"] = int(rng.group(1)), int(rng.group(2))
        elif values == "64 hex digits":
            row["hex"] = True
        else:
            row["choices"] = values.split(", ")
        rows[m.group(1)] = row
    assert len(rows) >= 10, rows
    return rows


def good(row):
    """Valid values of a row: its bounds and default, or every choice."""
    if "min" in row:
        return sorted({row["min"], row["max"], int(row["default"])})
    if "hex" in row:
        return [SEED]
    return row["choices"]


def bad(key, row):
    """(value, the refusal refd must give) out of the row's range."""
    if "min" in row:
        span = "(%d to %d)" % (row["min"], row["max"])
        return [(row["max"] + 1, "%s: too large %s" % (key, span)),
                (row["min"] - 1, "%s: too small %s" % (key, span)),
                ("x1", "%s: invalid %s" % (key, span))]
    if "hex" in row:
        return [("5e" * 31, "%s: 64 hex digits expected" % key)]
    c = row["choices"]
    return [("nope", "%s: %s or %s" % (key, ", ".join(c[:-1]), c[-1]))]


def inapplicable(key, row, variant):
    """The refusal of key for a variant that does not use it."""
    vs = row["variants"]
    only = vs[0] if len(vs) == 1 else ", ".join(vs[:-1]) + " and " + vs[-1]
    return "option %s= does not apply to %s (only to %s)" % (key, variant,
                                                              only)


class Refd(harness.Refd):
    """A refd with remote bots that never come: a match is accepted, shown
    and stopped without a bot process."""

    def __init__(self, tmp, extra=()):
        super().__init__(tempfile.mkdtemp(dir=tmp), extra=extra)
        for i in range(6):
            self.must("bot_add", "r%d" % i, "remote", "token-%d-xxxx" % i)

    def start_with(self, variant, *opts):
        """refctl match --no-wait: (ok, the match's options or the
        refusal)."""
        args = [REFCTL, "-c", self.sock, "match", "--no-wait", "--variant",
                variant]
        for o in opts:
            args += ["--option", o]
        args += ["r%d" % i for i in range(PLAYED[variant])]
        p = subprocess.run(args, capture_output=True, text=True, timeout=60)
        if p.returncode != 0:
            return False, p.stderr.strip()
        mid = re.search(r"(\d+)", p.stdout).group(1)
        show = self.must("match_show", mid)
        self.ctl("match_stop", mid)
        self.must("match_wait", mid)
        return True, re.search(r"^options (.*)$", show, re.M).group(1)


# settings the options text holds only when not at their default
# (refd(8), MATCH SETTINGS): a match's options say notify=eager or nothing
UNWRITTEN = ("notify",)


def value_in(options, key, value):
    return (" %s=%s " % (key, value)) in " " + options + " "


def test_match_start(tmp):
    """match_start takes every valid value of every setting for every
    variant that uses it, and refuses the rest with the table's words."""
    rows = table()
    r = Refd(tmp)
    try:
        for variant in PLAYED:
            for key, row in rows.items():
                if variant not in row["variants"]:
                    v = good(row)[0]
                    ok, text = r.start_with(variant, "%s=%s" % (key, v))
                    assert not ok and text == "refctl: " + \
                        inapplicable(key, row, variant), (variant, key, text)
                    continue
                for v in good(row):
                    ok, text = r.start_with(variant, "%s=%s" % (key, v))
                    assert ok, (variant, key, v, text)
                    assert key == "seed" or value_in(text, key, v) or \
                        (key in UNWRITTEN and v == row["default"]), \
                        (variant, key, v, text)
                for v, want in bad(key, row):
                    ok, text = r.start_with(variant, "%s=%s" % (key, v))
                    assert not ok and text == "refctl: " + want, \
                        (variant, key, v, text)
        ok, text = r.start_with("joker3", "frob=1")
        assert not ok and text == "refctl: unknown option frob", text
    finally:
        r.stop()


def schedule(tmp, variant, line):
    """refctl tournament schedule of a definition with one more line
    (line 3): (ok, the settings line or the refusal)."""
    path = os.path.join(tmp, "t.tour")
    with open(path, "w") as f:
        f.write("variant %s\nbots a b c d e f\n%s\n" % (variant, line))
    p = subprocess.run([REFCTL, "tournament", "schedule", path],
                       capture_output=True, text=True, timeout=60)
    if p.returncode != 0:
        return False, p.stderr.strip().replace("refctl: %s:3: " % path, "")
    return True, re.search(r"^# settings(.*)$", p.stdout, re.M).group(1)


def test_tournament_file(tmp):
    """A tournament file takes each setting but the seed as "option k=v"
    and as "k v", and refuses as match_start does."""
    rows = table()
    for variant in PLAYED:
        for key, row in rows.items():
            if key == "seed":
                continue
            forms = ["option %s=%s", "%s %s"]
            if variant not in row["variants"]:
                for form in forms:
                    ok, text = schedule(tmp, variant,
                                        form % (key, good(row)[0]))
                    assert not ok and text == inapplicable(key, row,
                                                           variant), text
                continue
            for v in good(row):
                for form in forms:
                    ok, text = schedule(tmp, variant, form % (key, v))
                    assert ok and value_in(text, key, v), (key, v, text)
            for v, want in bad(key, row):
                for form in forms:
                    ok, text = schedule(tmp, variant, form % (key, v))
                    assert not ok and text == want, (key, v, text)
    # a tournament's seeds come from its master seed: a match's is refused
    ok, text = schedule(tmp, "classic2", "option seed=" + SEED)
    assert not ok and text == "option seed=: a tournament's seeds come " \
        "from its seed line", text
    # the variant may come after the setting: still refused, on its line
    path = os.path.join(tmp, "late.tour")
    with open(path, "w") as f:
        f.write("option target=5\nbots a b\nvariant classic2\n")
    p = subprocess.run([REFCTL, "tournament", "schedule", path],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 1 and p.stderr.strip() == "refctl: %s:1: %s" % (
        path, inapplicable("target", rows["target"], "classic2")), p.stderr


def refd_fails(args):
    """refd with args must exit 1 at once: its message."""
    p = subprocess.run([REFD, "-D", ":memory:"] + args, capture_output=True,
                       text=True, timeout=30, stdin=subprocess.DEVNULL)
    assert p.returncode == 1, (args, p.returncode, p.stderr)
    return p.stderr.strip()


def test_refd_wide(tmp):
    """refd -m, -s and refd.conf set refd's defaults of the settings the
    table gives them, over the whole range, and refuse as match_start."""
    rows = table()
    flags = {k: w for k, row in rows.items() for w in row["where"]
             if w.startswith("-")}
    inconf = [k for k, row in rows.items() if "refd.conf" in row["where"]]
    assert set(flags.values()) == {"-m", "-s"} and len(inconf) >= 3, rows
    conf = os.path.join(tmp, "refd.conf")
    for pick in ("min", "max", "default"):
        val = {k: rows[k]["default"] if pick == "default" else rows[k][pick]
               for k in inconf}
        with open(conf, "w") as f:
            f.write("".join("%s %s\n" % (k, val[k]) for k in inconf))
        args = []
        for k, flag in flags.items():
            args += [flag, str(val[k])]
        for extra in (["-f", conf], args):
            r = Refd(tmp, extra=extra)
            try:
                ok, options = r.start_with("classic2")
                assert ok, options
                for k in (inconf if extra[0] == "-f" else flags):
                    assert value_in(options, k, val[k]), (k, options)
            finally:
                r.stop()
    for key, row in rows.items():
        wide = "refd.conf" in row["where"]
        if not wide:
            with open(conf, "w") as f:
                f.write("# match settings\n%s %s\n" % (key, good(row)[0]))
            assert refd_fails(["-f", conf]) == "refd: %s:2: %s is a " \
                "match's own setting: give it to match_start or a " \
                "tournament" % (conf, key)
            continue
        for v, want in bad(key, row):
            with open(conf, "w") as f:
                f.write("%s %s\n" % (key, v))
            assert refd_fails(["-f", conf]) == "refd: %s:1: %s" % (conf,
                                                                   want)
            if key in flags:
                assert refd_fails([flags[key], str(v)]) == \
                    "refd: %s: %s" % (flags[key], want)


TESTS = [test_match_start, test_tournament_file, test_refd_wide]


def main():
    tmp = tempfile.mkdtemp(prefix="refd-settings.")
    harness.finish(*harness.run_tests(TESTS, (tmp,)), tmp)


if __name__ == "__main__":
    main()
