"""app/model/lazy_sdk.py: the SDK imported through lazy package initialisers is the same SDK.

Each check runs in a fresh interpreter: the test process has the SDK imported already.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from app.model.scenario import parse_scenario
from tests.fakeapi.server import FakeAPI

ROOT = Path(__file__).resolve().parents[3]

# Every package of the SDK, its public names and what each is (type, module, qualified name).
NAMESPACES = r"""
import importlib, json, pkgutil, sys, types
if sys.argv[1] == "lazy":
    from app.model import lazy_sdk
    lazy_sdk.install()
import anthropic
from anthropic._utils._proxy import LazyProxy

def describe(value):
    if isinstance(value, LazyProxy):
        return "proxy:" + type(value).__name__
    qualname = getattr(value, "__qualname__", None)
    if qualname:
        return f"{type(value).__name__}:{getattr(value, '__module__', None)}:{qualname}"
    text = repr(value)
    return f"{type(value).__name__}:{text if ' at 0x' not in text else ''}"

out = {}
packages = ["anthropic"] + [
    m.name for m in pkgutil.walk_packages(anthropic.__path__, "anthropic.") if m.ispkg
]
for name in packages:
    try:
        module = importlib.import_module(name)
    except ImportError:  # an optional dependency (aiohttp, google-auth) is not installed
        continue
    names = {}
    for attr in dir(module):
        if attr.startswith("__") or "[" in attr:  # pydantic's generic names, e.g. X[object]
            continue
        try:
            value = getattr(module, attr)
        except ImportError:
            continue
        if not isinstance(value, types.ModuleType):  # which submodules are loaded differs
            names[attr] = describe(value)
    out[name] = names
print(json.dumps(out, sort_keys=True))
"""

STREAM = r"""
import asyncio, json, sys
from app.model import lazy_sdk
lazy_sdk.install()

async def main():
    from anthropic import AsyncAnthropic, APIStatusError
    client = AsyncAnthropic(api_key="k", base_url=sys.argv[1], max_retries=0)
    loaded = sum(1 for m in sys.modules if m.startswith("anthropic"))
    stream = await client.messages.create(
        model="m", max_tokens=10, messages=[{"role": "user", "content": "hi"}], stream=True
    )
    text = "".join([e.delta.text async for e in stream if e.type == "content_block_delta"])
    beta = sum(1 for m in sys.modules if m.startswith("anthropic.types.beta"))
    try:
        await client.messages.create(model="m", max_tokens=10, messages=[])
        error = None
    except APIStatusError as exc:
        error = exc.status_code
    print(json.dumps({"loaded": loaded, "text": text, "error": error, "beta": beta}))

asyncio.run(main())
"""


def _run(code: str, *args: str, eager: bool = False, pycache: Path | None = None) -> str:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    if pycache is not None:
        env.update(PYTHONDONTWRITEBYTECODE="", PYTHONPYCACHEPREFIX=str(pycache))
    env.pop("LATHE_EAGER_SDK", None)
    if eager:
        env["LATHE_EAGER_SDK"] = "1"
    proc = subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_every_package_exposes_the_same_names_as_an_eager_import() -> None:
    eager = json.loads(_run(NAMESPACES, "eager"))
    lazy = json.loads(_run(NAMESPACES, "lazy"))
    # A package whose optional dependency is missing fails to import eagerly; lazily it fails
    # when a name that needs the dependency is used.
    assert eager.keys() <= lazy.keys()
    differences = {
        (package, name): (eager[package].get(name), lazy[package].get(name))
        for package in eager
        for name in eager[package].keys() | lazy[package].keys()
        if eager[package].get(name) != lazy[package].get(name)
    }
    assert differences == {}
    assert len(eager["anthropic.types.beta"]) > 1000  # the comparison compared something


def test_a_streamed_request_needs_a_fraction_of_the_modules() -> None:
    words = [f"w{i} " for i in range(50)]
    scenario = parse_scenario({"turns": [{"blocks": [{"type": "text", "chunks": words}]}]})
    with FakeAPI(scenario) as fake:
        lazy = json.loads(_run(STREAM, fake.url))
    with FakeAPI(scenario) as fake:
        eager = json.loads(_run(STREAM, fake.url, eager=True))
    assert lazy["text"] == eager["text"] == "".join(words)
    assert lazy["error"] == eager["error"] == 400  # errors are the SDK's own classes
    # LATHE_EAGER_SDK=1 is the SDK's own import: all of it.
    assert eager["loaded"] > 3000
    assert lazy["loaded"] < eager["loaded"] // 2
    # The beta types, which lathe's requests never use, are not loaded even by a whole stream
    # (the SDK's tracing modules import them; app/model/lazy_sdk_leaf.py defers those imports).
    assert lazy["beta"] == 0 < eager["beta"]


def test_plans_are_cached_beside_the_bytecode(tmp_path: Path) -> None:
    """The second start reads each package's plan instead of parsing its source; a damaged cache
    file is parsed again, never trusted."""
    scenario = parse_scenario({"turns": [{"blocks": [{"type": "text", "text": "cached"}]}] * 3})
    with FakeAPI(scenario) as fake:
        first = json.loads(_run(STREAM, fake.url, pycache=tmp_path))
        plans = sorted(tmp_path.rglob("*.lazy"))
        assert any(p.parent.name == "beta" for p in plans)
        leaves = sorted(tmp_path.rglob("*.leaf"))
        assert any(p.name.startswith("_base_client.") for p in leaves)
        plans += leaves
        second = json.loads(_run(STREAM, fake.url, pycache=tmp_path))
        for plan in plans:
            plan.write_bytes(b"not marshal data")
        third = json.loads(_run(STREAM, fake.url, pycache=tmp_path))
    assert first == second == third
    assert first["text"] == "cached"
