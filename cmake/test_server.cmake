# Every test gets a device server of its own.
#
# The device is reached through the per-user device server by default (docs/server.md), so two
# tests running at once would otherwise share one device: each would see the other's allocations
# and a fresh device's addresses would not be fresh. Every add_test of the project is followed,
# at the end of its directory (after its set_tests_properties), by VMGPU_SERVER_SOCKET naming a
# socket of its own under the build tree; the first process of the test starts that server and
# the test's other processes (a fork, a second program) reach the same one. Tests that name a
# socket themselves (the server suite) keep theirs.
set(VMGPU_TEST_SOCKET_DIR ${CMAKE_BINARY_DIR}/srv)
file(MAKE_DIRECTORY ${VMGPU_TEST_SOCKET_DIR})

function(_vmgpu_test_own_server name)
  get_test_property(${name} ENVIRONMENT env)
  if(env MATCHES "VMGPU_SERVER_SOCKET=")
    return()
  endif()
  set(sock ${VMGPU_TEST_SOCKET_DIR}/${name}.sock)
  string(LENGTH "${sock}" len)
  if(len GREATER 100)  # sun_path holds 108 bytes with its NUL: name the socket by a hash then
    string(MD5 h "${name}")
    string(SUBSTRING "${h}" 0 16 h)
    set(sock ${VMGPU_TEST_SOCKET_DIR}/${h}.sock)
  endif()
  set_property(TEST ${name} APPEND PROPERTY ENVIRONMENT "VMGPU_SERVER_SOCKET=${sock}")
endfunction()

function(add_test)
  _add_test(${ARGV})
  if(ARGV0 STREQUAL "NAME")
    # (a deferred call's arguments are expanded when it runs: put the name in now)
    cmake_language(EVAL CODE "cmake_language(DEFER CALL _vmgpu_test_own_server [==[${ARGV1}]==])")
  endif()
endfunction()
