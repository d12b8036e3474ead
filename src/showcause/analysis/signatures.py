"""Function signatures read with tree-sitter, and whether a call's arguments fit one.

A signature is reduced to its :class:`Shape`: what a call must and may pass. Python: positional
parameters (required until the first default), positional-only ones (`/`), `*args`, keyword-only ones
(required or not) and `**kwargs`. JavaScript/TypeScript: positional parameters only; one with a default,
a destructured one, a TS `x?` and one a JSDoc block right above marks `[x]` are optional; a rest
parameter, or `arguments` read in the body, lifts the maximum.

:func:`definitions` lists module-level functions and methods of module-level classes whose signature
callers can rely on: Python functions with a decorator other than staticmethod, classmethod,
(functools.)cache / lru_cache or override are left out (a decorator may change the signature), and so
are dunder methods and JS getters, setters and constructors.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, replace

from tree_sitter import Node

__all__ = ["Definition", "Key", "Shape", "call_arguments", "definitions", "misfit", "receiver_shape"]

_KEEPS_SIGNATURE = frozenset({"staticmethod", "classmethod", "cache", "lru_cache", "functools.cache",
                              "functools.lru_cache", "override", "typing.override"})
_JSDOC_PARAM = re.compile(r"@param\b\s*")
_JSDOC_OPTIONAL = re.compile(r"\s*\[\s*([A-Za-z_$][\w$]*)")
_BRACE = re.compile(r"[{}]")
Key = tuple[str | None, str]   # (class of a method or None, name)


@dataclass(frozen=True)
class Shape:
    """A parameter list as a call sees it (a bound `self`/`cls` already dropped)."""

    language: str                        # "python" | "javascript" (TypeScript included)
    positional: tuple[str, ...]          # positional parameters in order
    required: int                        # arguments needed so that no required positional one is missing
    positional_only: int = 0             # leading ones that cannot be passed by keyword (Python `/`)
    rest: str | None = None              # *args / ...rest / "arguments": no maximum
    keyword_only: tuple[str, ...] = ()   # Python keyword-only parameters
    required_keywords: tuple[str, ...] = ()
    var_keyword: str | None = None       # Python **kwargs

    def bound(self) -> Shape:
        """The shape once the first positional parameter is bound (`self`, `cls`)."""
        if not self.positional:
            return self
        return replace(self, positional=self.positional[1:], required=max(0, self.required - 1),
                       positional_only=max(0, self.positional_only - 1))

    def __str__(self) -> str:
        items = [p if i < self.required else f"{p}=…" for i, p in enumerate(self.positional)]
        if self.language != "python":
            return "(" + ", ".join(items + ([f"...{self.rest}"] if self.rest else [])) + ")"
        if self.positional_only:
            items.insert(self.positional_only, "/")
        if self.rest or self.keyword_only:
            items.append(f"*{self.rest or ''}")
        items += [k if k in self.required_keywords else f"{k}=…" for k in self.keyword_only]
        return "(" + ", ".join(items + ([f"**{self.var_keyword}"] if self.var_keyword else [])) + ")"


@dataclass(frozen=True)
class Definition:
    """A function or method definition: its name line (1-based) and its shape."""

    name: str
    owner: str | None    # class of a method
    line: int
    shape: Shape
    binding: str         # function | method | classmethod | staticmethod


def _text(node: Node | None) -> str:
    return (node.text or b"").decode("utf-8", "replace") if node is not None else ""


def _py_shape(params: Node) -> Shape | None:
    pos: list[str] = []
    kwonly: list[str] = []
    req_kw: list[str] = []
    required = pos_only = 0
    rest = varkw = None
    star = False
    for p in params.named_children:
        inner = p.named_children[0] if p.type == "typed_parameter" and p.named_children else p
        if p.type == "comment":
            continue
        if p.type == "positional_separator":
            pos_only = len(pos)
        elif p.type == "keyword_separator":
            star = True
        elif inner.type == "list_splat_pattern":
            rest, star = _text(inner).lstrip("*"), True
        elif inner.type == "dictionary_splat_pattern":
            varkw = _text(inner).lstrip("*")
        else:
            has_default = p.type in ("default_parameter", "typed_default_parameter")
            target = p.child_by_field_name("name") if has_default else inner
            if target is None or target.type != "identifier":
                return None
            name = _text(target)
            (kwonly if star else pos).append(name)
            if star and not has_default:
                req_kw.append(name)
            elif not star and not has_default:
                required = len(pos)
    return Shape("python", tuple(pos), required, pos_only, rest, tuple(kwonly), tuple(req_kw), varkw)


def _js_shape(params: Node | None, optional: set[str], body: Node | None) -> Shape | None:
    if params is None:
        return None
    names: list[str] = []
    required, rest = 0, None
    for p in [params] if params.type == "identifier" else params.named_children:
        opt = False
        if p.type in ("required_parameter", "optional_parameter"):
            pattern = p.child_by_field_name("pattern")
            if pattern is None or pattern.type == "this":
                continue
            opt = p.type == "optional_parameter" or p.child_by_field_name("value") is not None
            p = pattern
        if p.type == "comment":
            continue
        if p.type == "rest_pattern":
            rest = _text(p).lstrip(".") or "rest"
            continue
        if p.type == "identifier":
            name = _text(p)
        elif p.type in ("assignment_pattern", "object_pattern", "array_pattern"):
            name, opt = _text(p.child_by_field_name("left")) or "{…}", True
        else:
            return None
        names.append(name)
        if not opt and name not in optional:
            required = len(names)
    if rest is None and body is not None and _reads_arguments(body):
        rest = "arguments"
    return Shape("javascript", tuple(names), required, rest=rest)


def _reads_arguments(body: Node) -> bool:
    stack = [body]
    while stack:
        node = stack.pop()
        if node.type == "identifier" and node.text == b"arguments":
            return True
        stack.extend(node.children)
    return False


def _closing_braces(text: str) -> dict[int, int]:
    """Where each `{` of `text` is closed: one pass, however the braces nest (or fail to)."""
    out: dict[int, int] = {}
    opened: list[int] = []
    for m in _BRACE.finditer(text):
        if m.group() == "{":
            opened.append(m.start())
        elif opened:
            out[opened.pop()] = m.start()
    return out


def _jsdoc_optional(lead: Node) -> set[str]:
    """Parameters a JSDoc block right above the definition marks optional (`@param {T} [name]`).

    Linear in the comment: a hostile block of `@param {` repeated once cost a scan to its end per tag."""
    prev = lead.prev_named_sibling
    if prev is None or prev.type != "comment" or prev.end_point.row + 1 < lead.start_point.row:
        return set()
    text, out = _text(prev), set()
    closing = _closing_braces(text)
    for m in _JSDOC_PARAM.finditer(text):
        at = m.end()
        if text.startswith("{", at):   # skip a balanced {type} first; one never closed leaves nothing
            at = closing.get(at, len(text) - 1) + 1
        found = _JSDOC_OPTIONAL.match(text, at)
        if found:
            out.add(found.group(1))
    return out


def _undecorate(node: Node) -> tuple[Node, list[str]]:
    if node.type != "decorated_definition":
        return node, []
    decorators = [_text(d.named_children[0]).split("(")[0] for d in node.named_children
                  if d.type == "decorator" and d.named_children]
    return node.child_by_field_name("definition") or node, decorators


def _py_def(node: Node, decorators: list[str], owner: str | None) -> tuple[Key, Definition | None]:
    name = _text(node.child_by_field_name("name"))
    params = node.child_by_field_name("parameters")
    shape = _py_shape(params) if params is not None else None
    kind = "function" if owner is None else next((d for d in ("staticmethod", "classmethod") if d in decorators),
                                                 "method")
    dunder = owner is not None and name.startswith("__") and name.endswith("__")
    if shape is None or dunder or any(d not in _KEEPS_SIGNATURE for d in decorators):
        return (owner, name), None
    return (owner, name), Definition(name, owner, _line(node), shape, kind)


def _line(node: Node) -> int:
    name = node.child_by_field_name("name")
    return (name or node).start_point.row + 1


def _js_defs(stmt: Node) -> Iterator[tuple[Key, Definition | None]]:
    node = stmt.child_by_field_name("declaration") if stmt.type == "export_statement" else stmt
    if node is None:
        return
    if node.type in ("function_declaration", "generator_function_declaration"):
        shape = _js_shape(node.child_by_field_name("parameters"), _jsdoc_optional(stmt),
                          node.child_by_field_name("body"))
        name = _text(node.child_by_field_name("name"))
        yield (None, name), Definition(name, None, _line(node), shape, "function") if shape else None
    elif node.type in ("lexical_declaration", "variable_declaration"):
        for decl in node.named_children:
            value = decl.child_by_field_name("value")
            target = decl.child_by_field_name("name")
            if value is None or target is None or target.type != "identifier" or value.type not in (
                    "arrow_function", "function_expression", "generator_function"):
                continue
            params = value.child_by_field_name("parameters") or value.child_by_field_name("parameter")
            shape = _js_shape(params, _jsdoc_optional(stmt), value.child_by_field_name("body"))
            name = _text(target)
            yield (None, name), Definition(name, None, _line(decl), shape, "function") if shape else None
    elif node.type in ("class_declaration", "abstract_class_declaration"):
        owner, body = _text(node.child_by_field_name("name")), node.child_by_field_name("body")
        for m in body.named_children if body is not None else ():
            name_node = m.child_by_field_name("name")
            if m.type != "method_definition" or name_node is None:
                continue
            name = _text(name_node)
            shape = _js_shape(m.child_by_field_name("parameters"), _jsdoc_optional(m), m.child_by_field_name("body"))
            plain = name_node.type in ("property_identifier", "private_property_identifier") and name != "constructor"
            ok = plain and not any(c.type in ("get", "set") for c in m.children)
            yield (owner, name), Definition(name, owner, _line(m), shape, "method") if shape and ok else None


def definitions(root: Node, family: str) -> dict[Key, Definition | None]:
    """Module-level functions and methods of module-level classes; a name defined twice maps to None."""
    found: list[tuple[Key, Definition | None]] = []
    for stmt in root.named_children:
        if family != "python":
            found.extend(_js_defs(stmt))
            continue
        node, decorators = _undecorate(stmt)
        if node.type == "function_definition":
            found.append(_py_def(node, decorators, None))
        elif node.type == "class_definition" and (body := node.child_by_field_name("body")) is not None:
            owner = _text(node.child_by_field_name("name"))
            for member in body.named_children:
                inner, decos = _undecorate(member)
                if inner.type == "function_definition":
                    found.append(_py_def(inner, decos, owner))
    out: dict[Key, Definition | None] = {}
    for key, d in found:
        out[key] = None if key in out else d
    return out


def call_arguments(call: Node) -> tuple[int, list[str]] | None:
    """(positional count, keyword names) of a call, None when they cannot be counted exactly."""
    args = call.child_by_field_name("arguments")
    if args is not None and args.type == "generator_expression":
        return 1, []
    if args is None or args.type not in ("argument_list", "arguments"):
        return None
    npos, keywords = 0, []
    for a in args.named_children:
        if a.type in ("list_splat", "dictionary_splat", "spread_element"):
            return None
        if a.type == "keyword_argument":
            keywords.append(_text(a.child_by_field_name("name")))
        elif a.type != "comment":
            npos += 1
    return npos, keywords


def misfit(shape: Shape, fn: str, npos: int, keywords: list[str]) -> str | None:
    """Why a call with these arguments does not fit `shape`, None when it does."""
    js = shape.language != "python"
    what = "argument" if js else "positional argument"
    passes = f"passes {npos} {what}{'' if npos == 1 else 's'}"
    if shape.rest is None and npos > len(shape.positional):
        extra = " (the extra ones are ignored)" if js else ""
        return f"{passes}, but `{fn}` now takes at most {len(shape.positional)}{extra}"
    filled = set(shape.positional[:npos])
    for k in keywords:
        if k in shape.positional[shape.positional_only:] or k in shape.keyword_only:
            if k in filled:
                return f"passes `{k}` both by position and by keyword to `{fn}`"
            filled.add(k)
        elif shape.var_keyword is None and k in shape.positional:
            return f"passes `{k}` by keyword, but it is now positional-only in `{fn}`"
        elif shape.var_keyword is None:
            return f"passes keyword `{k}`, which `{fn}` no longer accepts"
    missing = [p for p in shape.positional[:shape.required] if p not in filled]
    missing += [k for k in shape.required_keywords if k not in filled]
    names = ", ".join(f"`{m}`" for m in missing)
    if not missing:
        return None
    if js:
        return f"{passes}, but `{fn}` now expects {shape.required} ({names} would be undefined)"
    return f"does not pass {names}, which `{fn}` now requires"


def receiver_shape(d: Definition, receiver: str) -> Shape | None:
    """The shape a `receiver.method(...)` call sees, None when that receiver is not resolved."""
    if d.shape.language != "python":
        return d.shape if receiver == "this" else None
    if d.binding == "staticmethod" and receiver in ("self", "cls"):
        return d.shape
    if (d.binding == "classmethod" and receiver in ("self", "cls")) or (d.binding == "method" and receiver == "self"):
        return d.shape.bound()
    return None
