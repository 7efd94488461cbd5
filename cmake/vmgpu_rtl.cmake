# Helpers for Verilator-built RTL tests.
#
# vmgpu_rtl_test(<name> TOP <module> TB <testbench.cpp> [SOURCES <rtl files>...]
#                [PARAMS NAME=VALUE...] [ARGS <test args>...])
#
# Verilates <module> (from SOURCES, default: every file of rtl/vmgpu.f) with the given
# parameter overrides into the executable <name> built from TB, and registers it with ctest
# under the label "rtl". The model class is V<module>; tests/rtl/common is on the include path.

file(STRINGS ${VMGPU_RTL_DIR}/vmgpu.f _vmgpu_f_lines REGEX "^[^#+/-].*\\.s?v$")
set(VMGPU_RTL_SOURCES "")
foreach(line ${_vmgpu_f_lines})
  string(STRIP "${line}" line)
  list(APPEND VMGPU_RTL_SOURCES ${CMAKE_SOURCE_DIR}/${line})
endforeach()

set(VMGPU_VERILATOR_ARGS -Wall -Wno-fatal --x-assign fast --x-initial fast -O3
    -I${VMGPU_RTL_DIR}/generated)

# Parameter overrides of vmgpu_top for the simulated device and for every RTL test verilating
# vmgpu_top. Empty by default. "MEM_RSP_REG=1;MEM_ARB_REG=1" gives the board's fabric timing,
# to run the whole test suite against it (tests that check exact cycle counts then fail).
set(VMGPU_TOP_PARAMS "" CACHE STRING "vmgpu_top parameter overrides (NAME=VALUE;...) for the sim and RTL tests")
set(VMGPU_TOP_GARGS "")
foreach(p ${VMGPU_TOP_PARAMS})
  list(APPEND VMGPU_TOP_GARGS -G${p})
endforeach()

function(vmgpu_rtl_test name)
  cmake_parse_arguments(T "" "TOP;TB" "SOURCES;PARAMS;ARGS" ${ARGN})
  if(NOT T_SOURCES)
    set(T_SOURCES ${VMGPU_RTL_SOURCES})
  endif()
  set(gargs "")
  if(T_TOP STREQUAL "vmgpu_top")
    set(gargs ${VMGPU_TOP_GARGS})
  endif()
  foreach(p ${T_PARAMS})
    list(APPEND gargs -G${p})
  endforeach()
  add_executable(${name} ${T_TB})
  target_include_directories(${name} PRIVATE ${CMAKE_SOURCE_DIR}/tests/rtl/common
                                             ${CMAKE_SOURCE_DIR}/sw/include)
  verilate(${name} SOURCES ${T_SOURCES} TOP_MODULE ${T_TOP} PREFIX V${T_TOP}
           VERILATOR_ARGS ${VMGPU_VERILATOR_ARGS} ${gargs})
  add_test(NAME ${name} COMMAND ${name} ${T_ARGS})
  set_tests_properties(${name} PROPERTIES LABELS rtl TIMEOUT 600)
endfunction()
