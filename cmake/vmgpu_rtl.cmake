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

function(vmgpu_rtl_test name)
  cmake_parse_arguments(T "" "TOP;TB" "SOURCES;PARAMS;ARGS" ${ARGN})
  if(NOT T_SOURCES)
    set(T_SOURCES ${VMGPU_RTL_SOURCES})
  endif()
  set(gargs "")
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
