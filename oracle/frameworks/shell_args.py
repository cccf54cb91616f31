"""The oracle's own reading of a launch script (independent of the product's parse/shell.ts): backslash
continuations joined, `NAME=value` and `NAME=( ... )` assignments remembered in order, `$NAME`, `${NAME}` and
`${NAME[@]}` expanded, the words split with shlex. Used by megatron_worker.py (the flags after pretrain_gpt.py)
and verl_worker.py (the key=value overrides after `-m verl.trainer.main_*`). Unknown variables stay `$NAME`.
"""
from __future__ import annotations

import re
import shlex

ASSIGN = re.compile(r"^\s*(?:export\s+|local\s+|declare\s+(?:-[a-zA-Z]+\s+)?)?([A-Za-z_]\w*)=(.*)$")
ARITH = re.compile(r"\$\(\(([^()]{0,200})\)\)")
VAR = re.compile(r"\$\{([A-Za-z_]\w*)(?:\[[@*]\])?(?::-([^}]*))?\}|\$([A-Za-z_]\w*)")


def logical_lines(text: str) -> list[str]:
    out, cur = [], ""
    for raw in text.splitlines():
        line = raw.rstrip()
        if line.lstrip().startswith("#"):
            if cur:
                continue
            out.append("")
            continue
        if line.endswith("\\"):
            cur += line[:-1] + " "
            continue
        out.append(cur + line)
        cur = ""
    if cur:
        out.append(cur)
    return out


def expand(s: str, env: dict[str, str], depth: int = 0) -> str:
    if depth > 8:
        return s

    def sub(m: re.Match) -> str:
        name = m.group(1) or m.group(3)
        if name in env:
            return env[name]
        if m.group(2) is not None:
            return m.group(2)
        return m.group(0)

    t = VAR.sub(sub, s)
    # $(( … )) of literal integers (WORLD_SIZE=$(($GPUS_PER_NODE*$NUM_NODES)) once both are known)
    t = ARITH.sub(lambda m: str(int(eval(m.group(1), {"__builtins__": {}}))) if re.fullmatch(r"[\d\s+*()-]+", m.group(1)) else m.group(0), t)
    return t if t == s else expand(t, env, depth + 1)


def words(line: str) -> list[str]:
    try:
        return shlex.split(line, comments=True)
    except ValueError:
        return line.split()


def commands(text: str):
    """(words, env at that point) for every logical line that is not an assignment."""
    env: dict[str, str] = {}
    lines = logical_lines(text)
    i = 0
    while i < len(lines):
        line = lines[i]
        m = ASSIGN.match(line)
        if m and m.group(2).lstrip().startswith("("):
            body = m.group(2).lstrip()[1:]
            while ")" not in re.sub(r"\$\([^)]*\)", "", body) and i + 1 < len(lines):
                i += 1
                body += " " + lines[i]
            body = body.rsplit(")", 1)[0]
            env[m.group(1)] = " ".join(shlex.quote(w) for w in words(expand(body, env)))
        elif m:
            # a scalar: its words joined, so that an unquoted `$ARGS` splits into them again
            env[m.group(1)] = " ".join(words(expand(m.group(2), env)))
        elif line.strip():
            yield words(expand(line, env)), dict(env)
        i += 1
