// Runs cells_tb (the gate-level check's cell models) and turns its failure count into the exit
// status: 0 only when every check passed and the bench reached its end.
#include <cstdio>
#include <memory>

#include "Vcells_tb.h"
#include "verilated.h"

int main(int argc, char **argv) {
    auto ctx = std::make_unique<VerilatedContext>();
    ctx->commandArgs(argc, argv);
    ctx->randReset(2);  // X random, as in the gate-level model
    auto tb = std::make_unique<Vcells_tb>(ctx.get());
    unsigned oddr_fails = 0;
    for (int i = 0; i < 200 && !tb->done_o && !ctx->gotFinish(); ++i) {
        tb->clk_i = 1;
        tb->eval();
        // ODDRX1F: D0 in the high half of the clock, D1 in the low half (after the first edges).
        if (i > 3 && (tb->oddr_inv_o != 0 || tb->oddr_same_o != 1)) {
            std::printf("FAIL cycle %d ODDRX1F high half: %d %d, want 0 1\n", i, tb->oddr_inv_o, tb->oddr_same_o);
            ++oddr_fails;
        }
        tb->clk_i = 0;
        tb->eval();
        if (i > 3 && (tb->oddr_inv_o != 1 || tb->oddr_same_o != 0)) {
            std::printf("FAIL cycle %d ODDRX1F low half: %d %d, want 1 0\n", i, tb->oddr_inv_o, tb->oddr_same_o);
            ++oddr_fails;
        }
    }
    if (!tb->done_o) {
        std::printf("cells_tb: FAIL the bench did not reach its end\n");
        return 1;
    }
    const unsigned fails = tb->fails_o + oddr_fails;
    std::printf("cells_tb: %s, %u failures\n", fails ? "FAIL" : "PASS", fails);
    return fails ? 1 : 0;
}
