"""Globs matched without regexes: every glob that comes from outside (a project's config, a repository's
`.showcause.toml`, a user, a model) is matched here, never by Python's `re` built from its text.

They are read as JavaScript test runners write them (micromatch, picomatch, minimatch), which also covers
pytest-, pyright- and gitignore-style globs (`**/` any directories, `*` and `?` within one segment). Outside
text must not be a denial of service: braces and extglobs are expanded into a bounded set of plain globs, and
each plain glob is matched by a walk over the sets of positions reachable in the path (linear in the path per
token, no backtracking). `+(a|b)` is read as one occurrence of `a` or `b` (what test file names use); `!(…)`,
ranges `{1..3}` and anything beyond the bounds make `compile_glob` return None (the caller falls back to the
runner's defaults).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Glob", "compile_glob", "compile_globs", "has_special"]

_MAX_GLOB = 300          # characters of one glob
_MAX_VARIANTS = 64       # plain globs one glob expands to
_SPECIAL = "*?[]{}()!+@|"

# A token: ("lit", char) | ("any", "") | ("class", "!abc" / "abc", ranges as "a-z") | ("star", "") |
# ("dirs", "") (a `**/` segment: zero or more whole directories) | ("rest", "") (a final `/**`).
_Token = tuple[str, str]


def _close(text: str, start: int) -> int | None:
    """The index of the bracket closing the group opened at `text[start]` (`{` or `(`)."""
    opener = text[start]
    closer = "}" if opener == "{" else ")"
    depth, i = 0, start
    while i < len(text):
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c == opener:
            depth += 1
        elif c == closer:
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return None


def _split(body: str, sep: str) -> list[str]:
    """`body` split at `sep` outside nested groups."""
    parts, depth, cur, i = [], 0, "", 0
    while i < len(body):
        c = body[i]
        if c == "\\" and i + 1 < len(body):
            cur += body[i:i + 2]
            i += 2
            continue
        depth += 1 if c in "{(" else -1 if c in "})" else 0
        if c == sep and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += c
        i += 1
    return [*parts, cur]


def _expand(text: str) -> list[str] | None:  # long: braces and the five extglob forms, one loop
    """Every plain glob `text` stands for, or None for a form it does not read."""
    i = 0
    while i < len(text):
        c = text[i]
        if c == "\\":
            i += 2
            continue
        ext = c in "?@+*!" and i + 1 < len(text) and text[i + 1] == "("
        if c == "{" or ext:
            start = i + 1 if ext else i
            end = _close(text, start)
            if end is None:
                return None
            body = text[start + 1:end]
            if c == "!" and ext:
                return None
            options = _split(body, "|" if ext else ",")
            if not ext and len(options) == 1:
                if ".." in body:
                    return None
                options = ["\\{" + body + "\\}"]   # `{a}` is literal
            if ext and c in "?*":
                options = ["", *options]
            head, tail = text[:i], text[end + 1:]
            out: list[str] = []
            for option in options:
                rest = _expand(option + tail) if option or tail else [""]
                if rest is None:
                    return None
                out += [head + r for r in rest]
                if len(out) > _MAX_VARIANTS:
                    return None
            return out
        i += 1
    return [text]


def _tokens(glob: str) -> list[_Token] | None:  # long: one tokenizer for every plain glob form
    out: list[_Token] = []
    i = 0
    while i < len(glob):
        c = glob[i]
        at_segment = i == 0 or glob[i - 1] == "/"
        if glob.startswith("**", i) and at_segment and (i + 2 == len(glob) or glob[i + 2] == "/"):
            if i + 2 == len(glob):
                if out and out[-1] == ("lit", "/"):
                    out[-1] = ("rest", "")
                else:
                    out.append(("dirs", ""))
                    out.append(("star", ""))
                i += 2
            else:
                out.append(("dirs", ""))
                i += 3
        elif c == "*":
            while i < len(glob) and glob[i] == "*":
                i += 1
            out.append(("star", ""))
        elif c == "?":
            out.append(("any", ""))
            i += 1
        elif c == "[":
            end = glob.find("]", i + 2)
            if end < 0:
                return None
            body = glob[i + 1:end]
            if body[:1] == "^":
                body = "!" + body[1:]
            out.append(("class", body))
            i = end + 1
        elif c == "\\" and i + 1 < len(glob):
            out.append(("lit", glob[i + 1]))
            i += 2
        else:
            out.append(("lit", c))
            i += 1
    return out


def _in_class(body: str, ch: str) -> bool:
    negate = body.startswith("!")
    chars = body[1:] if negate else body
    hit, i = False, 0
    while i < len(chars):
        if i + 2 < len(chars) and chars[i + 1] == "-":
            hit = hit or chars[i] <= ch <= chars[i + 2]
            i += 3
        else:
            hit = hit or chars[i] == ch
            i += 1
    return hit != negate and ch != "/"


def _step(token: _Token, states: set[int], path: str) -> set[int]:
    kind, arg = token
    n = len(path)
    if kind == "lit":
        return {p + 1 for p in states if p < n and path[p] == arg}
    if kind == "any":
        return {p + 1 for p in states if p < n and path[p] != "/"}
    if kind == "class":
        return {p + 1 for p in states if p < n and _in_class(arg, path[p])}
    if kind == "dirs":       # zero or more directories: any later position just after a "/"
        low = min(states)
        return states | {q for q in range(low + 1, n + 1) if path[q - 1] == "/"}
    if kind == "rest":       # a final "/**": nothing more, or "/" and anything
        return {n} if any(p == n or path[p] == "/" for p in states) else set()
    out: set[int] = set()    # star: any run of characters within one segment
    covered = -1
    for p in sorted(states):
        q = max(p, covered)
        out.add(q)
        while q < n and path[q] != "/":
            q += 1
            out.add(q)
        covered = q
    return out


def _match(tokens: list[_Token], path: str) -> bool:
    states = {0}
    for token in tokens:
        states = _step(token, states, path)
        if not states:
            return False
    return len(path) in states


@dataclass(frozen=True)
class Glob:
    text: str
    variants: tuple[tuple[_Token, ...], ...]

    def match(self, path: str) -> bool:
        return any(_match(list(v), path) for v in self.variants)


def compile_glob(text: str) -> Glob | None:
    """The glob, or None when it is too long, expands too far, or uses a form this module does not read."""
    if not isinstance(text, str) or not text or len(text) > _MAX_GLOB:
        return None
    clean = text.removeprefix("./")
    plain = _expand(clean)
    if plain is None:
        return None
    variants = []
    for glob in plain:
        tokens = _tokens(glob)
        if tokens is None:
            return None
        variants.append(tuple(tokens))
    return Glob(text, tuple(variants))


def compile_globs(texts: object) -> tuple[Glob, ...] | None:
    """A config's list of globs (a string counts as one); None when any of them cannot be read."""
    items = [texts] if isinstance(texts, str) else texts
    if not isinstance(items, list) or not items or len(items) > 50:
        return None
    found = [compile_glob(t) if isinstance(t, str) else None for t in items]
    return None if any(g is None for g in found) else tuple(g for g in found if g is not None)


def has_special(path: str) -> bool:
    """Whether a path holds a character a glob reads as syntax (it cannot be written as a literal glob)."""
    return any(c in _SPECIAL for c in path)
