# cmake -DOUT=<file> -DVERSION=<x.y.z> -P version-file.cmake
# Writes elicitConfigVersion.cmake with CMake's own generator. SameMinorVersion: before 1.0
# a minor version may break the C ABI (CHANGELOG.md, "Versioning"), so a request for 0.4
# accepts 0.4.x and nothing else. The SDK is for 64-bit targets (CMAKE_SIZEOF_VOID_P 8).
include(CMakePackageConfigHelpers)
set(CMAKE_SIZEOF_VOID_P 8)
write_basic_package_version_file("${OUT}" VERSION "${VERSION}" COMPATIBILITY SameMinorVersion)
