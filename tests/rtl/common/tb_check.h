// Shared helpers for vmgpu's Verilator testbenches: checks that count failures and a summary
// that turns them into the exit status.
#pragma once
#include <cstdio>
#include <cstdlib>

namespace tb {
inline int &failures() { static int n = 0; return n; }
inline int &checks() { static int n = 0; return n; }
inline int summary(const char *name) {
  std::printf("%s: %d checks, %d failures\n", name, checks(), failures());
  return failures() ? EXIT_FAILURE : EXIT_SUCCESS;
}
}  // namespace tb

// CHECK(cond, fmt, ...): count a check; on failure print where and why, and go on.
#define CHECK(cond, ...)                                                        \
  do {                                                                          \
    ++tb::checks();                                                             \
    if (!(cond)) {                                                              \
      ++tb::failures();                                                         \
      std::printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);               \
      std::printf(__VA_ARGS__);                                                 \
      std::printf("\n");                                                        \
    }                                                                           \
  } while (0)
