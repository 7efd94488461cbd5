# -DVMGPU_SANITIZE=ON: the sanitizer configuration. Everything this build compiles (the driver in
# sw/, the tests, the fuzzers, the models' C++ harnesses and Verilator's runtime) is instrumented
# with AddressSanitizer and UndefinedBehaviorSanitizer; the C++ Verilator generates for each
# model is not (cmake/verilated_sources.cmake says why). A finding stops the program: ASan always,
# UBSan through UBSAN_OPTIONS=halt_on_error=1, which every sanitize test sets (UBSan is left
# recoverable on purpose: a suppressed report must not stop the program, and the abort-on-error
# build of UBSan aborts even for suppressed ones). scripts/test.sh builds it in build-sanitize/ and runs
# the tests labelled `sanitize` (tests/sanitize/CMakeLists.txt lists them; target
# vmgpu_sanitize_tests builds only what they need). Third-party findings are suppressed by
# tests/sanitize/ubsan.supp and lsan.supp, each entry with its reason.
option(VMGPU_SANITIZE "Build with AddressSanitizer + UndefinedBehaviorSanitizer (tests labelled sanitize)" OFF)
if(VMGPU_SANITIZE)
  if(NOT CMAKE_C_COMPILER_ID MATCHES "GNU|Clang")
    message(FATAL_ERROR "VMGPU_SANITIZE needs GCC or Clang (-fsanitize=address,undefined)")
  endif()
  # Frame pointers for the reports' stack traces.
  set(VMGPU_SANITIZE_FLAGS -fsanitize=address,undefined -fno-omit-frame-pointer)
  add_compile_options(${VMGPU_SANITIZE_FLAGS})
  add_link_options(-fsanitize=address,undefined)
  message(STATUS "vmgpu: sanitizer build (ASan + UBSan); run: ctest -L sanitize")
endif()
