# The gate-level check (docs/gatelevel.md): the board top synthesised by Yosys synth_ecp5 exactly
# as the bitstream flow does it (tools/ecp5_flow.py with the flow's parameters, --synth-only
# --netlist), the netlist simulated in Verilator with Yosys's ECP5 cell models (plus
# ecp5_sim_extra.v for the cells Yosys has no behaviour for) inside sim-board's harness, with the
# SDRAM chip model on its pins, and vmgpu-board-check --quick run over it unchanged: link,
# registers, SDRAM patterns, DMA through the MMU, a deliberate fault.
#
# Included by board/ulx3s/CMakeLists.txt (whose ecp5_flow_command() and file lists it uses).
#   cmake --build build --target gatelevel-85f      # build/board/ulx3s/gatelevel/85f/vmgpu-sim-board-gl
#   VMGPU_DEVICE=sim-board VMGPU_SIM_BOARD_EXE=build/board/ulx3s/gatelevel/85f/vmgpu-sim-board-gl \
#     build/sw/tools/vmgpu-board-check --quick
#
# Nothing here is part of the default build. The ctests (label gatelevel) are registered with the
# bitstream's (-DVMGPU_BITSTREAM_TESTS=ON, as scripts/test.sh configures) or on their own with
# -DVMGPU_GATELEVEL_TESTS=ON: gatelevel_model_<part> synthesises and verilates (a fixture: a
# few minutes, beside other tests), gatelevel_params_<part> checks
# the model's parameters against the flow's, gatelevel_board_check_<part> is the smoke test.
# VMGPU_GATELEVEL_TESTS and VMGPU_GATELEVEL_PARTS are defined in ../CMakeLists.txt, before the
# bitstream ctests, which share their synthesis with this check where both are registered.
find_program(VMGPU_VERILATOR_EXE verilator HINTS $ENV{VERILATOR_ROOT}/bin)

foreach(part ${VMGPU_GATELEVEL_PARTS})
  string(TOLOWER ${part} lpart)
  set(_gl_dir ${CMAKE_CURRENT_BINARY_DIR}/gatelevel/${lpart})
  set(_gl_exe ${_gl_dir}/vmgpu-sim-board-gl)
  # The bitstream flow's own command line for this part (parameters, sources, synthesis
  # variant: the 25F's --no-sync-reset-ff), stopped after Yosys, plus the netlist. Where the
  # part's bitstream is a ctest too, that test's directory: its run writes the same netlist
  # (bitstream_<part> with --netlist, the fixture bitstream_synth_<part>), which is then newer
  # than every input, so the command below finds it up to date and Yosys runs once.
  set(_gl_synth ${_gl_dir}/synth)
  set(_gl_shared OFF)
  if(VMGPU_BITSTREAM_TESTS AND part IN_LIST VMGPU_BITSTREAM_PARTS)
    set(_gl_synth ${CMAKE_CURRENT_BINARY_DIR}/ctest-bitstream-${part})
    set(_gl_shared ON)
  endif()
  ecp5_flow_command(_gl_flow ${part} ${_gl_synth})
  add_custom_command(OUTPUT ${_gl_synth}/ulx3s_top_netlist.v
                     COMMAND ${_gl_flow} --synth-only --netlist ulx3s_top_netlist.v
                     DEPENDS ${_ulx3s_sources} ${_rtl_deps} ${CMAKE_SOURCE_DIR}/tools/ecp5_flow.py
                             ${CMAKE_SOURCE_DIR}/rtl/vmgpu.f
                     COMMENT "Gate-level check: synth_ecp5 of ulx3s_top for LFE5U-${part}"
                     VERBATIM)
  add_custom_command(OUTPUT ${_gl_exe}
                     COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/build_gatelevel_model.py
                             --synth-dir ${_gl_synth} --out-dir ${_gl_dir} --root ${CMAKE_SOURCE_DIR}
                             --params-h-dir ${VMGPU_SIM_BOARD_GEN_DIR} --verilator ${VMGPU_VERILATOR_EXE}
                     DEPENDS ${_gl_synth}/ulx3s_top_netlist.v
                             ${CMAKE_CURRENT_LIST_DIR}/build_gatelevel_model.py
                             ${CMAKE_CURRENT_LIST_DIR}/gen_gatelevel_top.py
                             ${CMAKE_CURRENT_LIST_DIR}/ecp5_sim_extra.v
                             ${CMAKE_CURRENT_SOURCE_DIR}/gen_sim_board_top.py
                             ${CMAKE_SOURCE_DIR}/sw/hal/vmgpu_sim_board.cpp
                             ${CMAKE_SOURCE_DIR}/sim/sdram_chip.cpp ${CMAKE_SOURCE_DIR}/sim/sdram_chip.h
                     COMMENT "Gate-level check: verilating the LFE5U-${part} netlist with the ECP5 cell models"
                     VERBATIM)
  add_custom_target(gatelevel-${lpart} DEPENDS ${_gl_exe})

  if(VMGPU_GATELEVEL_TESTS AND BUILD_TESTING AND TARGET vmgpu-board-check)
    add_test(NAME gatelevel_model_${lpart}
             COMMAND ${CMAKE_COMMAND} --build ${CMAKE_BINARY_DIR} --target gatelevel-${lpart})
    set_tests_properties(gatelevel_model_${lpart} PROPERTIES LABELS "gatelevel;board" TIMEOUT 2400
                         COST 900 FIXTURES_SETUP gatelevel_${lpart})
    if(_gl_shared)
      set_tests_properties(gatelevel_model_${lpart} PROPERTIES FIXTURES_REQUIRED bitstream_synth_${lpart})
    endif()
    add_test(NAME gatelevel_params_${lpart}
             COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/check_sim_board_params.py
                     --top ${CMAKE_CURRENT_SOURCE_DIR}/ulx3s_top.v --model ${_gl_exe} -- ${_gl_flow})
    set_tests_properties(gatelevel_params_${lpart} PROPERTIES LABELS "gatelevel;board" TIMEOUT 120
                         FIXTURES_REQUIRED gatelevel_${lpart})
    # The smoke test. The link's time-outs are wall-clock and the netlist runs a few thousand
    # times slower than the line's 3 Mbaud: answers get minutes (VMGPU_LINK_TIMEOUT_MS), far
    # more than one takes beside another test on the second core (it used to run alone, leaving
    # that core idle for five minutes). VMGPU_SIM_BOARD_STATS prints the simulation's speed.
    add_test(NAME gatelevel_board_check_${lpart} COMMAND vmgpu-board-check --quick)
    set_tests_properties(gatelevel_board_check_${lpart} PROPERTIES LABELS "gatelevel;board" TIMEOUT 1800
                         FIXTURES_REQUIRED gatelevel_${lpart}
                         ENVIRONMENT "VMGPU_DEVICE=sim-board;VMGPU_SIM_BOARD_EXE=${_gl_exe};VMGPU_TRACE=0;VMGPU_LINK_TIMEOUT_MS=300000;VMGPU_SIM_BOARD_STATS=1"
                         PASS_REGULAR_EXPRESSION "verdict: PASSED, 5 of 5 steps"
                         FAIL_REGULAR_EXPRESSION "FAIL")
  endif()
endforeach()

# The cell models themselves (ecp5_sim_extra.v) against what Lattice documents and Yosys's
# mappings expect: each block-RAM mode the design uses, the DDR output, the multiplier, the lock.
if(VMGPU_GATELEVEL_TESTS AND BUILD_TESTING)
  add_executable(gatelevel_cells_tb ${CMAKE_CURRENT_LIST_DIR}/test/cells_tb.cpp)
  verilate(gatelevel_cells_tb SOURCES ${CMAKE_CURRENT_LIST_DIR}/test/cells_tb.v
           ${CMAKE_CURRENT_LIST_DIR}/ecp5_sim_extra.v TOP_MODULE cells_tb PREFIX Vcells_tb
           VERILATOR_ARGS -Wno-fatal -Wno-lint -Wno-style --x-assign unique --x-initial unique)
  add_test(NAME gatelevel_cells COMMAND gatelevel_cells_tb)
  set_tests_properties(gatelevel_cells PROPERTIES LABELS "gatelevel;board" TIMEOUT 60
                       PASS_REGULAR_EXPRESSION "cells_tb: PASS, 0 failures")
endif()
