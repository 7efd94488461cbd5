/*
 * vmgpu-sim-board: the Verilator model of the board's top level (board/ulx3s/ulx3s_top.v) behind
 * a pseudo-terminal, with a cycle-accurate model of the board's SDRAM chip on its memory pins.
 * Every byte that arrives on the pty is sent into the model's receive pin bit by bit (start bit,
 * 8 data bits LSB first, stop bit), and the model's transmit pin is decoded the same way back
 * into bytes for the pty. So the driver on the other side runs its ordinary serial code
 * (termios, the bridge protocol) against the exact board RTL, UART and SDRAM controller included.
 *
 * The model is ulx3s_top with the bitstream's parameters (sim_board_top.v, generated from
 * ulx3s_top.v, only wires the SDRAM data bus to the chip model). The clock, the line rate and
 * the memory are read from the model itself: the UART runs at the bitstream's BAUD, CLK_HZ / BAUD
 * model cycles a bit (16.67 at 50 MHz and 3 Mbaud), and the chip model is the part MEM_BYTES
 * names, clocked as sdram_phy clocks it (the design clock inverted). Any violation of the chip's
 * timing or protocol rules (sim/sdram_chip.h) is reported on stderr and ends the model with exit
 * status 3: the driver's next call then fails, and so does the test.
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
 *   vmgpu-sim-board --print-params
 *                              prints every parameter of the model's ulx3s_top (NAME VALUE) and
 *                              the chip model's part, then exits (ctest sim_board_params)
 *
 * Built with VMGPU_SIM_BOARD_GATE_LEVEL (board/ulx3s/gatelevel: the gate-level check), the same
 * harness runs the synthesised netlist of ulx3s_top with Yosys's ECP5 cell models instead of its
 * RTL; everything the netlist leaves undefined (X) then starts random, seeded by
 * VMGPU_SIM_BOARD_SEED (default 1), instead of zero.
 *
 * VMGPU_SIM_BOARD_STATS=1 prints, at exit, the model cycles run and their rate per CPU second
 * (the simulation's speed, without the time it slept waiting for the driver).
 *
 * The model's clock runs freely while anything happens on the line or the device is busy. After
 * a long quiet spell with the device idle it sleeps in poll() until the next byte, so an idle
 * board costs no CPU (its cycle counter then pauses, as a simulation may; the chip model's clock
 * pauses with it, so refresh keeps its pace in model cycles).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <termios.h>
#include <unistd.h>

#include <memory>

#include "Vsim_board_top.h"
#include "Vsim_board_top_sim_board_top.h"
#include "sdram_chip.h"
#include "sim_board_params.h"
#include "verilated.h"

namespace {

using Board = Vsim_board_top_sim_board_top;  // the parameters, as the model was built

// Model cycles per UART bit: the bridge's line rate on the bitstream's clock.
constexpr double kBitCycles = double(Board::CLK_HZ) / double(Board::BAUD);
// Cycles of silence (no byte either way, device idle, no host request waiting) before the
// model sleeps: long past any frame the bridge is still executing or answering.
constexpr uint64_t kQuietCycles = 200000;
// How often the pty is polled while running (cycles): one byte takes 10 bit times.
constexpr unsigned kPollEvery = unsigned(8 * kBitCycles);

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

// The chip on the board: the part table the controller's defaults follow for the 32 MB parts
// (the slower figure of the IS42S16160G/MT48LC16M16A2 data sheets at hand), the AS4C32M16SB for
// 64 MB. Geometry from MEM_BYTES, as ulx3s_top derives the controller's.
const char *chip_part() {
    if (Board::MEM_BYTES == 33554432) return "ulx3s";
    if (Board::MEM_BYTES == 67108864) return "as4c32m16sb-7";
    return nullptr;
}

void print_params(const char *part) {
#define SIM_BOARD_PRINT(name) printf("%s %lld\n", #name, (long long)Board::name);
    SIM_BOARD_FOR_EACH_PARAM(SIM_BOARD_PRINT)
#undef SIM_BOARD_PRINT
    printf("sdram_part %s\n", part ? part : "none");
}

[[noreturn]] void die_violation(const sdram::Chip &chip, uint64_t cycle) {
    fprintf(stderr,
            "\nvmgpu-sim-board: SDRAM VIOLATION at model cycle %llu: the board's memory controller "
            "broke the chip's rules (messages above). The board model stops here; the run fails.\n",
            (unsigned long long)cycle);
    chip.report(stderr);
    fflush(stderr);
    _exit(3);
}

}  // namespace

int main(int argc, char **argv) {
    int fd = -1;
    const char *part = chip_part();
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--fd") && i + 1 < argc) {
            fd = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--print-params")) {
            print_params(part);
            return part ? 0 : 1;
        } else {
            fprintf(stderr, "usage: %s [--fd N | --print-params]\n", argv[0]);
            return 2;
        }
    }
    if (!part) {
        fprintf(stderr, "vmgpu-sim-board: no SDRAM chip model for MEM_BYTES %lld (32 or 64 MiB)\n",
                (long long)Board::MEM_BYTES);
        return 1;
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

    sdram::Geometry geom;
    geom.col_bits = Board::MEM_BYTES == 67108864 ? 10 : 9;
    sdram::Chip chip(*sdram::find_part(part), geom, 1e9 / double(Board::CLK_HZ),
                     /*negedge_phase=*/true);
    chip.set_log(stderr);

    auto ctx = std::make_unique<VerilatedContext>();
    ctx->commandArgs(1, argv);
#ifdef VMGPU_SIM_BOARD_GATE_LEVEL
    // X in the netlist (undriven nets, don't-cares, the unmodelled outputs of a cell model)
    // becomes random rather than zero, so a design that relies on one fails on some seed.
    const char *seed_env = getenv("VMGPU_SIM_BOARD_SEED");
    ctx->randReset(2);
    ctx->randSeed(seed_env && *seed_env ? atoi(seed_env) : 1);
#endif
    auto top = std::make_unique<Vsim_board_top>(ctx.get());
    top->btn = 1;  // the PWR button up: reset follows the PLL's lock
    top->ftdi_txd = 1;
    top->clk_25mhz = 0;
    top->chip_dq_oe_i = 0;
    top->chip_dq_i = 0;
    top->eval();

    // Into the model: the bits of the byte being sent, bit k from rx_start + k * kBitCycles.
    unsigned rx_bit = 10;  // 10: idle
    uint64_t rx_start = 0;
    uint16_t rx_shift = 0;
    // Out of the model: a decoder sampling mid-bit after the falling edge of a start bit.
    bool tx_busy = false;
    uint64_t tx_start = 0;
    unsigned tx_bit = 0;
    uint8_t tx_byte = 0;
    uint64_t cycle = 0, quiet = 0;

    while (!g_stop) {
        // Bytes that come while the board is still in reset would be lost: hold them.
        if (rx_bit == 10 && cycle >= 64 && link.in_pos < link.in_len) {
            // start bit (0), 8 data bits, stop bit (1): shifted out LSB first
            rx_shift = (uint16_t)(0x200u | (unsigned)link.in[link.in_pos++] << 1);
            rx_bit = 0;
            rx_start = cycle;
        }
        top->ftdi_txd = rx_bit < 10 ? (rx_shift >> rx_bit) & 1u : 1u;
        top->clk_25mhz = 1;
        top->eval();
        const bool chip_clk_high_half = top->sdram_clk;
        top->clk_25mhz = 0;
        top->eval();
        // The chip model below is clocked in the middle of the cycle, which is right only while
        // the chip's clock pin is the design clock inverted (sdram_phy): low in the cycle's
        // first half, high in its second (checked once the pin's output register has filled).
        if (cycle >= 16 && (chip_clk_high_half || !top->sdram_clk)) {
            fprintf(stderr, "\nvmgpu-sim-board: the SDRAM clock pin is not the design clock inverted "
                            "at model cycle %llu (%d in the first half-cycle, %d in the second)\n",
                    (unsigned long long)cycle, (int)chip_clk_high_half, (int)top->sdram_clk);
            _exit(3);
        }
        // The chip's clock is the design clock inverted (sdram_phy): its rising edge is now, in
        // the middle of the cycle, with the pins as the controller's flip-flops set them. What the
        // chip drives then is on the bus for the controller's next edge.
        sdram::Pins p;
        p.cke = top->sdram_cke;
        p.cs_n = top->sdram_csn;
        p.ras_n = top->sdram_rasn;
        p.cas_n = top->sdram_casn;
        p.we_n = top->sdram_wen;
        p.ba = top->sdram_ba;
        p.a = top->sdram_a;
        p.dqm = top->sdram_dqm;
        p.dq = top->sdram_d_o;
        p.dq_oe = top->fpga_dq_oe_o;
        chip.edge(p);
        if (chip.violations()) die_violation(chip, cycle);
        // (Taken in at the next eval: Verilator settles input-driven logic before the clock edge.)
        top->chip_dq_oe_i = chip.driving();
        top->chip_dq_i = chip.dq();
        ++cycle;
        if (rx_bit < 10 && double(cycle - rx_start) >= double(rx_bit + 1) * kBitCycles) ++rx_bit;
        const bool line = top->ftdi_rxd;
        if (!tx_busy) {
            if (!line) {
                tx_busy = true;
                tx_start = cycle;
                tx_bit = 0;
                tx_byte = 0;
            }
        } else if (double(cycle - tx_start) >= (double(tx_bit) + 0.5) * kBitCycles) {
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
                            (top->led & 0x62u) != 0;  // led[1] busy, [5] host request, [6] reset/SDRAM init
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
    const char *stats = getenv("VMGPU_SIM_BOARD_STATS");
    if (stats && *stats && strcmp(stats, "0")) {
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        double cpu = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 + ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6;
        fprintf(stderr, "vmgpu-sim-board: %llu model cycles in %.1f CPU seconds (%.0f cycles/s)\n",
                (unsigned long long)cycle, cpu, cpu > 0 ? double(cycle) / cpu : 0.0);
    }
    if (keep_slave >= 0) close(keep_slave);
    return 0;
}
