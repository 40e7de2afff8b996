# `cmake --install build --prefix P`: the C++ package. Installs the headers
# (core, wire, client and the generated arbiter.v1 / grpc.health.v1
# headers), the static libraries and a CMake package, so that a game server
# writes
#
#   find_package(arbiter CONFIG REQUIRED)
#   target_link_libraries(my_server PRIVATE arbiter::client)
#
# and gets arbiter::client (with arbiter::core, arbiter::proto and
# arbiter::wire behind it) and its dependencies (gRPC, Protobuf, Abseil)
# found by arbiterConfig.cmake. client/examples/ are built this way by a test.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(ARBITER_CMAKE_DIR "${CMAKE_INSTALL_LIBDIR}/cmake/arbiter")

set_target_properties(arbiter_core PROPERTIES EXPORT_NAME core)
set_target_properties(arbiter_step_pool PROPERTIES EXPORT_NAME step_pool)
set_target_properties(arbiter_proto PROPERTIES EXPORT_NAME proto)
set_target_properties(arbiter_wire PROPERTIES EXPORT_NAME wire)
set_target_properties(arbiter_client PROPERTIES EXPORT_NAME client)

install(TARGETS arbiter_core arbiter_step_pool arbiter_proto arbiter_wire arbiter_client
  EXPORT arbiterTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY
  ${CMAKE_SOURCE_DIR}/core/include/
  ${CMAKE_SOURCE_DIR}/proto/include/
  ${CMAKE_SOURCE_DIR}/client/include/
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
# The generated message and service headers the client's header includes.
install(DIRECTORY ${CMAKE_BINARY_DIR}/proto/
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.pb.h"
  PATTERN "CMakeFiles" EXCLUDE)
# The contract itself, for clients in other languages.
install(DIRECTORY ${CMAKE_SOURCE_DIR}/proto/arbiter DESTINATION ${CMAKE_INSTALL_DATADIR}/arbiter/proto
  FILES_MATCHING PATTERN "*.proto")

install(EXPORT arbiterTargets NAMESPACE arbiter:: DESTINATION ${ARBITER_CMAKE_DIR})
configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/arbiterConfig.cmake.in
  ${CMAKE_BINARY_DIR}/arbiterConfig.cmake INSTALL_DESTINATION ${ARBITER_CMAKE_DIR})
write_basic_package_version_file(${CMAKE_BINARY_DIR}/arbiterConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/arbiterConfig.cmake ${CMAKE_BINARY_DIR}/arbiterConfigVersion.cmake
  DESTINATION ${ARBITER_CMAKE_DIR})
