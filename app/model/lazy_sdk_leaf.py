"""Defer a leaf module's SDK-internal imports that only its functions use.

app/model/lazy_sdk.py makes the SDK's package `__init__` files lazy; what is left are leaf modules
that import, at module level, names they use only when one of their functions runs. The big one:
`anthropic._base_client` imports `finish_api_call_span` from `lib._tracing`, whose modules import
about 500 beta types (`MessageCreateParamsBase | BetaMessageCreateParamsBase` in
`lib/_tracing/_utils.py`), all for OpenTelemetry spans that lathe never records. Those imports
cost more CPU than the rest of the client.

The rewrite, per module, from its source (never from other modules):
- a candidate is a name bound by a top-level relative `from .x import name` (inside the SDK);
- it is deferred when every read of it is inside a function or lambda body, none is in an
  annotation or a string (either may be evaluated against the module's globals, e.g. by
  `typing.get_type_hints`), it is bound nowhere else and its name is not private-mangled;
- a deferred name's reads become `__lathe_deferred__.name`: an object whose attribute is resolved,
  on first read, by the import the statement would have done (then stored in the module too), so
  each later read is one attribute lookup;
- the module's `__getattr__` resolves it for other modules (`from m import name`).
A module that defines `__getattr__`, reads its own namespace (`globals()`, `eval`, `exec`...) or
has nothing to defer runs unchanged. The result is cached beside the bytecode under its own suffix:
the `.pyc` files stay the SDK's own, so an eager interpreter sharing the folder is unaffected.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import re
from collections.abc import Iterator
from types import CodeType, ModuleType
from typing import Any

DEFERRED = "__lathe_deferred__"
_NAMESPACE_READERS = frozenset({"globals", "locals", "vars", "eval", "exec", "__import__"})
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_TYPE_TEXT = re.compile(r"[\w\s.,|\[\]'\"()=]{1,300}")


def _annotations(node: ast.AST) -> Iterator[ast.expr]:
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        args = node.args
        for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]:
            if arg is not None and arg.annotation is not None:
                yield arg.annotation
        if node.returns is not None:
            yield node.returns
    elif isinstance(node, ast.AnnAssign):
        yield node.annotation


class _Uses(ast.NodeVisitor):
    """Where each name is read: `early` (when the module or a class body runs, in an annotation
    or a string) or `late` (inside a function body); and every name bound anywhere."""

    def __init__(self, lazy_annotations: bool) -> None:
        # With `from __future__ import annotations` a function's annotations are strings that
        # only an explicit get_type_hints(function) would evaluate; the SDK never does that to
        # its own functions (a class's annotations, read by pydantic and TypedDict, stay early).
        self.lazy_annotations = lazy_annotations
        self.early: set[str] = set()
        self.late: set[str] = set()
        self.annotated: set[str] = set()  # read only in functions' (string) annotations
        self.bound: dict[str, int] = {}
        self.reads_namespace = False
        self._depth = 0  # function bodies we are inside
        self._class_body = False  # directly in a class body

    def _bind(self, name: str) -> None:
        self.bound[name] = self.bound.get(name, 0) + 1

    def visit_Name(self, node: ast.Name) -> None:
        if isinstance(node.ctx, ast.Load):
            (self.late if self._depth else self.early).add(node.id)
            if node.id in _NAMESPACE_READERS:
                self.reads_namespace = True
        else:
            self._bind(node.id)

    def visit_Constant(self, node: ast.Constant) -> None:
        # A string that could be a forward reference (`cast("X", v)`, `TypeVar(bound="X")`)
        # may be evaluated against the module's globals; a docstring or message is not one.
        if isinstance(node.value, str) and _TYPE_TEXT.fullmatch(node.value):
            self.early.update(_IDENTIFIER.findall(node.value))

    def visit_alias(self, node: ast.alias) -> None:
        self._bind(node.asname or node.name.partition(".")[0])

    def visit_Global(self, node: ast.Global) -> None:
        for name in node.names:
            self._bind(name)

    def visit_Nonlocal(self, node: ast.Nonlocal) -> None:
        for name in node.names:
            self._bind(name)

    def visit_MatchAs(self, node: ast.MatchAs) -> None:
        if node.name:
            self._bind(node.name)
        self.generic_visit(node)

    def visit_MatchStar(self, node: ast.MatchStar) -> None:
        if node.name:
            self._bind(node.name)

    def visit_MatchMapping(self, node: ast.MatchMapping) -> None:
        if node.rest:
            self._bind(node.rest)
        self.generic_visit(node)

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        if node.name:
            self._bind(node.name)
        self.generic_visit(node)

    def _early(self, nodes: list[ast.expr]) -> None:
        depth, self._depth = self._depth, 0
        for n in nodes:
            self.visit(n)
        self._depth = depth

    def _function(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> None:
        args = node.args
        # Decorators and defaults run where the def runs (at import, for a top-level def).
        outer: list[ast.expr] = [*args.defaults, *(d for d in args.kw_defaults if d is not None)]
        if not isinstance(node, ast.Lambda):
            self._bind(node.name)
            outer += node.decorator_list
            if self.lazy_annotations:
                for annotation in _annotations(node):
                    self.annotated.update(
                        n.id for n in ast.walk(annotation) if isinstance(n, ast.Name)
                    )
            else:
                self._early(list(_annotations(node)))
        for n in outer:
            self.visit(n)
        for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]:
            if arg is not None:
                self._bind(arg.arg)
        self._depth += 1
        in_class, self._class_body = self._class_body, False
        for stmt in [node.body] if isinstance(node, ast.Lambda) else node.body:
            self.visit(stmt)
        self._depth -= 1
        self._class_body = in_class

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        self._function(node)

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> None:
        self._function(node)

    def visit_Lambda(self, node: ast.Lambda) -> None:
        self._function(node)

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self._bind(node.name)
        # Bases, keywords and decorators run where the class statement runs; so does the body,
        # whose methods are functions like any other.
        for n in [*node.bases, *(k.value for k in node.keywords), *node.decorator_list]:
            self.visit(n)
        in_class, self._class_body = self._class_body, True
        for stmt in node.body:
            self.visit(stmt)
        self._class_body = in_class

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        # A local variable's annotation is never evaluated; a module's or a class's may be.
        if self._depth == 0 or self._class_body:
            self._early([node.annotation])
        self.visit(node.target)
        if node.value is not None:
            self.visit(node.value)


class _Rewrite(ast.NodeTransformer):
    """Reads of deferred names inside function bodies become `__lathe_deferred__.name`."""

    def __init__(self, deferred: set[str]) -> None:
        self.deferred = deferred

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if isinstance(node.ctx, ast.Load) and node.id in self.deferred:
            holder = ast.copy_location(ast.Name(DEFERRED, ast.Load()), node)
            return ast.copy_location(ast.Attribute(holder, node.id, ast.Load()), node)
        return node


_ALIAS_NODES = (
    ast.Name,
    ast.Attribute,
    ast.Subscript,
    ast.BinOp,
    ast.BitOr,
    ast.Tuple,
    ast.List,
    ast.Constant,
    ast.Load,
    ast.Slice,
)


def _alias_target(node: ast.stmt) -> str | None:
    """`X = A | B` or `X: TypeAlias = A[B]`: a type alias made only of names, attributes,
    subscripts and unions (no call, so evaluating it later has no other effect)."""
    value: ast.expr | None
    if isinstance(node, ast.Assign) and len(node.targets) == 1:
        target, value = node.targets[0], node.value
    elif isinstance(node, ast.AnnAssign):
        target, value = node.target, node.value
    else:
        return None
    if not isinstance(target, ast.Name) or value is None or target.id.startswith("__"):
        return None
    if isinstance(value, ast.BinOp) and not isinstance(value.op, ast.BitOr):
        return None
    if not all(isinstance(n, _ALIAS_NODES) for n in ast.walk(value)):
        return None
    return target.id


def _future_annotations(tree: ast.Module) -> bool:
    return any(
        isinstance(n, ast.ImportFrom)
        and n.module == "__future__"
        and any(a.name == "annotations" for a in n.names)
        for n in tree.body
    )


def plan(source: bytes, fullname: str, filename: str) -> tuple[CodeType, dict[str, Any]] | None:
    """The module's code with its deferrable imports and type aliases taken out, and what each
    deferred name is: {name: (module, attribute)} for an import, {name: (code, reads)} for an
    alias. None when nothing is deferred (the module runs as written)."""
    tree = ast.parse(source, filename)
    package = fullname.rpartition(".")[0]
    candidates: dict[str, tuple[str, str]] = {}
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.level >= 1:
            base = importlib.util.resolve_name("." * node.level + (node.module or ""), package)
            for alias in node.names:
                if alias.name != "*":
                    candidates[alias.asname or alias.name] = (base, alias.name)
    if not candidates:
        return None
    lazy_annotations = _future_annotations(tree)
    per_statement: list[tuple[ast.stmt, _Uses]] = []
    bound: dict[str, int] = {}
    for node in tree.body:
        uses = _Uses(lazy_annotations)
        uses.visit(node)
        if uses.reads_namespace:
            return None
        if isinstance(node, ast.Assign) and _is_all(node):
            uses.early.clear()  # `from m import *` reads `__all__`'s names through __getattr__
        per_statement.append((node, uses))
        for name, count in uses.bound.items():
            bound[name] = bound.get(name, 0) + count
    if bound.get("__getattr__") or DEFERRED in bound:
        return None
    aliases: dict[str, ast.stmt] = {}
    for node, _ in per_statement:
        target = _alias_target(node)
        if target is not None and bound.get(target) == 1:
            aliases[target] = node
    while True:  # an alias read early is evaluated as written, and so are the names it reads
        early: set[str] = set()
        late: set[str] = set()
        for node, uses in per_statement:
            late |= uses.late | uses.annotated
            target = _alias_target(node)
            (late if target is not None and aliases.get(target) is node else early).update(
                uses.early
            )
        imports = {
            name
            for name in candidates
            if name in late
            and name not in early
            and bound.get(name) == 1
            and not name.startswith("__")
        }
        keep = {
            name for name, node in aliases.items() if name not in early and _reads(node) & imports
        }
        if keep == aliases.keys():
            break
        aliases = {name: aliases[name] for name in keep}
    if not imports:
        return None
    deferred: dict[str, Any] = {name: candidates[name] for name in sorted(imports)}
    for name, node in sorted(aliases.items()):
        value = getattr(node, "value", None)
        assert isinstance(value, ast.expr)
        expr = compile(ast.Expression(value), filename, "eval", dont_inherit=True)
        deferred[name] = (expr, tuple(sorted(_reads(node) & imports)))
    body: list[ast.stmt] = []
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.level >= 1:
            kept = [a for a in node.names if (a.asname or a.name) not in imports]
            if not kept:
                continue
            node.names = kept
        elif any(node is alias for alias in aliases.values()):
            continue
        body.append(node)
    tree.body = body or [ast.Pass()]
    tree = _Rewrite(set(deferred)).visit(tree)
    ast.fix_missing_locations(tree)
    return compile(tree, filename, "exec", dont_inherit=True), deferred


def _is_all(node: ast.Assign) -> bool:
    return any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets)


def _reads(node: ast.stmt) -> set[str]:
    value = getattr(node, "value", None)
    if value is None:
        return set()
    return {n.id for n in ast.walk(value) if isinstance(n, ast.Name)}


class Deferred:
    """The module's deferred names, each resolved on first read: an import as its statement would
    have done it, an alias by evaluating it (after the deferred names it reads)."""

    def __init__(self, namespace: dict[str, Any], names: dict[str, Any]) -> None:
        object.__setattr__(self, "_namespace", namespace)
        object.__setattr__(self, "_names", names)

    def __getattr__(self, name: str) -> Any:
        names: dict[str, Any] = object.__getattribute__(self, "_names")
        namespace: dict[str, Any] = object.__getattribute__(self, "_namespace")
        if name not in names:
            raise AttributeError(name)
        first, second = names[name]
        if isinstance(first, CodeType):
            for needed in second:
                getattr(self, needed)
            value = eval(first, namespace)
        else:
            source = importlib.import_module(first)
            try:
                value = getattr(source, second)
            except AttributeError:  # `from .pkg import submodule`, as the import statement does
                value = importlib.import_module(f"{first}.{second}")
        object.__setattr__(self, name, value)
        namespace[name] = value
        return value


def install(module: ModuleType, names: dict[str, Any]) -> None:
    """Give the module its resolver before its code runs."""
    namespace = module.__dict__
    deferred = Deferred(namespace, names)
    namespace[DEFERRED] = deferred
    modname = module.__name__

    def __getattr__(attr: str) -> Any:
        if attr in names:
            return getattr(deferred, attr)
        raise AttributeError(f"module {modname!r} has no attribute {attr!r}")

    namespace["__getattr__"] = __getattr__
