/* Checks for the C tests of tests/hal: count, print each failure with where and why, go on. */
#ifndef HAL_CHECK_H
#define HAL_CHECK_H
#include <stdio.h>
#include <stdlib.h>

static int hal_checks, hal_failures;

#define CHECK(cond, ...)                                                   \
    do {                                                                   \
        ++hal_checks;                                                      \
        if (!(cond)) {                                                     \
            ++hal_failures;                                                \
            printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);         \
            printf(__VA_ARGS__);                                           \
            printf("\n");                                                  \
        }                                                                  \
    } while (0)

/* Stop the test when going on would only pile up noise (e.g. no device). */
#define REQUIRE(cond, ...)                                                 \
    do {                                                                   \
        CHECK(cond, __VA_ARGS__);                                          \
        if (!(cond)) return hal_summary(__FILE__);                         \
    } while (0)

static int hal_summary(const char *name) {
    printf("%s: %d checks, %d failures\n", name, hal_checks, hal_failures);
    return hal_failures ? EXIT_FAILURE : EXIT_SUCCESS;
}
#endif
