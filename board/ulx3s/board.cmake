# The ULX3S board's top-level parameters, in one place for everything that builds ulx3s_top:
# the bitstream flow (board/ulx3s/CMakeLists.txt), sim-board (sw/hal: vmgpu-sim-board) and the
# check that they agree (ctest sim_board_params). Included by the top-level CMakeLists.txt.
#
# sim-board is the bitstream's top level with the bitstream's parameters: it gets exactly the
# list the flow passes for VMGPU_ECP5_PART (the part on the board), through sim_board_top.v,
# which gen_sim_board_top.py writes from ulx3s_top.v at configure time.
set(VMGPU_ECP5_PART 85F CACHE STRING "ECP5 part of the ULX3S: 12F, 25F, 45F or 85F (package CABGA381)")
set_property(CACHE VMGPU_ECP5_PART PROPERTY STRINGS 12F 25F 45F 85F)
set(VMGPU_BOARD_SDRAM_BYTES 33554432 CACHE STRING
    "The board's SDRAM, its device memory: 33554432 (32 MB: IS42S16160G, MT48LC16M16A2) or 67108864 (64 MB: AS4C32M16SB)")
set_property(CACHE VMGPU_BOARD_SDRAM_BYTES PROPERTY STRINGS 33554432 67108864)
if(NOT VMGPU_BOARD_SDRAM_BYTES MATCHES "^(33554432|67108864)$")
  message(FATAL_ERROR "VMGPU_BOARD_SDRAM_BYTES must be 33554432 or 67108864 (got '${VMGPU_BOARD_SDRAM_BYTES}')")
endif()
# VMGPU_ECP5_PARAMS_<part> (top-level parameters, NAME=VALUE) trim or grow a part's design, e.g.
# GFX_ENGINE=0 TLB_ENTRIES=8 for a 25F that needs room for something else. The 85F carries the
# SIMT unit, 4 lanes x 8 warps, integer (RV32IMA; docs/cores.md); the 25F has no room for it.
# -DVMGPU_ECP5_PARAMS_85F="" builds the 85F without it (place and route about 10 minutes
# instead of 25). sim-board follows.
set(VMGPU_ECP5_PARAMS_25F "" CACHE STRING "ulx3s_top parameter overrides for the 25F (NAME=VALUE;...)")
set(VMGPU_ECP5_PARAMS_85F "SIMT_LANES=4;SIMT_WARPS=8" CACHE STRING
    "ulx3s_top parameter overrides for the 85F (NAME=VALUE;...)")

# vmgpu_board_params(<out var> <part>): the ulx3s_top parameters the bitstream of <part> is built
# with (NAME=VALUE list); every other parameter keeps ulx3s_top.v's default. The clock and the
# line rate are named so that the driver's figures (VMGPU_SIM_BOARD_CYCLES_PER_BIT) follow them.
function(vmgpu_board_params var part)
  set(p CLK_HZ=50000000 BAUD=3000000 MEM_BYTES=${VMGPU_BOARD_SDRAM_BYTES} ${VMGPU_ECP5_PARAMS_${part}})
  set(${var} ${p} PARENT_SCOPE)
endfunction()

# vmgpu_board_param_value(<out var> <list> <NAME>): the last NAME=VALUE of <list>, else empty.
function(vmgpu_board_param_value var list name)
  set(v "")
  foreach(p ${list})
    if(p MATCHES "^${name}=(.*)$")
      set(v ${CMAKE_MATCH_1})
    endif()
  endforeach()
  set(${var} ${v} PARENT_SCOPE)
endfunction()

# vmgpu_board_simt_lanes(<out var>): the lanes of the SIMT unit the board's bitstream
# (VMGPU_ECP5_PART) is built with, 0 without one (ulx3s_top.v's default): the tests that need
# the unit over sim-board are registered by it.
function(vmgpu_board_simt_lanes var)
  vmgpu_board_params(p ${VMGPU_ECP5_PART})
  vmgpu_board_param_value(v "${p}" SIMT_LANES)
  if(v STREQUAL "")
    set(v 0)
  endif()
  set(${var} ${v} PARENT_SCOPE)
endfunction()

# vmgpu_sdram_sim_params(<out var>): the bitstream's parameters (VMGPU_ECP5_PART) that
# sim/vmgpu_sdram_top.v has too, as NAME=VALUE: the in-process model's SDRAM configuration is
# built with them (-G) so that it is the board's device (ctest sim_sdram_params checks it).
function(vmgpu_sdram_sim_params var)
  file(STRINGS ${CMAKE_SOURCE_DIR}/sim/vmgpu_sdram_top.v decls REGEX "^ *parameter integer [A-Z_0-9]+ *=")
  set(names "")
  foreach(d ${decls})
    string(REGEX REPLACE "^ *parameter integer ([A-Z_0-9]+).*" "\\1" n "${d}")
    list(APPEND names ${n})
  endforeach()
  vmgpu_board_params(p ${VMGPU_ECP5_PART})
  set(out "")
  foreach(kv ${p})
    string(REGEX REPLACE "=.*" "" n "${kv}")
    if(n IN_LIST names)
      list(APPEND out ${kv})
    endif()
  endforeach()
  set(${var} ${out} PARENT_SCOPE)
endfunction()

# sim-board's Verilator top (sim_board_top.v) and the list of its parameter names
# (sim_board_params.h), from ulx3s_top.v; re-made whenever ulx3s_top.v changes.
set(VMGPU_SIM_BOARD_GEN_DIR ${CMAKE_BINARY_DIR}/board/ulx3s/sim_board)
set(VMGPU_SIM_BOARD_TOP_V ${VMGPU_SIM_BOARD_GEN_DIR}/sim_board_top.v)
file(MAKE_DIRECTORY ${VMGPU_SIM_BOARD_GEN_DIR})
execute_process(COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/board/ulx3s/gen_sim_board_top.py
                        ${CMAKE_SOURCE_DIR}/board/ulx3s/ulx3s_top.v ${VMGPU_SIM_BOARD_TOP_V}
                        ${VMGPU_SIM_BOARD_GEN_DIR}/sim_board_params.h
                RESULT_VARIABLE _gen_rc)
if(NOT _gen_rc EQUAL 0)
  message(FATAL_ERROR "board/ulx3s/gen_sim_board_top.py failed (${_gen_rc})")
endif()
set_property(DIRECTORY ${CMAKE_SOURCE_DIR} APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
             ${CMAKE_SOURCE_DIR}/board/ulx3s/ulx3s_top.v ${CMAKE_SOURCE_DIR}/board/ulx3s/gen_sim_board_top.py)

# Every Verilog file of the board's top level besides rtl/vmgpu.f's.
set(VMGPU_BOARD_SOURCES
    ${CMAKE_SOURCE_DIR}/rtl/sdram_ctrl.v ${CMAKE_SOURCE_DIR}/rtl/vmgpu_sdram_device.v
    ${CMAKE_SOURCE_DIR}/board/ulx3s/sdram_phy.v
    ${CMAKE_SOURCE_DIR}/board/ulx3s/board_pll.v ${CMAKE_SOURCE_DIR}/board/ulx3s/crc32.v
    ${CMAKE_SOURCE_DIR}/board/ulx3s/uart_rx.v ${CMAKE_SOURCE_DIR}/board/ulx3s/uart_tx.v
    ${CMAKE_SOURCE_DIR}/board/ulx3s/uart_bridge.v ${CMAKE_SOURCE_DIR}/board/ulx3s/ulx3s_top.v)
