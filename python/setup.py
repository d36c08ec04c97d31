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

Building needs cargo (Rust 1.95 or later) and the Rust sources of the library. In a
checkout they are the workspace around this folder (``pip install python/``). The sdist
carries them: its ``rust/`` folder holds ``core/``, ``ffi/`` and ``ffi-noalloc/`` (links
followed, so the headers are files) and a workspace manifest with the checkout's build
settings; building from it writes only inside the unpacked sdist (``rust/target``).

Manylinux wheels (scripts/release.sh): ``CARGO=cargo-zigbuild`` and
``CARGO_BUILD_TARGET=<arch>-unknown-linux-gnu.2.17`` build the library against glibc
2.17 with zig as the linker; the wheel is tagged for that target's architecture, and
``auditwheel repair`` checks the library and gives the wheel its manylinux tag.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
from typing import List, Tuple

from setuptools import setup
from setuptools.command.bdist_wheel import bdist_wheel
from setuptools.command.sdist import sdist
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

    def run(self) -> None:
        cargo = os.environ.get("CARGO", "cargo")
        if shutil.which(cargo) is None:
            raise SystemExit(
                f"elicit-mcp: building from source needs cargo (Rust 1.95 or later), and "
                f"'{cargo}' is not on PATH. Install Rust (https://rustup.rs) and retry, or "
                f"install a prebuilt wheel: pip install --only-binary elicit-mcp elicit-mcp"
            )
        super().run()

    def get_dylib_ext_path(self, ext: RustExtension, target_fname: str) -> str:
        module_path: str = super().get_dylib_ext_path(ext, target_fname)
        return os.path.join(os.path.dirname(module_path), library_filename())


# The platform tag of a wheel whose library cargo builds for another target
# (CARGO_BUILD_TARGET, a glibc suffix such as ".2.17" aside): auditwheel repair then
# turns linux_<arch> into the manylinux tag the library qualifies for.
CROSS_PLATFORMS = {
    "x86_64-unknown-linux-gnu": "linux_x86_64",
    "aarch64-unknown-linux-gnu": "linux_aarch64",
}


class PlatformWheel(bdist_wheel):
    """Tag the wheel ``py3-none-<platform>`` (any Python 3, the library's platform)."""

    def finalize_options(self) -> None:
        target = os.environ.get("CARGO_BUILD_TARGET")
        if target and self.plat_name is None:
            triple = target.split(".")[0]
            if triple not in CROSS_PLATFORMS:
                raise SystemExit(
                    f"elicit-mcp: CARGO_BUILD_TARGET={target}: no wheel platform tag known "
                    f"for it (known: {', '.join(CROSS_PLATFORMS)}); unset it to build for "
                    f"this machine"
                )
            self.plat_name = CROSS_PLATFORMS[triple]
        super().finalize_options()
        self.root_is_pure = False

    def get_tag(self) -> Tuple[str, str, str]:
        _python, _abi, platform = super().get_tag()
        return "py3", "none", platform


# The crates the library is built from, as an sdist carries them (rust/, in the order
# they depend on each other) and the workspace files beside them.
CRATES = ("core", "ffi-noalloc", "ffi")
WORKSPACE_FILES = ("Cargo.lock", "LICENSE-MIT", "LICENSE-APACHE")
FIXTURES = ("include", os.path.join("tests", "vectors"), os.path.join("tests", "fixture"))


class SourceWithCrates(sdist):
    """Put the library's Rust sources into the sdist's ``rust/`` folder."""

    def make_release_tree(self, base_dir: str, files: List[str]) -> None:
        super().make_release_tree(base_dir, files)
        if os.path.isdir(os.path.join(HERE, "rust")):
            # Made from an unpacked sdist: rust/ is in the manifest already.
            return
        root = os.path.join(HERE, "..")
        rust = os.path.join(base_dir, "rust")
        # Not needed to build the library: C contract tests (tests/c) and the device library
        # (ffi-noalloc/staticlib, its own workspace).
        skip = shutil.ignore_patterns("target", "__pycache__", "c", "staticlib")
        for crate in CRATES:
            shutil.copytree(os.path.join(root, crate), os.path.join(rust, crate), ignore=skip)
        for name in WORKSPACE_FILES:
            shutil.copy(os.path.join(root, name), os.path.join(rust, name))
        # What the package's tests read from a checkout (tests/conftest.py: ELICIT_REPO):
        # the headers, the reference vectors and the booking fixture's JSON (also what
        # booking.py reads). With ELICIT_REPO=rust they run from the unpacked sdist.
        data_only = shutil.ignore_patterns("target", "src", "*.rs", "Cargo.toml")
        for folder in FIXTURES:
            shutil.copytree(os.path.join(root, folder), os.path.join(rust, folder), ignore=data_only)
        # The checkout's workspace manifest (versions, profiles, lints) with these crates
        # as its only members.
        with open(os.path.join(root, "Cargo.toml"), encoding="utf-8") as f:
            manifest = f.read()
        members = "[" + ", ".join(f'"{c}"' for c in CRATES) + "]"
        manifest = re.sub(r"(?m)^(members|default-members) = \[.*\]$", rf"\1 = {members}", manifest)
        manifest = re.sub(r"(?m)^exclude = \[.*\]$", "", manifest)
        with open(os.path.join(rust, "Cargo.toml"), "w", encoding="utf-8") as f:
            f.write(manifest)


# Build products (setuptools' build/ and egg-info) go to the cargo target folder, which
# also holds the library's build, not into this source folder. In a checkout that is the
# workspace's target/; in an unpacked sdist, rust/target inside it.
HERE = os.path.dirname(os.path.abspath(__file__))
RUST = os.path.join(HERE, "rust") if os.path.isdir(os.path.join(HERE, "rust")) else os.path.join(HERE, "..")
TARGET = os.environ.get("CARGO_TARGET_DIR") or os.path.join(RUST, "target")
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
            path=os.path.relpath(os.path.join(RUST, "ffi", "Cargo.toml"), HERE),
            binding=Binding.NoBinding,
            # The release profile: optimized, no debug info (see the workspace Cargo.toml).
            debug=False,
        )
    ],
    cmdclass={"build_rust": BuildLibrary, "bdist_wheel": PlatformWheel, "sdist": SourceWithCrates},
)
