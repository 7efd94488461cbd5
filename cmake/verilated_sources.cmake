# Compile flags for the C++ Verilator writes from the RTL (the files of each V<prefix>.dir/ that
# verilate() adds to a target), set once for the whole tree after every directory is configured.
# Those files are over 80 MB in all (the simulated device's two models, 47 MB, and the SIMT
# unit's test models most of the rest), and compiling them is most of the build.
#
# - The __Slow files (constructors, initial blocks, the first settle, a trace's first full dump)
#   run once per model instance; they are compiled at -O0, as Verilator's own makefiles do
#   (OPT_SLOW empty), not at the build type's -O3. They are 37 of the 82 MB, and -O0 compiles
#   them several times faster (a 1.5 MB file of the SIMT unit's model: 2.8 s against 19 s).
# - The sanitizer configuration (-DVMGPU_SANITIZE=ON) compiles every generated file without the
#   sanitizers. It touches only the model's own fixed-size members, which ASan has nothing to
#   check in; instrumented, one 1.2 MB file of the device's model took 42 s to compile against
#   8 s, some 14 minutes of the test run on two cores. What calls into the models (sim/*.cpp,
#   sw/hal, the harnesses, Verilator's runtime verilated*.cpp) stays instrumented, so a bad
#   pointer or index from vmgpu's code is still caught where it is made. There the per-cycle
#   files are compiled at -O1 instead of the models' -O3: the sanitize tests run few model
#   cycles, and the build is that configuration's run time.
function(vmgpu_verilated_sources_flags dir)
  get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
  foreach(t ${targets})
    get_target_property(type ${t} TYPE)
    if(type STREQUAL "INTERFACE_LIBRARY" OR type STREQUAL "UTILITY")
      continue()
    endif()
    get_target_property(srcs ${t} SOURCES)
    set(gen "")
    set(slow "")
    foreach(s ${srcs})
      if(s MATCHES "/CMakeFiles/[^/]+\\.dir/V[^/]+\\.dir/[^/]+\\.cpp$")
        list(APPEND gen ${s})
        if(s MATCHES "__Slow\\.cpp$")
          list(APPEND slow ${s})
        endif()
      endif()
    endforeach()
    if(slow)
      set_property(SOURCE ${slow} TARGET_DIRECTORY ${t} APPEND_STRING PROPERTY COMPILE_FLAGS " -O0")
    endif()
    if(gen AND VMGPU_SANITIZE)
      set_property(SOURCE ${gen} TARGET_DIRECTORY ${t} APPEND_STRING PROPERTY COMPILE_FLAGS
                   " -fno-sanitize=all")
      set(fast ${gen})
      if(slow)
        list(REMOVE_ITEM fast ${slow})
      endif()
      if(fast)
        set_property(SOURCE ${fast} TARGET_DIRECTORY ${t} APPEND_STRING PROPERTY COMPILE_FLAGS " -O1")
      endif()
    endif()
  endforeach()
  get_property(subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
  foreach(d ${subdirs})
    vmgpu_verilated_sources_flags(${d})
  endforeach()
endfunction()
cmake_language(DEFER DIRECTORY ${CMAKE_SOURCE_DIR} CALL vmgpu_verilated_sources_flags
               ${CMAKE_SOURCE_DIR})
