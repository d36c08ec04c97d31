"""Build the platform wheel: the package plus ``libelicit_ffi`` built from ``../ffi``.

Why setuptools-rust and not maturin: this package talks to the library through ctypes,
so the library is a plain C cdylib with no Python bindings. setuptools-rust builds
exactly that (``Binding.NoBinding``: cargo builds the crate, the cdylib is copied into
the package); maturin packages PyO3, cffi or uniffi modules and binaries, and has no
mode for a bare cdylib loaded with ctypes. The Python code stays plain setuptools.

The wheel is tagged ``py3-none-<platform>``: the library does not link libpython, so
one wheel serves every Python 3 on the platform. The library keeps its own name,
``libelicit_ffi.so`` (``.dylib``, ``elicit_ffi.dll``), beside ``__init__.py``, where the
loader looks first.

Building needs cargo (the toolchain pinned by ``rust-toolchain.toml``) and the whole
workspace around this folder: ``pip install python/`` from a checkout or a copy of one.
"""

from __future__ import annotations

import os
import shutil
import sys
from typing import Tuple

from setuptools import setup
from setuptools.command.bdist_wheel import bdist_wheel
from setuptools_rust import Binding, RustExtension
from setuptools_rust.build import build_rust


def library_filename() -> str:
    """The cdylib's file name on this platform (as ``elicit_mcp._ffi.library_filename``)."""
    if sys.platform == "darwin":
        return "libelicit_ffi.dylib"
    if sys.platform.startswith("win") or sys.platform == "cygwin":
        return "elicit_ffi.dll"
    return "libelicit_ffi.so"


class BuildLibrary(build_rust):
    """Copy the library under its own name (not an extension-module name)."""

    def get_dylib_ext_path(self, ext: RustExtension, target_fname: str) -> str:
        module_path: str = super().get_dylib_ext_path(ext, target_fname)
        return os.path.join(os.path.dirname(module_path), library_filename())


class PlatformWheel(bdist_wheel):
    """Tag the wheel ``py3-none-<platform>`` (any Python 3, this platform)."""

    def finalize_options(self) -> None:
        super().finalize_options()
        self.root_is_pure = False

    def get_tag(self) -> Tuple[str, str, str]:
        _python, _abi, platform = super().get_tag()
        return "py3", "none", platform


# Build products (setuptools' build/ and egg-info) go to the cargo target folder, which
# also holds the library's build, not into this source folder.
HERE = os.path.dirname(os.path.abspath(__file__))
TARGET = os.environ.get("CARGO_TARGET_DIR") or os.path.join(HERE, "..", "target")
BUILD_BASE = os.path.join(TARGET, "python")
os.makedirs(BUILD_BASE, exist_ok=True)
# egg_info records the absolute paths of the checkout it was made in (egg_base lies
# outside this folder), and a stale one from a moved or other checkout sharing the target
# folder fails the build ("setup script specifies an absolute path"): it is remade on
# every build, so start without it. The same for setuptools' build folder (its copy of
# the package sources, build/lib.<platform>): it copies a source only when the source is
# newer than the copy, so a copy from another checkout sharing the target folder could
# win; it is cheap to remake (the library itself is built by cargo, not in there).
shutil.rmtree(os.path.join(BUILD_BASE, "elicit_mcp.egg-info"), ignore_errors=True)
shutil.rmtree(os.path.join(BUILD_BASE, "build"), ignore_errors=True)

setup(
    options={
        "build": {"build_base": os.path.join(BUILD_BASE, "build")},
        "egg_info": {"egg_base": BUILD_BASE},
    },
    rust_extensions=[
        RustExtension(
            "elicit_mcp.libelicit_ffi",
            path=os.path.join("..", "ffi", "Cargo.toml"),
            binding=Binding.NoBinding,
            # The release profile: optimized, no debug info (see the workspace Cargo.toml).
            debug=False,
        )
    ],
    cmdclass={"build_rust": BuildLibrary, "bdist_wheel": PlatformWheel},
)
