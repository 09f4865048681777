"""Import the `anthropic` SDK without running its 3,000-module package initialisers up front.

`import anthropic` costs about a second with bytecode cached: its package `__init__` files re-export
every type and resource of the whole API (1,935 modules under `anthropic.types.beta` alone), and
lathe needs a few dozen of them for a streamed `messages.create`. The SDK's code is unchanged: this
finder only changes how its package `__init__` files run. Their relative imports
(`from .x import Y as Y`, also `from .x import *` when `x`'s names can be read from its source)
become names resolved on first access (PEP 562 module `__getattr__`); every other statement runs as
written, after the lazy names it reads are resolved. A leaf module (`anthropic._client`,
`anthropic.types.message`) imports exactly as before, so what it pulls in is what it uses.

Leaf modules that import, at module level, names only their functions use (the SDK's tracing
modules and their ~500 beta types) have those imports deferred to the first use:
app/model/lazy_sdk_leaf.py; `LATHE_EAGER_SDK_LEAVES=1` runs the leaves as written.

Fail safe: an `__init__` with anything this does not understand (a name bound twice, `locals()`
outside the SDK's one known idiom, a star import whose names cannot be read statically) is run as
it is, eagerly. `LATHE_EAGER_SDK=1` turns the finder off altogether.
"""

from __future__ import annotations

import ast
import functools
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import marshal
import os
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from types import CodeType, ModuleType
from typing import Any

from app.model import lazy_sdk_leaf

ROOT_PACKAGE = "anthropic"
_INSTALL_LOCK = threading.Lock()


class _Eager(Exception):
    """The module's shape is not one this understands: run it as written."""


class _Lazy:
    """One name of a package bound on first access: `attr` of module `module` (a submodule
    when `attr` is None), or the value of a deferred simple assignment `expr`."""

    __slots__ = ("attr", "expr", "module", "reads")

    def __init__(
        self,
        module: str,
        attr: str | None,
        expr: CodeType | None = None,
        reads: frozenset[str] = frozenset(),
    ) -> None:
        self.module = module
        self.attr = attr
        self.expr = expr
        self.reads = reads


def _resolve_relative(node: ast.ImportFrom, package: str) -> str:
    return importlib.util.resolve_name("." * node.level + (node.module or ""), package)


def _source_of(fullname: str) -> Path | None:
    """The source file of a module inside the SDK, found on disk without importing anything."""
    root = sys.modules.get(ROOT_PACKAGE)
    paths = list(getattr(root, "__path__", ()) or ())
    if not paths:
        spec = importlib.machinery.PathFinder.find_spec(ROOT_PACKAGE)
        paths = list(spec.submodule_search_locations or ()) if spec else []
    parts = fullname.split(".")[1:]
    for base in paths:
        here = Path(base).joinpath(*parts)
        for candidate in (here / "__init__.py", here.with_suffix(".py")):
            if candidate.is_file():
                return candidate
    return None


def _star_names(fullname: str, depth: int = 0) -> list[str]:
    """The names `from fullname import *` binds, read from the source: its `__all__` when that is
    a literal, else every public top-level binding. _Eager when they cannot be known."""
    path = _source_of(fullname)
    if path is None or depth > 4:
        raise _Eager(f"no source for {fullname}")
    tree = ast.parse(path.read_bytes(), str(path))
    names: list[str] = []
    package = fullname if path.name == "__init__.py" else fullname.rpartition(".")[0]
    for node in tree.body:
        if isinstance(node, ast.Assign) and _targets(node) == ["__all__"]:
            value = ast.literal_eval(node.value)
            if isinstance(value, list | tuple) and all(isinstance(v, str) for v in value):
                return list(value)
            raise _Eager(f"{fullname}.__all__ is not a literal")
        if isinstance(node, ast.ImportFrom):
            if any(a.name == "*" for a in node.names):
                if node.level == 0:
                    raise _Eager(f"absolute star import in {fullname}")
                names += _star_names(_resolve_relative(node, package), depth + 1)
            else:
                names += [a.asname or a.name for a in node.names]
        elif isinstance(node, ast.Import):
            names += [a.asname or a.name.partition(".")[0] for a in node.names]
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            names += _targets(node)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.append(node.name)
        elif isinstance(node, ast.If | ast.Try | ast.With | ast.For | ast.While):
            raise _Eager(f"conditional bindings in {fullname}")
    return [n for n in names if not n.startswith("_")]


def _targets(node: ast.Assign | ast.AnnAssign) -> list[str]:
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    if not all(isinstance(t, ast.Name) for t in targets):
        raise _Eager("assignment to something other than a plain name")
    return [t.id for t in targets if isinstance(t, ast.Name)]


def _loads(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _calls_namespace(node: ast.AST) -> bool:
    return any(
        isinstance(n, ast.Call)
        and isinstance(n.func, ast.Name)
        and n.func.id in {"locals", "globals", "vars"}
        for n in ast.walk(node)
    )


def _is_module_rename_idiom(node: ast.stmt) -> bool:
    """The Stainless SDKs' `for __name in __all__: __locals[__name].__module__ = "anthropic"`: it
    only makes error messages say `anthropic.X`; done here for each name as it is resolved."""
    return (
        isinstance(node, ast.For)
        and isinstance(node.iter, ast.Name)
        and node.iter.id == "__all__"
        and any(
            isinstance(n, ast.Attribute) and n.attr == "__module__" and isinstance(n.ctx, ast.Store)
            for n in ast.walk(node)
        )
    )


class _Plan:
    """What running a package `__init__` lazily means: names to bind on access, statements to run."""

    def __init__(self, tree: ast.Module, package: str, filename: str) -> None:
        self.lazy: dict[str, _Lazy] = {}
        self.run: list[tuple[ast.stmt, set[str]]] = []
        self.rename_module = False
        self.doc = ast.get_docstring(tree, clean=False)
        bound: set[str] = set()

        def bind(name: str) -> None:
            if name in bound:
                raise _Eager(f"{name} bound twice")
            bound.add(name)

        body = list(tree.body)
        for i, node in enumerate(body):
            if isinstance(node, ast.ImportFrom) and node.module == "__future__":
                self.run.append((node, set()))  # binds `annotations`, as it does eagerly
                continue
            if i == 0 and self.doc is not None and isinstance(node, ast.Expr):
                continue
            if isinstance(node, ast.ImportFrom) and node.level >= 1:
                source = _resolve_relative(node, package)
                for alias in node.names:
                    if alias.name == "*":
                        for name in _star_names(source):
                            bind(name)
                            self.lazy[name] = _Lazy(source, name)
                        continue
                    local = alias.asname or alias.name
                    bind(local)
                    if node.module is None:  # `from . import x`: a submodule of this package
                        self.lazy[local] = _Lazy(f"{source}.{alias.name}", None)
                    else:
                        self.lazy[local] = _Lazy(source, alias.name)
                continue
            if _is_module_rename_idiom(node):
                self.rename_module = True
                continue
            if (
                isinstance(node, ast.Assign)
                and isinstance(node.value, ast.Call)
                and isinstance(node.value.func, ast.Name)
                and node.value.func.id == "locals"
                and i + 1 < len(body)
                and _is_module_rename_idiom(body[i + 1])
            ):
                continue  # `__locals = locals()`, used only by the idiom above
            if _calls_namespace(node):
                raise _Eager("reads the module namespace")
            if (
                isinstance(node, ast.Assign | ast.AnnAssign)
                and node.value is not None
                and _loads(node.value) & self.lazy.keys()
            ):
                # `Alias: TypeAlias = LazyName[...]`: evaluated when first read, like the names
                # it is made of.
                for name in _targets(node):
                    bind(name)
                    code = compile(ast.Expression(node.value), filename, "eval")
                    reads = frozenset(_loads(node.value) & self.lazy.keys())
                    self.lazy[name] = _Lazy(package, None, code, reads)
                continue
            for sub in ast.walk(node):
                if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
                    bind(sub.id)
                elif isinstance(sub, ast.alias):
                    bind(sub.asname or sub.name.partition(".")[0])
                elif isinstance(sub, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                    bind(sub.name)
                    break  # names inside a def are its own
            self.run.append((node, _loads(node)))
        self.code = [
            (compile(ast.Module([node], []), filename, "exec"), frozenset(reads))
            for node, reads in self.run
        ]

    def to_data(self) -> tuple[Any, ...]:
        lazy = {k: (v.module, v.attr, v.expr, tuple(v.reads)) for k, v in self.lazy.items()}
        return (self.doc, self.rename_module, lazy, [(c, tuple(r)) for c, r in self.code])


class _CachedPlan:
    """A _Plan as read back from the cache next to the bytecode (no parsing)."""

    def __init__(self, data: tuple[Any, ...]) -> None:
        doc, rename, lazy, code = data
        self.doc: str | None = doc
        self.rename_module: bool = rename
        self.lazy = {k: _Lazy(m, a, e, frozenset(r)) for k, (m, a, e, r) in lazy.items()}
        self.code = [(c, frozenset(r)) for c, r in code]


def _make_getattr(module: ModuleType, plan: _Plan | _CachedPlan) -> Callable[[str], Any]:
    name = module.__name__
    namespace = module.__dict__

    def resolve(attr: str, lazy: _Lazy) -> Any:
        if lazy.expr is not None:
            for needed in lazy.reads:
                if needed not in namespace:
                    __getattr__(needed)
            value = eval(lazy.expr, namespace)
        elif lazy.attr is None:
            value = importlib.import_module(lazy.module)
        else:
            source = importlib.import_module(lazy.module)
            try:
                value = getattr(source, lazy.attr)
            except AttributeError:  # `from .pkg import submodule`, as the import statement does
                value = importlib.import_module(f"{lazy.module}.{lazy.attr}")
        if plan.rename_module and attr in namespace.get("__all__", ()):
            try:
                value.__module__ = name
            except (TypeError, AttributeError):
                pass
        namespace[attr] = value
        return value

    def __getattr__(attr: str) -> Any:
        lazy = plan.lazy.get(attr)
        if lazy is not None:
            return resolve(attr, lazy)
        if not attr.startswith("__"):
            # An eager import leaves every submodule it loaded as an attribute; so does this.
            try:
                return importlib.import_module(f"{name}.{attr}")
            except ModuleNotFoundError as exc:
                if exc.name != f"{name}.{attr}":
                    raise
        raise AttributeError(f"module {name!r} has no attribute {attr!r}")

    return __getattr__


# Bump when the cached form changes; the interpreter's magic number covers code objects.
_CACHE_FORMAT = 2


@functools.cache
def _transform_key() -> tuple[int, ...]:
    """The code that makes the plans is part of their key: a changed lathe rebuilds them."""
    key = [_CACHE_FORMAT]
    for module in (__file__, lazy_sdk_leaf.__file__):
        try:
            st = os.stat(module)
            key += [st.st_mtime_ns, st.st_size]
        except OSError:
            key += [0, 0]
    return tuple(key)


def _cached(path: str, suffix: str, build: Callable[[], Any]) -> Any:
    """`build()` for the source file at `path`, cached beside its bytecode (where and when Python
    writes bytecode) as `<name>.<suffix>`, keyed by the source's mtime and size: parsing a module
    costs more than running its plan. A cache file that cannot be read is rebuilt, never trusted."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    key: tuple[int | bytes, ...] = (
        *_transform_key(),
        importlib.util.MAGIC_NUMBER,
        st.st_mtime_ns,
        st.st_size,
    )
    try:
        cache: str | None = importlib.util.cache_from_source(path).removesuffix(".pyc") + suffix
    except (NotImplementedError, ValueError):
        cache = None
    if cache is not None:
        try:
            # One read, then loads: marshal.load(file) reads item by item through the file
            # object, several times the cost of decoding (about 17 ms over the SDK's files).
            with open(cache, "rb") as f:
                stored_key, data = marshal.loads(f.read())
            if tuple(stored_key) == key:
                return data
        except (OSError, EOFError, ValueError, TypeError):
            pass
    data = build()
    if cache is not None and not sys.dont_write_bytecode:
        try:
            os.makedirs(os.path.dirname(cache), exist_ok=True)
            tmp = f"{cache}.{os.getpid()}.tmp"
            with open(tmp, "wb") as f:
                marshal.dump((key, data), f)
            os.replace(tmp, cache)
        except (OSError, ValueError):
            pass
    return data


class _LazyInitLoader(importlib.machinery.SourceFileLoader):
    """Runs a package `__init__` by its plan."""

    def _plan(self, name: str) -> _CachedPlan | None:
        def build() -> tuple[Any, ...] | None:
            try:
                return _Plan(
                    ast.parse(self.get_data(self.path), self.path), name, self.path
                ).to_data()
            except (_Eager, SyntaxError, ValueError):
                return None

        data = _cached(self.path, ".lazy", build)
        return None if data is None else _CachedPlan(data)

    def exec_module(self, module: ModuleType) -> None:
        plan = self._plan(module.__name__)
        if plan is None:
            super().exec_module(module)
            return
        namespace = module.__dict__
        namespace["__doc__"] = plan.doc
        getattr_ = _make_getattr(module, plan)
        namespace["__getattr__"] = getattr_
        names = plan.lazy.keys()
        namespace["__dir__"] = lambda: sorted(set(namespace) | names)
        for code, reads in plan.code:
            for needed in reads & names:
                if needed not in namespace:
                    getattr_(needed)
            exec(code, namespace)


class _LeafLoader(importlib.machinery.SourceFileLoader):
    """Runs a leaf module with the imports only its functions use deferred
    (app/model/lazy_sdk_leaf.py); unchanged, from its own bytecode, when there are none."""

    def exec_module(self, module: ModuleType) -> None:
        def build() -> tuple[CodeType, dict[str, Any]] | None:
            try:
                return lazy_sdk_leaf.plan(self.get_data(self.path), module.__name__, self.path)
            except (SyntaxError, ValueError, RecursionError):
                return None

        data = _cached(self.path, ".leaf", build)
        if data is None:
            super().exec_module(module)
            return
        code, names = data
        lazy_sdk_leaf.install(module, names)
        exec(code, module.__dict__)


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname != ROOT_PACKAGE and not fullname.startswith(ROOT_PACKAGE + "."):
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or spec.origin is None or not spec.origin.endswith(".py"):
            return spec
        if spec.origin.endswith("__init__.py"):
            spec.loader = _LazyInitLoader(fullname, spec.origin)
        elif leaves_enabled():
            spec.loader = _LeafLoader(fullname, spec.origin)
        return spec


def enabled(env: dict[str, str] | os._Environ[str] | None = None) -> bool:
    e = os.environ if env is None else env
    return e.get("LATHE_EAGER_SDK", "").strip() not in {"1", "true", "yes"}


def leaves_enabled(env: dict[str, str] | os._Environ[str] | None = None) -> bool:
    """LATHE_EAGER_SDK_LEAVES=1 keeps the leaf modules as written (the packages stay lazy)."""
    e = os.environ if env is None else env
    return e.get("LATHE_EAGER_SDK_LEAVES", "").strip() not in {"1", "true", "yes"}


def install() -> None:
    """Put the finder in front of the import system (once). A no-op when the SDK is already
    imported (its packages are then what they are) or when LATHE_EAGER_SDK=1."""
    with _INSTALL_LOCK:
        if ROOT_PACKAGE in sys.modules or not enabled():
            return
        if not any(isinstance(f, _Finder) for f in sys.meta_path):
            sys.meta_path.insert(0, _Finder())
