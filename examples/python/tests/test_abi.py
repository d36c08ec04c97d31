"""The binding against include/elicit.h: every function bound with the header's
types, every constant equal, the library located and version-checked."""

from __future__ import annotations

import ctypes
import os
import re
import subprocess
import sys
from ctypes import POINTER, c_bool, c_char_p, c_size_t, c_uint8, c_uint32
from pathlib import Path
from typing import Any, Dict, List, Tuple

import pytest

import elicit
from elicit import _ffi, constants
from elicit.constants import NoteLevel, Result, StepKind

from conftest import HEADER

PlanPtr = POINTER(_ffi.ElicitPlan)
RoundPtr = POINTER(_ffi.ElicitRound)

#: C type (normalized) → the ctypes type the binding must declare.
C_TO_CTYPES: Dict[str, Any] = {
    "void": None,
    "uint32_t": c_uint32,
    "elicit_result": c_uint32,
    "size_t": c_size_t,
    "const char *": c_char_p,
    "const uint8_t *": c_char_p,
    "uint8_t *": POINTER(c_uint8),
    "const uint8_t **": POINTER(POINTER(c_uint8)),
    "size_t *": POINTER(c_size_t),
    "uint32_t *": POINTER(c_uint32),
    "bool *": POINTER(c_bool),
    "const struct elicit_plan *": PlanPtr,
    "struct elicit_plan *": PlanPtr,
    "struct elicit_plan **": POINTER(PlanPtr),
    "const struct elicit_round *": RoundPtr,
    "struct elicit_round *": RoundPtr,
    "struct elicit_round **": POINTER(RoundPtr),
}


def _strip_comments(text: str) -> str:
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", " ", text)


def _norm(ctype: str) -> str:
    t = " ".join(ctype.split())
    t = re.sub(r"\s*\*", "*", t)
    return re.sub(r"(\w)\*", r"\1 *", t).strip()


def header_functions() -> Dict[str, Tuple[str, List[str]]]:
    """name → (return type, [parameter types]) for every prototype in the header."""
    text = _strip_comments(HEADER.read_text(encoding="utf-8"))
    protos = re.findall(
        r"^((?:const\s+)?(?:struct\s+)?\w+[\s*]*?)\s*\b(elicit_\w+)\s*\(([^)]*)\)\s*;",
        text,
        flags=re.M,
    )
    out: Dict[str, Tuple[str, List[str]]] = {}
    for ret, name, params in protos:
        types: List[str] = []
        for p in params.split(","):
            p = p.strip()
            if p in ("", "void"):
                continue
            m = re.match(r"^(.*?)(\w+)$", p, flags=re.S)
            assert m, p
            types.append(_norm(m.group(1)))
        out[name] = (_norm(ret), types)
    return out


def header_defines() -> Dict[str, str]:
    text = _strip_comments(HEADER.read_text(encoding="utf-8"))
    return dict(re.findall(r"^#define\s+(ELICIT_\w+)\s+(.+?)\s*$", text, flags=re.M))


def test_header_has_the_functions_the_docs_promise() -> None:
    funcs = header_functions()
    assert len(funcs) == 27
    assert "elicit_round_poll" in funcs and "elicit_round_last_error" in funcs


def test_every_header_function_is_bound_with_its_types() -> None:
    lib = elicit.load()
    funcs = header_functions()
    assert sorted(funcs) == sorted(_ffi.SIGNATURES), "SIGNATURES must list exactly the header's functions"
    for name, (ret, params) in funcs.items():
        fn = getattr(lib.cdll, name)
        assert getattr(lib, name) is fn, name
        assert fn.restype is C_TO_CTYPES[ret], f"{name}: restype for {ret!r}"
        assert fn.argtypes is not None, f"{name}: argtypes not set"
        expected = [C_TO_CTYPES[p] for p in params]
        assert list(fn.argtypes) == expected, f"{name}: argtypes for {params}"


def test_argtypes_reject_wrong_types_before_c() -> None:
    lib = elicit.load()
    with pytest.raises(ctypes.ArgumentError):
        lib.elicit_plan_param_count("not a plan", None)
    with pytest.raises(ctypes.ArgumentError):
        lib.elicit_result_str("100")


def test_header_defines_match_the_constants() -> None:
    defines = header_defines()
    seen_results = set()
    for name, value in defines.items():
        if name == "ELICIT_H":
            continue
        short = name[len("ELICIT_") :]
        if name == "ELICIT_ABI_VERSION":
            assert elicit.ABI_VERSION == (0 << 16) | (1 << 8) | 0
            assert "ELICIT_ABI_VERSION_MAJOR << 16" in value
        elif name == "ELICIT_NO_PARAM":
            assert value == "(size_t)~0"
            assert elicit.NO_PARAM == 2 ** (8 * ctypes.sizeof(c_size_t)) - 1
        elif name == "ELICIT_OK" or name.startswith("ELICIT_ERR_"):
            assert Result[short] == int(value), name
            seen_results.add(short)
        elif name.startswith("ELICIT_STEP_"):
            assert StepKind[short[len("STEP_") :]] == int(value), name
        elif name.startswith("ELICIT_NOTE_"):
            assert NoteLevel[short[len("NOTE_") :]] == int(value), name
        else:
            assert getattr(constants, short) == int(value), name
    assert seen_results == {r.name for r in Result}, "Result lists exactly the header's codes"


def test_result_str_names_every_code() -> None:
    lib = elicit.load()
    for code in Result:
        text = lib.result_str(int(code))
        assert text.startswith(elicit.code_name(int(code)) + ":"), text
    assert lib.result_str(12345) == "unknown elicit_result code"


def test_abi_version_matches() -> None:
    assert elicit.abi_version() == elicit.ABI_VERSION


def test_library_found_in_the_cargo_target_dir(tmp_path: Path) -> None:
    # A workspace laid out as this repository is, holding the library that was built
    # (wherever CARGO_TARGET_DIR put it): found from the package's folder.
    repo = tmp_path / "repo"
    (repo / "examples" / "python").mkdir(parents=True)
    (repo / "Cargo.toml").write_text("[workspace]\n")
    for profile in ("debug", "release"):
        (repo / "target" / profile).mkdir(parents=True)
        (repo / "target" / profile / elicit.library_filename()).symlink_to(elicit.load().path)
    found = elicit.find_library(env={}, starts=[repo / "examples" / "python"])
    assert found == repo / "target" / "release" / elicit.library_filename()
    # $CARGO_TARGET_DIR comes first.
    other = tmp_path / "elsewhere"
    (other / "debug").mkdir(parents=True)
    (other / "debug" / elicit.library_filename()).symlink_to(elicit.load().path)
    found = elicit.find_library(
        env={"CARGO_TARGET_DIR": str(other)}, starts=[repo / "examples" / "python"]
    )
    assert found == other / "debug" / elicit.library_filename()


def test_elicit_lib_names_a_file_or_a_folder() -> None:
    path = elicit.load().path
    assert elicit.find_library(env={"ELICIT_LIB": str(path)}) == path
    assert elicit.find_library(env={"ELICIT_LIB": str(path.parent)}) == path


def test_missing_library_says_how_to_build_it(tmp_path: Path) -> None:
    with pytest.raises(elicit.LibraryNotFoundError) as e:
        elicit.find_library(env={}, starts=[tmp_path])
    assert "build it with cargo build --release -p elicit-ffi or set ELICIT_LIB" in str(e.value)
    with pytest.raises(elicit.LibraryNotFoundError) as e:
        elicit.find_library(env={"ELICIT_LIB": str(tmp_path / "nope.so")})
    assert "ELICIT_LIB" in str(e.value) and "cargo build --release -p elicit-ffi" in str(e.value)
    assert isinstance(e.value, OSError)


def test_missing_library_in_a_fresh_interpreter(tmp_path: Path) -> None:
    env = dict(os.environ, ELICIT_LIB=str(tmp_path / "libelicit_ffi.so"))
    code = "import elicit\ntry:\n    elicit.Plan({'parameters': []})\nexcept elicit.LibraryNotFoundError as e:\n    print('ERR', e)\n"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.startswith("ERR ")
    assert "build it with cargo build --release -p elicit-ffi or set ELICIT_LIB" in out.stdout


def test_not_a_library_is_a_library_error(tmp_path: Path) -> None:
    bogus = tmp_path / "libelicit_ffi.so"
    bogus.write_bytes(b"not an ELF file")
    with pytest.raises(elicit.LibraryError, match="cannot load"):
        elicit.Lib(bogus)
