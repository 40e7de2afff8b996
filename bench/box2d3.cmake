# Box2D v3 as an optional peer of peer_bench (issue 24). Give
# -DARBITER_BOX2D3_DIR=<a built erincatto/box2d tree, v3.1 or later>: the
# source tree, with libbox2d.a from Box2D's own CMake in build/ (or the
# source tree's include/ next to a build directory given here). Debian
# ships no v3, and nothing in this repository builds it.
#
# Defines the target box2d3_peer (an object library: the one translation
# unit that includes v3's headers) when the option is set and usable.
set(ARBITER_BOX2D3_DIR "" CACHE PATH "A built erincatto/box2d tree (v3.1 or later) to add Box2D v3 to peer_bench")
if(NOT ARBITER_BOX2D3_DIR)
  return()
endif()

# First existing path of the candidates, in order; not cached, so that a
# changed ARBITER_BOX2D3_DIR takes effect on the next configure.
function(arbiter_first_existing out)
  foreach(candidate IN LISTS ARGN)
    if(EXISTS "${candidate}")
      set(${out} "${candidate}" PARENT_SCOPE)
      return()
    endif()
  endforeach()
  set(${out} "" PARENT_SCOPE)
endfunction()

set(_b2 "${ARBITER_BOX2D3_DIR}")
arbiter_first_existing(_b2_header "${_b2}/include/box2d/box2d.h" "${_b2}/../include/box2d/box2d.h")
arbiter_first_existing(_b2_lib
  "${_b2}/build/src/libbox2d.a" "${_b2}/src/libbox2d.a" "${_b2}/build/libbox2d.a" "${_b2}/libbox2d.a"
  "${_b2}/lib/libbox2d.a" "${_b2}/build/lib/libbox2d.a")
if(NOT _b2_header OR NOT _b2_lib)
  message(FATAL_ERROR "ARBITER_BOX2D3_DIR=${_b2}: no include/box2d/box2d.h (${_b2_header}) or built "
                      "libbox2d.a (${_b2_lib}); build that tree with Box2D's own CMake first")
endif()
# v3.1 introduced b2World_OverlapShape and b2World_RebuildStaticTree, which the peer uses.
file(READ "${_b2_header}" _b2_api)
if(NOT _b2_api MATCHES "b2World_OverlapShape" OR NOT _b2_api MATCHES "b2World_RebuildStaticTree")
  message(FATAL_ERROR "ARBITER_BOX2D3_DIR=${_b2}: ${_b2_header} is older than Box2D v3.1")
endif()
get_filename_component(_b2_include "${_b2_header}" DIRECTORY)
get_filename_component(_b2_include "${_b2_include}" DIRECTORY)

# One object library per bench that uses v3: the query peer (peer_bench)
# and the stepper (step_bench). v3's include directory is given to these
# files only: Box2D 2.4.1's headers are also <box2d/box2d.h>, and every
# other file must keep seeing those.
function(arbiter_add_box2d3_object target source)
  add_library(${target} OBJECT ${source})
  target_include_directories(${target} PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
  target_include_directories(${target} BEFORE PRIVATE "${_b2_include}")
  target_link_libraries(${target} PRIVATE arbiter_core arbiter_scene)
  target_link_libraries(${target} INTERFACE "${_b2_lib}")
  target_compile_definitions(${target} INTERFACE ARBITER_HAVE_BOX2D3)
  arbiter_set_options(${target})
endfunction()
arbiter_add_box2d3_object(box2d3_peer peers/box2d3_peer.cc)
arbiter_add_box2d3_object(box2d3_stepper step/box2d3_stepper.cc)
message(STATUS "peer_bench and step_bench: Box2D v3 peer from ${_b2_include} and ${_b2_lib}")
