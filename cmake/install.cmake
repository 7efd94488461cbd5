# Install rules of vmgpu and the ctest that checks them (install_layout).
# Included at the end of the root CMakeLists.txt, once every area has defined its targets, so
# each rule below installs only what this tree builds today.

set(_vmgpu_incdir ${CMAKE_INSTALL_INCLUDEDIR}/vmgpu)
set(_vmgpu_expect "")  # files the install_layout test insists on, relative to the prefix

# Headers: all public ones land in include/vmgpu/, so core.h's #include "vmgpu_hal.h" resolves.
file(GLOB _vmgpu_public_headers ${CMAKE_SOURCE_DIR}/sw/include/vmgpu/*.h)
foreach(h ${CMAKE_SOURCE_DIR}/sw/hal/vmgpu_hal.h ${CMAKE_SOURCE_DIR}/sw/core/include/vmgpu/core.h)
  if(EXISTS ${h})
    list(APPEND _vmgpu_public_headers ${h})
  endif()
endforeach()
if(TARGET vmgpu_sim AND EXISTS ${CMAKE_SOURCE_DIR}/sim/vmgpu_sim.h)
  list(APPEND _vmgpu_public_headers ${CMAKE_SOURCE_DIR}/sim/vmgpu_sim.h)
endif()
install(FILES ${_vmgpu_public_headers} DESTINATION ${_vmgpu_incdir})
foreach(h ${_vmgpu_public_headers})
  get_filename_component(_name ${h} NAME)
  list(APPEND _vmgpu_expect ${_vmgpu_incdir}/${_name})
endforeach()

# Static libraries of the C driver, in link order (a library before the ones it uses).
set(VMGPU_PC_LIBS "")
set(_vmgpu_libs "")
foreach(t vmgpu_core vmgpu_hal vmgpu_sim)
  if(TARGET ${t})
    get_target_property(_type ${t} TYPE)
    if(_type STREQUAL "STATIC_LIBRARY")
      list(APPEND _vmgpu_libs ${t})
      string(REGEX REPLACE "^lib" "" _lname ${t})
      string(APPEND VMGPU_PC_LIBS " -l${_lname}")
      list(APPEND _vmgpu_expect ${CMAKE_INSTALL_LIBDIR}/lib${t}.a)
    endif()
  endif()
endforeach()
if(_vmgpu_libs)
  install(TARGETS ${_vmgpu_libs} ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
  # The libraries are static and partly C++ (the Verilator model, whose waveform writer uses
  # zlib), so a C program linking them needs these too.
  # The HAL's ftdi backend, when built, brings libftdi1 (sw/hal records its link flags).
  get_property(_vmgpu_hal_extra GLOBAL PROPERTY VMGPU_HAL_EXTRA_LIBS)
  set(VMGPU_PC_LIBS "-L\${libdir}${VMGPU_PC_LIBS} ${_vmgpu_hal_extra} -lstdc++ -lz -lpthread -lm")
endif()

# bench/CMakeLists.txt installs vmgpu-bench itself; the test only checks that it arrives.
if(TARGET vmgpu-bench)
  list(APPEND _vmgpu_expect ${CMAKE_INSTALL_BINDIR}/vmgpu-bench)
endif()

# sw/server installs the device server itself (DESIGN.md's install list).
if(TARGET vmgpud)
  list(APPEND _vmgpu_expect ${CMAKE_INSTALL_BINDIR}/vmgpud)
endif()

# Learners' tools (tools/): the page tables as text and SVG, and the translation quiz.
foreach(t vmgpu-pt vmgpu-quiz)
  if(TARGET ${t})
    install(TARGETS ${t})
    list(APPEND _vmgpu_expect ${CMAKE_INSTALL_BINDIR}/${t})
  endif()
endforeach()

# sw/cuda installs libcuda.so and cuda.h itself (DESIGN.md's install list); checked when built.
if(TARGET vmgpu_cuda)
  list(APPEND _vmgpu_expect ${CMAKE_INSTALL_LIBDIR}/libcuda.so ${CMAKE_INSTALL_LIBDIR}/libcuda.so.1)
  if(EXISTS ${CMAKE_SOURCE_DIR}/sw/include/cuda.h)
    list(APPEND _vmgpu_expect ${CMAKE_INSTALL_INCLUDEDIR}/cuda.h)
  endif()
endif()
if(TARGET vmgpu_opencl)
  list(APPEND _vmgpu_expect ${CMAKE_INSTALL_LIBDIR}/libvmgpu-opencl.so etc/OpenCL/vendors/vmgpu.icd)
endif()

# pkg-config file. `cmake --install --prefix P` chooses the prefix after configuring, so the
# prefix is filled in by an install-time step; everything else is filled in now.
set(VMGPU_PC_PREFIX "@VMGPU_PC_PREFIX@")
configure_file(${CMAKE_CURRENT_LIST_DIR}/vmgpu.pc.in ${CMAKE_BINARY_DIR}/vmgpu.pc.stage @ONLY)
install(CODE "
  set(VMGPU_PC_PREFIX \"\${CMAKE_INSTALL_PREFIX}\")
  configure_file(\"${CMAKE_BINARY_DIR}/vmgpu.pc.stage\" \"${CMAKE_BINARY_DIR}/vmgpu.pc\" @ONLY)
")
install(FILES ${CMAKE_BINARY_DIR}/vmgpu.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
list(APPEND _vmgpu_expect ${CMAKE_INSTALL_LIBDIR}/pkgconfig/vmgpu.pc)

if(BUILD_TESTING)
  add_test(NAME install_layout
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/tests/lint/check_install.py
                   --cmake ${CMAKE_COMMAND} --build ${CMAKE_BINARY_DIR}
                   --prefix ${CMAKE_BINARY_DIR}/install_layout_prefix
                   --cc ${CMAKE_C_COMPILER} --libdir ${CMAKE_INSTALL_LIBDIR}
                   --expect ${_vmgpu_expect})
  set_tests_properties(install_layout PROPERTIES LABELS install TIMEOUT 300)
endif()
