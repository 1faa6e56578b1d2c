#!/usr/bin/env python3
"""langbots.py: bots in every language refd's users write them in pass
refctl checkbot in the sandbox, system-call filter and all.

The example bots (C, Python, sh, Node.js) and tiny random bots in Java,
Perl, Rust and Go (tests/langbots/) are built in a temporary directory
that the bot user can read, then checked with `refctl checkbot -n 1`,
as refd would run them.  A language whose toolchain is missing here is
skipped, and said so.  Prints "N passed, M failed".
"""
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402

HERE = os.path.join(harness.SRC, "tests", "langbots")


def build(lang, tmp):
    """The command of the bot in lang, built in tmp; None to skip."""
    src = os.path.join(tmp, "src")
    if lang == "java":
        if not (shutil.which("javac") and shutil.which("jar") and
                shutil.which("java")):
            return None
        subprocess.run(["javac", "-d", src, os.path.join(HERE, "Bot.java")],
                       check=True)
        jar = os.path.join(tmp, "bot.jar")
        subprocess.run(["jar", "cfe", jar, "Bot", "-C", src, "."],
                       check=True)
        return ["java", "-jar", jar]
    if lang == "perl":
        if not shutil.which("perl"):
            return None
        shutil.copy(os.path.join(HERE, "bot.pl"), tmp)
        return ["perl", os.path.join(tmp, "bot.pl")]
    if lang == "rust":
        if not shutil.which("rustc"):
            return None
        out = os.path.join(tmp, "rbot")
        subprocess.run(["rustc", "-O", "-o", out, os.path.join(HERE,
                        "bot.rs")], check=True, cwd=tmp)
        return [out]
    if lang == "go":
        if not shutil.which("go"):
            return None
        out = os.path.join(tmp, "gobot")
        env = dict(os.environ, GOCACHE=os.path.join(tmp, "cache"),
                   GOPATH=os.path.join(tmp, "gopath"), GO111MODULE="off")
        subprocess.run(["go", "build", "-o", out, os.path.join(HERE,
                        "bot.go")], check=True, cwd=tmp, env=env)
        return [out]
    if lang == "node":
        return ["node", os.path.join(harness.SRC, "bots", "randbot.js")] \
            if shutil.which("node") else None
    return {"c": [os.path.join(harness.BUILD, "bots", "randbot")],
            "heur": [os.path.join(harness.BUILD, "bots", "heurbot")],
            "python": [harness.PY, os.path.join(harness.SRC, "bots",
                                                "randbot.py")],
            "sh": ["sh", os.path.join(harness.SRC, "bots",
                                      "randbot.sh")]}[lang]


def main():
    passed = failed = 0
    for lang in ("c", "heur", "python", "sh", "node", "java", "perl", "rust",
                 "go"):
        tmp = tempfile.mkdtemp(prefix="refd-langbot.")
        os.chmod(tmp, 0o755)
        try:
            cmd = build(lang, tmp)
            for root, dirs, files in os.walk(tmp):
                for n in dirs + files:
                    p = os.path.join(root, n)
                    os.chmod(p, os.stat(p).st_mode | 0o755)
            if cmd is None:
                print("skip %s: no toolchain here" % lang)
                continue
            out = subprocess.run([harness.REFCTL, "checkbot", "-n", "1",
                                  "--"] + cmd, capture_output=True,
                                 text=True, timeout=300)
            last = out.stdout.strip().splitlines()[-1:] or [""]
            if out.returncode == 0 and " 0 problems" in last[0]:
                passed += 1
                print("ok %s: %s" % (lang, last[0]))
            else:
                failed += 1
                print("FAIL %s: %s" % (lang, " ".join(cmd)))
                sys.stdout.write(out.stdout[-1500:] + out.stderr[-500:])
        except subprocess.CalledProcessError as e:
            failed += 1
            print("FAIL %s: building: %s" % (lang, e))
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    print("%d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
