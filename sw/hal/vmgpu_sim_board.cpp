/*
 * vmgpu-sim-board: the Verilator model of the board's top level (board/ulx3s/ulx3s_top.v) behind
 * a pseudo-terminal. Every byte that arrives on the pty is sent into the model's receive pin bit
 * by bit (start bit, 8 data bits LSB first, stop bit), and the model's transmit pin is decoded
 * the same way back into bytes for the pty. So the driver on the other side runs its ordinary
 * serial code (termios, the bridge protocol) against the exact board RTL, UART included.
 *
 * Why a separate program and not a library inside the driver: the board model is a second
 * Verilator build of vmgpu_top plus the bridge; linking two Verilator models (and two copies of
 * the Verilator runtime) into libcuda.so would bloat every front end for the few runs that want
 * it, and a process on the other end of a pty is what a board on a cable is: it runs on its own
 * clock, can be killed, and cannot corrupt the driver's memory.
 *
 * Usage:
 *   vmgpu-sim-board --fd N     the driver's mode: N is the pty master it created (inherited);
 *                              exits when the driver closes the pty's other side
 *   vmgpu-sim-board            standalone: makes its own pty, prints the slave path, and runs
 *                              until killed (VMGPU_DEVICE=serial:<path> then reaches it)
 *
 * The model's clock runs freely while anything happens on the line or the device is busy. After
 * a long quiet spell with the device idle it sleeps in poll() until the next byte, so an idle
 * board costs no CPU (its cycle counter then pauses, as a simulation may).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <termios.h>
#include <unistd.h>

#include <memory>

#include "Vulx3s_top.h"
#include "verilated.h"

#ifndef SIM_BOARD_DIV
#error "SIM_BOARD_DIV (model clock cycles per UART bit) must be defined by the build"
#endif

namespace {

constexpr unsigned kDiv = SIM_BOARD_DIV;
// Cycles of silence (no byte either way, device idle, no host request waiting) before the
// model sleeps: long past any frame the bridge is still executing or answering.
constexpr uint64_t kQuietCycles = 200000;
// How often the pty is polled while running (cycles): one byte takes 10 * kDiv cycles.
constexpr unsigned kPollEvery = 8 * kDiv;

volatile sig_atomic_t g_stop = 0;
void on_signal(int) { g_stop = 1; }

struct Link {
    int fd;
    bool standalone;
    uint8_t in[4096];
    size_t in_len = 0, in_pos = 0;
    uint8_t out[4096];
    size_t out_len = 0;

    // Returns false when the driver has gone (its side of the pty closed).
    bool fill(int timeout_ms) {
        if (in_pos < in_len) return true;
        in_pos = in_len = 0;
        struct pollfd p = {fd, POLLIN, 0};
        int r = poll(&p, 1, timeout_ms);
        if (r <= 0) return true;
        ssize_t k = read(fd, in, sizeof in);
        if (k > 0) {
            in_len = (size_t)k;
            return true;
        }
        if (k < 0 && (errno == EAGAIN || errno == EINTR)) return true;
        // EIO: no process holds the slave open. Standalone waits for the next user.
        if (standalone) {
            usleep(20000);
            return true;
        }
        return false;
    }
    bool flush() {
        size_t done = 0;
        while (done < out_len) {
            ssize_t k = write(fd, out + done, out_len - done);
            if (k < 0) {
                if (errno == EINTR) continue;
                if (errno == EAGAIN) {
                    struct pollfd p = {fd, POLLOUT, 0};
                    poll(&p, 1, 10);
                    continue;
                }
                return standalone;  // the driver has gone
            }
            done += (size_t)k;
        }
        out_len = 0;
        return true;
    }
};

}  // namespace

int main(int argc, char **argv) {
    int fd = -1;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--fd") && i + 1 < argc) {
            fd = atoi(argv[++i]);
        } else {
            fprintf(stderr, "usage: %s [--fd N]\n", argv[0]);
            return 2;
        }
    }
    Link link;
    link.standalone = fd < 0;
    int keep_slave = -1;
    if (link.standalone) {
        fd = posix_openpt(O_RDWR | O_NOCTTY);
        if (fd < 0 || grantpt(fd) || unlockpt(fd)) {
            perror("vmgpu-sim-board: posix_openpt");
            return 1;
        }
        const char *name = ptsname(fd);
        // Hold the slave open so that reads do not fail with EIO between users, and make it
        // raw at once so nothing the model sends is echoed or rewritten.
        keep_slave = open(name, O_RDWR | O_NOCTTY);
        struct termios t;
        if (keep_slave >= 0 && tcgetattr(keep_slave, &t) == 0) {
            cfmakeraw(&t);
            tcsetattr(keep_slave, TCSANOW, &t);
        }
        printf("%s\n", name);
        fflush(stdout);
    } else {
        prctl(PR_SET_PDEATHSIG, SIGTERM);  // never outlive the driver
    }
    link.fd = fd;
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    signal(SIGTERM, on_signal);
    signal(SIGINT, on_signal);
    signal(SIGPIPE, SIG_IGN);

    auto ctx = std::make_unique<VerilatedContext>();
    ctx->commandArgs(1, argv);
    auto top = std::make_unique<Vulx3s_top>(ctx.get());
    top->btn = 1;  // the PWR button up: reset follows the PLL's lock
    top->ftdi_txd = 1;
    top->clk_25mhz = 0;
    top->eval();

    // Into the model: the bits of the byte being sent, one every kDiv cycles.
    unsigned rx_bit = 10, rx_phase = 0;  // rx_bit 10: idle
    uint16_t rx_shift = 0;
    // Out of the model: a decoder sampling mid-bit after the falling edge of a start bit.
    bool tx_busy = false;
    unsigned tx_count = 0, tx_bit = 0;
    uint8_t tx_byte = 0;
    uint64_t cycle = 0, quiet = 0;

    while (!g_stop) {
        // Bytes that come while the board is still in reset would be lost: hold them.
        if (rx_bit == 10 && cycle >= 64 && link.in_pos < link.in_len) {
            // start bit (0), 8 data bits, stop bit (1): shifted out LSB first
            rx_shift = (uint16_t)(0x200u | (unsigned)link.in[link.in_pos++] << 1);
            rx_bit = 0;
            rx_phase = 0;
        }
        top->ftdi_txd = rx_bit < 10 ? (rx_shift >> rx_bit) & 1u : 1u;
        top->clk_25mhz = 1;
        top->eval();
        top->clk_25mhz = 0;
        top->eval();
        ++cycle;
        if (rx_bit < 10 && ++rx_phase == kDiv) {
            rx_phase = 0;
            ++rx_bit;
        }
        const bool line = top->ftdi_rxd;
        if (!tx_busy) {
            if (!line) {
                tx_busy = true;
                tx_count = 0;
                tx_bit = 0;
                tx_byte = 0;
            }
        } else if (++tx_count == kDiv / 2 + tx_bit * kDiv) {
            if (tx_bit == 0 && line) {
                tx_busy = false;  // a glitch, not a start bit
            } else if (tx_bit >= 1 && tx_bit <= 8) {
                tx_byte = (uint8_t)(tx_byte | (line ? 1u : 0u) << (tx_bit - 1));
            } else if (tx_bit == 9) {
                tx_busy = false;
                if (line) {  // a good stop bit
                    link.out[link.out_len++] = tx_byte;
                    if (link.out_len == sizeof link.out && !link.flush()) break;
                }
            }
            ++tx_bit;
        }

        const bool active = rx_bit < 10 || tx_busy || link.in_pos < link.in_len ||
                            (top->led & 0x22u) != 0;  // led[1] busy, led[5] host request waits
        quiet = active ? 0 : quiet + 1;
        if (cycle % kPollEvery == 0 || quiet > kQuietCycles) {
            // Answer bytes go out as soon as the line has been quiet for a byte's time, so a
            // frame leaves in one piece but the PC does not wait for a full buffer.
            if (link.out_len && !tx_busy && !link.flush()) break;
            int wait_ms = quiet > kQuietCycles ? 50 : 0;
            if (!link.fill(wait_ms)) break;
            if (link.in_pos < link.in_len) quiet = 0;
        }
    }
    link.flush();
    top->final();
    if (keep_slave >= 0) close(keep_slave);
    return 0;
}
