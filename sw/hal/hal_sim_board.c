/*
 * The "sim-board" backend: the driver starts vmgpu-sim-board (the Verilator model of the board's
 * top level, see vmgpu_sim_board.cpp) on the master side of a pseudo-terminal it creates, then
 * opens the pty's slave with the serial backend. From there on it is exactly the serial path:
 * termios, the bridge protocol, the board's UART and bridge RTL, bit by bit.
 *
 * The model is found at $VMGPU_SIM_BOARD_EXE, else in the build tree it was built in, else
 * installed beside vmgpu-bench, else on PATH.
 *
 * Time-outs: the "line" is the model's UART at the board's 3 Mbaud in model cycles (16.67 model
 * cycles a bit), so its real speed is the simulation's, far below 3 Mbaud and slower still on a
 * loaded machine: answers are given a generous wait (VMGPU_LINK_TIMEOUT_MS overrides it, as for
 * every link). The model stops with exit status 3 when the SDRAM chip model reports a violation.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bridge.h"
#include "hal_internal.h"

#ifdef VMGPU_HAL_HAVE_SIM_BOARD

typedef struct child {
    pid_t pid;
} child;

static void stop_child(void *user) {
    child *c = user;
    /* The pty's slave is closed by now, so the model is already on its way out; a signal
     * makes sure, and a bounded wait keeps close() from hanging on a stuck child. */
    int status;
    for (int i = 0; i < 100; ++i) {
        if (waitpid(c->pid, &status, WNOHANG) == c->pid) goto done;
        if (i == 10) kill(c->pid, SIGTERM);
        usleep(10000);
    }
    kill(c->pid, SIGKILL);
    waitpid(c->pid, &status, 0);
done:
    free(c);
}

static const char *find_model(char *buf, size_t n) {
    const char *env = getenv("VMGPU_SIM_BOARD_EXE");
    if (env && *env) return env;
    if (access(VMGPU_SIM_BOARD_BUILD_EXE, X_OK) == 0) return VMGPU_SIM_BOARD_BUILD_EXE;
    if (access(VMGPU_SIM_BOARD_INSTALL_EXE, X_OK) == 0) return VMGPU_SIM_BOARD_INSTALL_EXE;
    snprintf(buf, n, "vmgpu-sim-board");
    return buf;
}

vmgpu_hal *vmgpu_hal_sim_board_open(const vmgpu_hal_spec *spec, char *err, size_t errlen) {
    (void)spec;
    char exe_buf[64];
    const char *exe = find_model(exe_buf, sizeof exe_buf);
    int master = posix_openpt(O_RDWR | O_NOCTTY);
    char slave[128];
    if (master < 0 || grantpt(master) || unlockpt(master) ||
        ptsname_r(master, slave, sizeof slave)) {
        vmgpu_hal_set_error(err, errlen, "sim-board: cannot make a pseudo-terminal: %s",
                            strerror(errno));
        if (master >= 0) close(master);
        return NULL;
    }
    /* Held open until the serial path has its own descriptor, so that the model never sees a
     * pty nobody holds (reads would fail and it would take that as the driver gone). */
    int keeper = open(slave, O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (keeper < 0) {
        vmgpu_hal_set_error(err, errlen, "sim-board: cannot open %s: %s", slave, strerror(errno));
        close(master);
        return NULL;
    }
    char fdarg[16];
    snprintf(fdarg, sizeof fdarg, "%d", master);
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        vmgpu_hal_set_error(err, errlen, "sim-board: fork: %s", strerror(errno));
        close(keeper);
        close(master);
        return NULL;
    }
    if (pid == 0) {
        /* Only async-signal-safe calls here: the driver may have threads. */
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (getppid() != parent) _exit(127);
        char *argv[] = {(char *)exe, (char *)"--fd", fdarg, NULL};
        execvp(exe, argv);
        static const char msg[] = "vmgpu: sim-board: cannot run the board model (vmgpu-sim-board); "
                                  "set VMGPU_SIM_BOARD_EXE\n";
        ssize_t ignored = write(2, msg, sizeof msg - 1);
        (void)ignored;
        _exit(127);
    }
    close(master);
    child *c = calloc(1, sizeof *c);
    if (!c) {
        close(keeper);
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        vmgpu_hal_set_error(err, errlen, "sim-board: out of memory");
        return NULL;
    }
    c->pid = pid;
    /* Starting the model takes a moment: opening keeps pinging for up to 20 s. */
    bridge_config cfg = {.line_bps = 20000, .extra_ms = 1000, .tries = 6, .open_ms = 20000};
    char why[512] = "";
    vmgpu_hal *h = vmgpu_hal_serial_open_path("sim-board", "sim-board", slave,
                                              VMGPU_HAL_DEFAULT_BAUD, &cfg, why, sizeof why);
    close(keeper);
    if (!h) {
        int status;
        if (waitpid(pid, &status, WNOHANG) == pid)
            vmgpu_hal_set_error(err, errlen, "sim-board: the board model %s exited (%s %d) "
                                "before answering: %s", exe,
                                WIFEXITED(status) ? "status" : "signal",
                                WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status), why);
        else
            vmgpu_hal_set_error(err, errlen, "sim-board: %s", why);
        kill(pid, SIGTERM);
        stop_child(c);
        return NULL;
    }
    bridge_set_on_close(h, stop_child, c);
    return h;
}

#else

vmgpu_hal *vmgpu_hal_sim_board_open(const vmgpu_hal_spec *spec, char *err, size_t errlen) {
    (void)spec;
    vmgpu_hal_set_error(err, errlen,
                        "the sim-board backend is not in this build: the board RTL "
                        "(board/ulx3s/ulx3s_top.v, uart_bridge.v) or vmgpu_top's RTL was "
                        "incomplete when cmake configured it (re-run cmake)");
    return NULL;
}

#endif
