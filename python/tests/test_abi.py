"""The binding against include/elicit.h: every function bound with the header's
types, every constant equal, the library located and version-checked."""

from __future__ import annotations

import ctypes
import os
import re
import subprocess
import sys
from ctypes import POINTER, c_bool, c_char, c_char_p, c_double, c_int32, c_int64, c_size_t, c_uint8, c_uint32, c_void_p
from pathlib import Path
from typing import Any, Dict, List, Tuple

import pytest

import elicit_mcp
from elicit_mcp import _ffi, constants
from elicit_mcp.constants import InputKind, NoteLevel, Result, StepKind

from conftest import HEADER, NOALLOC_HEADER

PlanPtr = POINTER(_ffi.ElicitPlan)
RoundPtr = POINTER(_ffi.ElicitRound)
KeyRingPtr = POINTER(_ffi.ElicitKeyRing)
SealerPtr = POINTER(_ffi.ElicitSealer)
ServerPtr = POINTER(_ffi.ElicitServer)
CallPtr = POINTER(_ffi.ElicitCall)

#: C type (normalized) → the ctypes type the binding must declare.
C_TO_CTYPES: Dict[str, Any] = {
    "void": None,
    "uint32_t": c_uint32,
    "elicit_result": c_uint32,
    "size_t": c_size_t,
    "const char *": c_char_p,
    "const uint8_t *": c_char_p,
    "uint8_t *": POINTER(c_uint8),
    "size_t *": POINTER(c_size_t),
    "uint32_t *": POINTER(c_uint32),
    "bool *": POINTER(c_bool),
    "const struct elicit_plan *": PlanPtr,
    "struct elicit_plan *": PlanPtr,
    "struct elicit_plan **": POINTER(PlanPtr),
    "const struct elicit_round *": RoundPtr,
    "struct elicit_round *": RoundPtr,
    "struct elicit_round **": POINTER(RoundPtr),
    "const struct elicit_key_ring *": KeyRingPtr,
    "struct elicit_key_ring *": KeyRingPtr,
    "struct elicit_key_ring **": POINTER(KeyRingPtr),
    "const struct elicit_sealer *": SealerPtr,
    "struct elicit_sealer *": SealerPtr,
    "struct elicit_sealer **": POINTER(SealerPtr),
    "const uint8_t *const *": POINTER(c_char_p),
    "const size_t *": POINTER(c_size_t),
    "const char **": POINTER(c_char_p),
    "int64_t *": POINTER(c_int64),
    "double *": POINTER(c_double),
    "double": c_double,
    "bool": c_bool,
    "char *": POINTER(c_char),
    "int32_t *": POINTER(c_int32),
    "const struct elicit_server_config *": c_void_p,
    "const struct elicit_request *": POINTER(_ffi.ElicitRequest),
    "const elicit_request *": POINTER(_ffi.ElicitRequest),
    "const struct elicit_round_input *": POINTER(_ffi.ElicitRoundInput),
    "const elicit_round_input *": POINTER(_ffi.ElicitRoundInput),
    "const struct elicit_server *": ServerPtr,
    "struct elicit_server *": ServerPtr,
    "struct elicit_server **": POINTER(ServerPtr),
    "struct elicit_call *": CallPtr,
    "struct elicit_call **": POINTER(CallPtr),
}


def _strip_comments(text: str) -> str:
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", " ", text)


def _norm(ctype: str) -> str:
    t = " ".join(ctype.split())
    t = re.sub(r"\s*\*", "*", t)
    return re.sub(r"(\w)\*", r"\1 *", t).strip()


def header_text() -> str:
    """elicit.h and the header it includes, elicit_noalloc.h."""
    text = HEADER.read_text(encoding="utf-8")
    assert '#include "elicit_noalloc.h"' in text
    return NOALLOC_HEADER.read_text(encoding="utf-8") + "\n" + text


def header_functions() -> Dict[str, Tuple[str, List[str]]]:
    """name → (return type, [parameter types]) for every prototype in the headers, except
    the heap-free surface (``elicit_noalloc_*``: caller memory, for C firmware), which a
    Python host has no use for."""
    text = _strip_comments(header_text())
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
        if not name.startswith("elicit_noalloc_"):
            out[name] = (_norm(ret), types)
    return out


def header_defines() -> Dict[str, str]:
    text = _strip_comments(header_text()).replace("\\\n", " ")
    return dict(re.findall(r"^#define\s+(ELICIT_\w+)\s+(.+?)\s*$", text, flags=re.M))


def c_string(value: str) -> str:
    """The text of adjacent C string literals (``"a" "b"``), escapes decoded."""
    parts = re.findall(r'"((?:[^"\\]|\\.)*)"', value)
    return "".join(parts).encode("ascii").decode("unicode_escape")


def test_header_has_the_functions_the_docs_promise() -> None:
    funcs = header_functions()
    assert len(funcs) == 64
    assert "elicit_round_poll" in funcs and "elicit_round_last_error" in funcs


def test_every_header_function_is_bound_with_its_types() -> None:
    lib = _ffi.load()
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
    lib = _ffi.load()
    with pytest.raises(ctypes.ArgumentError):
        lib.elicit_plan_param_count("not a plan", None)
    with pytest.raises(ctypes.ArgumentError):
        lib.elicit_result_str("100")


def test_header_defines_match_the_constants() -> None:
    defines = header_defines()
    seen_results = set()
    seen_kinds = set()
    for name, value in defines.items():
        if name in ("ELICIT_H", "ELICIT_NOALLOC_H"):
            continue
        short = name[len("ELICIT_") :]
        if name == "ELICIT_ABI_VERSION":
            parts = (int(defines[f"ELICIT_ABI_VERSION_{p}"]) for p in ("MAJOR", "MINOR", "PATCH"))
            major, minor, patch = parts
            assert elicit_mcp.ABI_VERSION == (major << 16) | (minor << 8) | patch
            assert "ELICIT_ABI_VERSION_MAJOR << 16" in value
        elif name == "ELICIT_NO_PARAM":
            assert value == "(size_t)~0"
            assert elicit_mcp.NO_PARAM == 2 ** (8 * ctypes.sizeof(c_size_t)) - 1
        elif name == "ELICIT_OK" or name.startswith("ELICIT_ERR_"):
            assert Result[short] == int(value), name
            seen_results.add(short)
        elif name.startswith("ELICIT_STEP_"):
            assert StepKind[short[len("STEP_") :]] == int(value), name
        elif name.startswith("ELICIT_NOTE_"):
            assert NoteLevel[short[len("NOTE_") :]] == int(value), name
        elif name.startswith("ELICIT_KIND_"):
            assert InputKind[short[len("KIND_") :]] == int(value), name
            seen_kinds.add(short[len("KIND_") :])
        elif value.startswith('"'):
            assert getattr(constants, short) == c_string(value), name
        else:
            assert getattr(constants, short) == int(value), name
    assert seen_results == {r.name for r in Result}, "Result lists exactly the header's codes"
    assert seen_kinds == {k.name for k in InputKind}, "InputKind lists exactly the header's kinds"


def test_result_str_names_every_code() -> None:
    lib = _ffi.load()
    for code in Result:
        text = lib.result_str(int(code))
        assert text.startswith(elicit_mcp.code_name(int(code)) + ":"), text
    assert lib.result_str(12345) == "unknown elicit_result code"


def test_code_name_is_the_library_result_name() -> None:
    lib = _ffi.load()
    for code in [*map(int, Result), 1, 12345]:
        assert elicit_mcp.code_name(code) == lib.result_name(code), code
    assert lib.result_name(12345) == "ELICIT_ERR_UNKNOWN"
    rejected = lib.result_str(int(Result.ERR_REQUEST_STATE))
    assert rejected == "ELICIT_ERR_REQUEST_STATE: " + elicit_mcp.REQUEST_STATE_ERROR_MESSAGE


def test_abi_version_matches() -> None:
    assert elicit_mcp.abi_version() == elicit_mcp.ABI_VERSION


def test_library_found_in_the_cargo_target_dir(tmp_path: Path) -> None:
    # A workspace laid out as this repository is, holding the library that was built
    # (wherever CARGO_TARGET_DIR put it): found from the package's folder when nothing
    # sits beside the package.
    name = _ffi.library_filename()
    built = _ffi.load().path
    repo = tmp_path / "repo"
    (repo / "python").mkdir(parents=True)
    (repo / "Cargo.toml").write_text("[workspace]\n")
    for profile in ("debug", "release"):
        (repo / "target" / profile).mkdir(parents=True)
        (repo / "target" / profile / name).symlink_to(built)
    paths = _ffi.candidate_paths(env={}, starts=[repo / "python"])
    assert repo / "target" / "release" / name in paths
    # $CARGO_TARGET_DIR comes before the workspace's own target folder.
    other = tmp_path / "elsewhere"
    with_target = _ffi.candidate_paths(env={"CARGO_TARGET_DIR": str(other)}, starts=[repo / "python"])
    assert with_target.index(other / "release" / name) < with_target.index(repo / "target" / "release" / name)


def test_the_library_beside_the_package_comes_first() -> None:
    paths = _ffi.candidate_paths(env={}, starts=[])
    assert paths == [Path(elicit_mcp.__file__).resolve().parent / _ffi.library_filename()]
    with_target = _ffi.candidate_paths(env={"CARGO_TARGET_DIR": "/t"}, starts=[])
    assert with_target[0] == paths[0] and with_target[1] == Path("/t/release") / _ffi.library_filename()


def test_elicit_lib_names_a_file_or_a_folder() -> None:
    path = _ffi.load().path
    assert elicit_mcp.find_library(env={"ELICIT_LIB": str(path)}) == path
    assert elicit_mcp.find_library(env={"ELICIT_LIB": str(path.parent)}) == path


def test_missing_library_says_how_to_build_it(tmp_path: Path) -> None:
    with pytest.raises(elicit_mcp.LibraryNotFoundError) as e:
        elicit_mcp.find_library(env={}, starts=[tmp_path])
    assert "cargo build --release -p elicit-ffi, or set ELICIT_LIB" in str(e.value)
    assert "pip install" in str(e.value)
    with pytest.raises(elicit_mcp.LibraryNotFoundError) as e:
        elicit_mcp.find_library(env={"ELICIT_LIB": str(tmp_path / "nope.so")})
    assert "ELICIT_LIB" in str(e.value) and "cargo build --release -p elicit-ffi" in str(e.value)
    assert isinstance(e.value, OSError)


def test_missing_library_in_a_fresh_interpreter(tmp_path: Path) -> None:
    env = dict(os.environ, ELICIT_LIB=str(tmp_path / "libelicit_ffi.so"))
    code = "import elicit_mcp\ntry:\n    elicit_mcp.Plan({'parameters': []})\nexcept elicit_mcp.LibraryNotFoundError as e:\n    print('ERR', e)\n"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.startswith("ERR ")
    assert "cargo build --release -p elicit-ffi, or set ELICIT_LIB" in out.stdout


def test_not_a_library_is_a_library_error(tmp_path: Path) -> None:
    bogus = tmp_path / "libelicit_ffi.so"
    bogus.write_bytes(b"not an ELF file")
    with pytest.raises(elicit_mcp.LibraryError, match="cannot load"):
        _ffi.Lib(bogus)


def test_all_is_the_api_and_every_public_name_is_documented() -> None:
    import inspect

    assert sorted(elicit_mcp.__all__) == sorted(set(elicit_mcp.__all__))
    for internal in ("Lib", "load", "error_for", "dumps", "candidate_paths", "library_filename"):
        assert internal not in elicit_mcp.__all__, internal
    undocumented = []
    for name in elicit_mcp.__all__:
        obj = getattr(elicit_mcp, name)
        if inspect.isclass(obj) or inspect.isfunction(obj):
            if not (obj.__doc__ or "").strip():
                undocumented.append(name)
        if inspect.isclass(obj) and not issubclass(obj, int):
            for attr, member in vars(obj).items():
                if attr.startswith("_"):
                    continue
                fn = member.fget if isinstance(member, property) else member
                if callable(fn) or isinstance(member, property):
                    if not (getattr(fn, "__doc__", None) or "").strip():
                        undocumented.append(f"{name}.{attr}")
    assert not undocumented, undocumented
