/*
 * A device side of docs/bridge-protocol.md written in C for tests: it parses the PC's frames,
 * executes them on the in-process "sim" model, keeps the last SEQ and answer, and sends the
 * model's host-port requests to the PC as HOST_READ/HOST_WRITE frames, resending them after
 * 10 ms. A second implementation beside the RTL bridge, so the PC side can be tested (with
 * fault injection) without the board model, over a socketpair or a pty.
 */
#ifndef FAKE_BRIDGE_H
#define FAKE_BRIDGE_H
#include <stdint.h>

typedef struct fake_bridge fake_bridge;

/* Serve the protocol on fd (closed by fake_bridge_stop) in a thread. dead: 1, read and discard
 * every byte, never answer (a board with no bitstream); FAKE_BRIDGE_V1, a bitstream of protocol
 * version 1 (CRC-16/CCITT-FALSE, two CRC bytes), which answers only a PING of that version.
 * NULL if the sim model cannot start. */
#define FAKE_BRIDGE_V1 2
fake_bridge *fake_bridge_start(int fd, int dead);

typedef struct fake_bridge_stats {
    uint64_t executed;      /* requests executed */
    uint64_t repeats;       /* requests answered again from the stored answer */
    uint64_t mem_data_writes; /* words written to MEM_DATA (each executed once) */
    uint64_t max_count;     /* the largest word count of one request */
    uint64_t host_sent;     /* HOST_READ/HOST_WRITE frames sent, resends included */
    uint64_t host_done;     /* host requests answered */
    uint64_t bad_frames;    /* frames dropped (CRC, length) */
} fake_bridge_stats;
void fake_bridge_stats_get(fake_bridge *f, fake_bridge_stats *out);

/*
 * Test hook: the next WRITE request to register off (not a retry) finds the bridge busy, as if a
 * host-port wait inside its CSR access outlasted the PC's time-out. Frames arriving meanwhile are
 * held back exactly as during a host-port wait, until the PC's resend of that request is among
 * them; then the request executes and is answered, and the bridge stalls again (a preempted
 * thread) until the PC's next request sits whole in its receive buffer. Every wait is bounded
 * (2 s). Deterministic: it waits for events, not for time.
 */
void fake_bridge_stall_on_write(fake_bridge *f, uint32_t off);

void fake_bridge_stop(fake_bridge *f);
#endif
