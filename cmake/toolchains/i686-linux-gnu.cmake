# Cross build for 32-bit x86 (no __int128: the portable Int128 path is the only one). An x86-64 Linux kernel runs its static binaries directly; qemu-i386 works too,
# with Debian's cross compiler (scripts/install-cross.sh installs it).
# Binaries link statically so that qemu-user runs them without a sysroot.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR i686)
set(CMAKE_C_COMPILER i686-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER i686-linux-gnu-g++)
set(CMAKE_EXE_LINKER_FLAGS_INIT "-static")
# Libraries and headers come from the cross sysroot only. (xxhash.h, which is
# header-only here, is still found: Debian's cross compilers search
# /usr/include after their sysroot.)
set(CMAKE_FIND_ROOT_PATH /usr/i686-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
