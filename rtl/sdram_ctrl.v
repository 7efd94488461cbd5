`default_nettype none
// sdram_ctrl: controller for one 16-bit SDR SDRAM chip: the ULX3S's 32 MB part (IS42S16160G or
// MT48LC16M16A2: 4 banks x 8192 rows x 512 columns) or a 64 MB AS4C32M16SB (1024 columns).
// Technology-neutral: it simulates in Verilator and Icarus; the ECP5-specific clock and DQ
// buffers live in board/ulx3s/sdram_phy.v.
//
// Front side: the device-memory port that mem_fabric drives today (one 32-bit word per request,
// word addresses, a byte-enabled write port beside a read port) with a handshake added: each
// port has valid/ready, and read data comes with a valid strobe, so any latency and any
// back-pressure are allowed. At most one request is accepted per cycle (a read or a write),
// and requests run in the order they were accepted: a read returns every write accepted
// before it, responses come back in request order. rd_ready_o and wr_ready_o come from
// flip-flops. Between turns the controller keeps taking requests from the port it is serving
// while that port has any (at most MAX_BATCH while the other port waits), because each switch
// from reads to writes costs an idle bus cycle and a row switch when both streams share a bank.
//
// Bursts: burst length 2. A 32-bit word is two 16-bit beats, low half first; byte enables go
// to DQM (active-high mask) with the beats. Longer bursts would not make streams faster: with
// the row open, READs (or WRITEs) two cycles apart already keep the data bus busy every cycle,
// and BL 2 keeps every request independent (no wasted beats, no burst stop for lone words).
//
// Row policy: open row. A bank's row stays open after an access and is closed only when a
// request needs another row of that bank, or for refresh. The fabric's masters stream (DMA,
// compute and graphics engines walk consecutive words), so most accesses hit the open row and
// cost one column command; a closed-row (auto-precharge) policy would pay ACTIVATE + tRCD on
// every word, which cannot keep the bus busy at all. A miss costs PRECHARGE + tRP +
// ACTIVATE + tRCD (about 4 cycles at 50 MHz), two cycles more than with auto-precharge.
//
// Address map (word address): {row, bank, word in row}. A 4 KiB page then covers the same
// row in several banks (32 MB part: 1 KiB rows, one row in each of the 4 banks), and a
// sequential stream leaves a row only after 256 (or 512) words. With BANK_XOR the bank is the
// address's bank field XOR the row folded to BANK_BITS bits: two streams at the same offset in
// different pages (a copy's source and destination) then mostly use different banks and keep
// both rows open, instead of closing each other's row at every turn. The map stays one-to-one.
//
// Refresh: a free-running counter raises a refresh request every tREFI (rounded down). From
// then on no new row or column command starts; the open banks are precharged (PRECHARGE ALL)
// as soon as tRAS/tWR allow, then AUTO REFRESH is issued. The wait is bounded by a few cycles,
// so a refresh is never postponed by traffic.
//
// Initialisation: CKE high with NOPs for T_INIT_US, PRECHARGE ALL, INIT_REFRESHES auto
// refreshes, LOAD MODE REGISTER (burst length 2, sequential, CAS latency, programmed write
// bursts), then requests are accepted (init_done_o).
//
// Pin timing: every pin output comes from a flip-flop with no other load. A command decided in
// cycle c is on the pins in cycle c+1. The chip-side data path is explained at READ_DELAY.
// The read-to-write turnaround leaves one idle data-bus cycle between the chip's last read
// beat and the controller's first write beat, whatever the chip clock's phase.
module sdram_ctrl #(
  parameter integer CLK_HZ         = 50000000,  // clock of the controller and of the chip
  parameter integer ROW_BITS       = 13,        // row address bits (8192 rows); also the A pins (>= 11)
  parameter integer COL_BITS       = 9,         // column bits: 9 (512) or 10 (1024); A10 is auto precharge
  parameter integer BANK_BITS      = 2,         // bank address bits (4 banks)
  parameter integer CAS_LATENCY    = 2,         // 2 or 3, written to the mode register
  // Cycles from a READ on the pins (cycle t) to the clock edge that captures its first beat in
  // the input register (the edge ending cycle t + READ_DELAY). CAS_LATENCY when the chip's
  // clock is in phase with clk_i (the chip model's default), CAS_LATENCY - 1 behind
  // sdram_phy's inverted chip clock (the chip samples a command half a cycle after it leaves
  // the controller, so its data arrives a cycle earlier), plus one per extra input register.
  parameter integer READ_DELAY     = CAS_LATENCY,
  parameter integer BANK_XOR       = 1,         // 1: bank = bank field XOR folded row (see above)
  parameter integer MAX_BATCH      = 16,        // requests of one port in a row while the other waits
  // Datasheet minimums in ns (defaults: the slowest of MT48LC16M16A2-75 and AS4C32M16SB-7).
  parameter integer T_RCD_NS       = 21,        // ACTIVE to READ/WRITE
  parameter integer T_RP_NS        = 21,        // PRECHARGE to ACTIVE/REFRESH
  parameter integer T_RAS_NS       = 44,        // ACTIVE to PRECHARGE
  parameter integer T_RC_NS        = 66,        // ACTIVE to ACTIVE (same bank), ACTIVE to REFRESH
  parameter integer T_RFC_NS       = 66,        // REFRESH to ACTIVE/REFRESH
  parameter integer T_WR_NS        = 15,        // last write beat to PRECHARGE
  parameter integer T_RRD_NS       = 15,        // ACTIVE to ACTIVE (other bank)
  parameter integer T_MRD_NS       = 15,        // LOAD MODE REGISTER to any command (2 cycles at least)
  parameter integer T_REFI_NS      = 7800,      // refresh interval: 64 ms / 8192 rows = 7812.5 ns
  parameter integer T_INIT_US      = 200,       // power-up wait with NOPs before PRECHARGE ALL
  parameter integer INIT_REFRESHES = 8,         // auto refreshes in the initialisation (>= 2)
  parameter integer AW             = ROW_BITS + BANK_BITS + COL_BITS - 1  // word-address width (derived)
) (
  input  wire                 clk_i,
  input  wire                 rst_ni,
  // read port: request, then the word CAS latency and a few cycles later, in request order
  input  wire                 rd_valid_i,
  output wire                 rd_ready_o,
  input  wire [AW-1:0]        rd_addr_i,      // word address
  output wire                 rd_rsp_valid_o,
  output wire [31:0]          rd_rsp_data_o,
  // write port
  input  wire                 wr_valid_i,
  output wire                 wr_ready_o,
  input  wire [AW-1:0]        wr_addr_i,      // word address
  input  wire [31:0]          wr_data_i,
  input  wire [3:0]           wr_be_i,        // byte enables
  // status
  output wire                 init_done_o,    // initialisation finished, requests accepted
  output wire                 stat_refresh_o, // the chip is held for refresh this cycle
  // chip pins (through sdram_phy on the board)
  output wire                 sdram_cke_o,
  output wire                 sdram_cs_no,
  output wire                 sdram_ras_no,
  output wire                 sdram_cas_no,
  output wire                 sdram_we_no,
  output wire [BANK_BITS-1:0] sdram_ba_o,
  output wire [ROW_BITS-1:0]  sdram_a_o,
  output wire [1:0]           sdram_dqm_o,    // byte masks: [0] DQ[7:0], [1] DQ[15:8]
  output wire [15:0]          sdram_dq_o,
  output wire                 sdram_dq_oe_o,  // drive DQ (write beats)
  input  wire [15:0]          sdram_dq_i
);
  localparam integer NB      = 1 << BANK_BITS;  // banks
  localparam integer WB      = COL_BITS - 1;    // word-in-row bits (two columns per word)
  localparam integer CLK_KHZ = CLK_HZ / 1000;

  // ns -> cycles, rounded up, at least min_cycles. ns * kHz stays below 2^31 for the timings
  // here (7800 ns at 133 MHz is 1.04e9).
  function integer ns_to_cycles(input integer ns, input integer min_cycles);
    integer c;
    begin
      c = (ns * CLK_KHZ + 999999) / 1000000;
      ns_to_cycles = (c < min_cycles) ? min_cycles : c;
    end
  endfunction
  function integer imax(input integer a, input integer b);
    imax = (a > b) ? a : b;
  endfunction

  localparam integer T_RCD  = ns_to_cycles(T_RCD_NS, 1);
  localparam integer T_RP   = ns_to_cycles(T_RP_NS, 1);
  localparam integer T_RAS  = ns_to_cycles(T_RAS_NS, 1);
  localparam integer T_RC   = ns_to_cycles(T_RC_NS, 1);
  localparam integer T_RFC  = ns_to_cycles(T_RFC_NS, 1);
  localparam integer T_WR   = ns_to_cycles(T_WR_NS, 1);
  localparam integer T_RRD  = ns_to_cycles(T_RRD_NS, 1);
  localparam integer T_MRD  = ns_to_cycles(T_MRD_NS, 2);
  localparam integer T_REFI = (T_REFI_NS * CLK_KHZ) / 1000000;  // rounded down: never late
  localparam integer T_INIT = (T_INIT_US * CLK_KHZ + 999) / 1000;

  // Counter loads: a command decided in cycle c that allows another one from cycle c + X on
  // loads X - 1; the other command may go when the counter reads 0.
  localparam integer T_MAX = imax(imax(imax(T_RC, T_RFC), imax(T_RAS, T_WR + 1)),
                                  imax(imax(CAS_LATENCY + 3, T_MRD), imax(T_RP, imax(T_RCD, T_RRD))));
  localparam integer CW = $clog2(T_MAX + 1);  // width of the timing counters
  localparam integer LI_RCD = T_RCD - 1, LI_RP = T_RP - 1, LI_RAS = T_RAS - 1, LI_RC = T_RC - 1;
  localparam integer LI_RFC = T_RFC - 1, LI_RRD = T_RRD - 1, LI_MRD = T_MRD - 1;
  localparam integer LI_RD_WR = CAS_LATENCY + 2;
  localparam [CW-1:0] L_RCD = LI_RCD[CW-1:0];
  localparam [CW-1:0] L_RP  = LI_RP[CW-1:0];
  localparam [CW-1:0] L_RAS = LI_RAS[CW-1:0];
  localparam [CW-1:0] L_RC  = LI_RC[CW-1:0];
  localparam [CW-1:0] L_RFC = LI_RFC[CW-1:0];
  localparam [CW-1:0] L_RRD = LI_RRD[CW-1:0];
  localparam [CW-1:0] L_MRD = LI_MRD[CW-1:0];
  // WRITE in cycle c: beats on the pins in c+1 and c+2, PRECHARGE on the pins from c+2+T_WR.
  localparam [CW-1:0] L_WR_PRE = T_WR[CW-1:0];
  // READ in cycle c: PRECHARGE from c+2 (the burst's two beats are out by then).
  localparam [CW-1:0] L_RD_PRE = 1;
  // Column commands two cycles apart (burst length 2).
  localparam [CW-1:0] L_COL = 1;
  // READ in cycle c (pins c+1, chip drives its beats CAS_LATENCY cycles later for two cycles):
  // the first write beat goes out one idle cycle after the last read beat, pins c+CAS+4.
  localparam [CW-1:0] L_RD_WR = LI_RD_WR[CW-1:0];

  localparam integer IW  = $clog2(T_INIT + 1);
  localparam integer FW  = $clog2(T_REFI + 1);
  localparam integer NRW = $clog2(INIT_REFRESHES + 1);
  localparam integer BW  = $clog2(MAX_BATCH + 1);
  localparam integer RS  = READ_DELAY + 2;  // read-return shift register length

  // Commands as {CS#, RAS#, CAS#, WE#}.
  localparam [3:0] CMD_INHIBIT = 4'b1111;
  localparam [3:0] CMD_NOP     = 4'b0111;
  localparam [3:0] CMD_ACT     = 4'b0011;
  localparam [3:0] CMD_READ    = 4'b0101;
  localparam [3:0] CMD_WRITE   = 4'b0100;
  localparam [3:0] CMD_PRE     = 4'b0010;
  localparam [3:0] CMD_REF     = 4'b0001;
  localparam [3:0] CMD_MRS     = 4'b0000;

  // Mode register: A[2:0] burst length 2 (001), A3 sequential, A[6:4] CAS latency, A[8:7]
  // standard operation, A9 0: write bursts as programmed.
  localparam integer        MODE_INT  = CAS_LATENCY * 16 + 1;
  localparam [ROW_BITS-1:0] MODE_WORD = MODE_INT[ROW_BITS-1:0];

  // Initialisation, then RUN.
  localparam [1:0] I_WAIT = 2'd0;  // power-up wait (NOPs), ends with PRECHARGE ALL
  localparam [1:0] I_REF  = 2'd1;  // auto refreshes
  localparam [1:0] I_MRS  = 2'd2;  // load mode register
  localparam [1:0] I_RUN  = 2'd3;  // serving requests

  // Request entry: {write, bank, row, word in row, data, byte enables}.
  localparam integer EW = 1 + BANK_BITS + ROW_BITS + WB + 32 + 4;

  // The bank a word address maps to (see the header).
  function automatic [BANK_BITS-1:0] bank_of(input [AW-1:0] addr);
    integer k;
    reg [BANK_BITS-1:0] f;
    begin
      f = addr[WB +: BANK_BITS];
      if (BANK_XOR != 0)
        for (k = 0; k < ROW_BITS; k = k + 1) f[k % BANK_BITS] = f[k % BANK_BITS] ^ addr[AW - ROW_BITS + k];
      bank_of = f;
    end
  endfunction

  integer b;

  // ---------------------------------------------------------------------------------------------
  // State
  // ---------------------------------------------------------------------------------------------
  reg [1:0]     init_state_q, init_state_d;
  reg [IW-1:0]  init_cnt_q;
  reg [NRW-1:0] init_refs_q;
  reg           cke_q;

  // Pin registers.
  reg [3:0]          cmd_q, cmd_d;
  reg [BANK_BITS-1:0] ba_q, ba_d;
  reg [ROW_BITS-1:0] a_q, a_d;
  reg [1:0]          dqm_q;
  reg [15:0]         dq_q;
  reg                oe_q;
  reg                wr2_q;     // the second write beat goes out next cycle
  reg [15:0]         wr_hi_q;   // its data
  reg [1:0]          wr_hi_m_q; // its byte masks

  // Front: the port being served, room for one more request, requests taken in this turn.
  reg          dir_q;   // 0: reads, 1: writes
  reg          room_q;
  reg [BW-1:0] batch_q;

  // Two-entry request queue, written and read in turn: the entry at rd_q is the head. The
  // payload registers only load (no data mux in front), and the head is chosen by a flip-flop,
  // so the command decision does not feed the payload path.
  reg [EW-1:0] q0_q, q1_q;
  reg          rd_q, wr_q;
  reg [1:0]    cnt_q;

  // Banks: open, the open row, and the cycles until ACTIVE / PRECHARGE / READ-WRITE may go.
  reg [NB-1:0]          open_q, open_d;
  reg [NB*ROW_BITS-1:0] row_q, row_d;
  reg [NB*CW-1:0]       act_wait_q, act_wait_d;
  reg [NB*CW-1:0]       pre_wait_q, pre_wait_d;
  reg [NB*CW-1:0]       col_wait_q, col_wait_d;
  reg [CW-1:0]          rrd_wait_q;  // ACTIVE to ACTIVE, any bank
  reg [CW-1:0]          bus_wait_q;  // column command to column command
  reg [CW-1:0]          wr_wait_q;   // READ to WRITE (bus turnaround)

  // Refresh.
  reg [FW-1:0] ref_cnt_q;
  reg          ref_pend_q;
  reg [CW-1:0] ref_rec_q;  // tRFC still running after a REFRESH (statistics only)

  // Read return.
  reg [RS-1:0] rd_sr_q;     // bit j: a READ was decided j+1 cycles ago
  reg [15:0]   dq_in_q;     // input register, every cycle
  reg [15:0]   lo_q;        // first beat of the word being returned
  reg          rsp_valid_q;

  // ---------------------------------------------------------------------------------------------
  // Head request, decoded
  // ---------------------------------------------------------------------------------------------
  wire [EW-1:0]        head   = rd_q ? q1_q : q0_q;
  wire                 head_v = cnt_q != 2'd0;
  wire                 h_we   = head[EW-1];
  wire [BANK_BITS-1:0] h_bank = head[EW-2 -: BANK_BITS];
  wire [ROW_BITS-1:0]  h_row  = head[EW-2-BANK_BITS -: ROW_BITS];
  wire [WB-1:0]        h_col  = head[36 +: WB];
  wire [31:0]          h_data = head[4 +: 32];
  wire [3:0]           h_be   = head[3:0];

  wire          h_open   = open_q[h_bank];
  wire          h_hit    = row_q[h_bank*ROW_BITS +: ROW_BITS] == h_row;
  wire          h_act_ok = act_wait_q[h_bank*CW +: CW] == {CW{1'b0}};
  wire          h_pre_ok = pre_wait_q[h_bank*CW +: CW] == {CW{1'b0}};
  wire          h_col_ok = col_wait_q[h_bank*CW +: CW] == {CW{1'b0}};
  reg           all_act_ok, all_pre_ok;
  always @(*) begin
    all_act_ok = 1'b1;
    all_pre_ok = 1'b1;
    for (b = 0; b < NB; b = b + 1) begin
      if (act_wait_q[b*CW +: CW] != {CW{1'b0}}) all_act_ok = 1'b0;
      if (pre_wait_q[b*CW +: CW] != {CW{1'b0}}) all_pre_ok = 1'b0;
    end
  end

  // ---------------------------------------------------------------------------------------------
  // Command decision (registered onto the pins at the end of the cycle)
  // ---------------------------------------------------------------------------------------------
  reg do_act, do_pre, do_preall, do_ref, do_mrs, do_rd, do_wr;
  wire pop = do_rd || do_wr;  // the head request leaves the queue
  always @(*) begin
    cmd_d        = CMD_NOP;
    ba_d         = {BANK_BITS{1'b0}};
    a_d          = {ROW_BITS{1'b0}};
    init_state_d = init_state_q;
    do_act = 1'b0; do_pre = 1'b0; do_preall = 1'b0; do_ref = 1'b0; do_mrs = 1'b0;
    do_rd  = 1'b0; do_wr  = 1'b0;
    case (init_state_q)
      I_WAIT: begin
        if (init_cnt_q == {IW{1'b0}}) begin
          cmd_d = CMD_PRE; a_d[10] = 1'b1; do_preall = 1'b1;
          init_state_d = I_REF;
        end
      end
      I_REF: begin
        if (all_act_ok) begin
          cmd_d = CMD_REF; do_ref = 1'b1;
          if (init_refs_q == {{(NRW-1){1'b0}}, 1'b1}) init_state_d = I_MRS;
        end
      end
      I_MRS: begin
        if (all_act_ok) begin
          cmd_d = CMD_MRS; a_d = MODE_WORD; do_mrs = 1'b1;
          init_state_d = I_RUN;
        end
      end
      default: begin
        if (ref_pend_q) begin
          // Refresh first: close every open row, then refresh once tRP/tRC have passed.
          if (open_q != {NB{1'b0}}) begin
            if (all_pre_ok) begin cmd_d = CMD_PRE; a_d[10] = 1'b1; do_preall = 1'b1; end
          end else if (all_act_ok) begin
            cmd_d = CMD_REF; do_ref = 1'b1;
          end
        end else if (head_v) begin
          ba_d = h_bank;
          if (!h_open) begin
            if (h_act_ok && rrd_wait_q == {CW{1'b0}}) begin
              cmd_d = CMD_ACT; a_d = h_row; do_act = 1'b1;
            end
          end else if (!h_hit) begin
            if (h_pre_ok) begin cmd_d = CMD_PRE; do_pre = 1'b1; end
          end else if (h_col_ok && bus_wait_q == {CW{1'b0}} &&
                       (!h_we || wr_wait_q == {CW{1'b0}})) begin
            cmd_d = h_we ? CMD_WRITE : CMD_READ;
            a_d[COL_BITS-1:0] = {h_col, 1'b0};
            do_rd = !h_we;
            do_wr = h_we;
          end
        end
      end
    endcase
  end

  assign rd_ready_o = room_q && !dir_q;
  assign wr_ready_o = room_q && dir_q;
  wire          take     = dir_q ? wr_valid_i : rd_valid_i;  // qualified by room_q below
  wire          push     = room_q && take;
  wire [AW-1:0] in_addr  = dir_q ? wr_addr_i : rd_addr_i;
  wire [EW-1:0] in_entry = {dir_q, bank_of(in_addr), in_addr[AW-1 -: ROW_BITS], in_addr[WB-1:0],
                            wr_data_i, wr_be_i};

  // ---------------------------------------------------------------------------------------------
  // Bank state and timing counters, next values
  // ---------------------------------------------------------------------------------------------
  function automatic [CW-1:0] dec(input [CW-1:0] x);
    dec = (x != {CW{1'b0}}) ? x - 1'b1 : x;
  endfunction
  function automatic [CW-1:0] cmax(input [CW-1:0] x, input [CW-1:0] y);
    cmax = (x > y) ? x : y;
  endfunction

  reg [CW-1:0] aw, pw, cw;
  always @(*) begin
    open_d = open_q;
    row_d  = row_q;
    for (b = 0; b < NB; b = b + 1) begin
      aw = dec(act_wait_q[b*CW +: CW]);
      pw = dec(pre_wait_q[b*CW +: CW]);
      cw = dec(col_wait_q[b*CW +: CW]);
      // ACTIVE, REFRESH and LOAD MODE only go when the counters they load read 0, so they
      // load plainly; PRECHARGE may meet tRC still running, READ/WRITE tRAS or an earlier tWR.
      if (do_act && ba_d == b[BANK_BITS-1:0]) begin
        open_d[b] = 1'b1;
        row_d[b*ROW_BITS +: ROW_BITS] = h_row;
        aw = L_RC;
        pw = L_RAS;
        cw = L_RCD;
      end
      if ((do_pre && ba_d == b[BANK_BITS-1:0]) || do_preall) begin
        open_d[b] = 1'b0;
        aw = cmax(aw, L_RP);
      end
      if (do_ref) aw = L_RFC;
      if (do_mrs) aw = L_MRD;
      if (pop && ba_d == b[BANK_BITS-1:0]) pw = cmax(pw, do_wr ? L_WR_PRE : L_RD_PRE);
      act_wait_d[b*CW +: CW] = aw;
      pre_wait_d[b*CW +: CW] = pw;
      col_wait_d[b*CW +: CW] = cw;
    end
  end

  // ---------------------------------------------------------------------------------------------
  // Front: port choice, request queue
  // ---------------------------------------------------------------------------------------------
  // Stay on the port being served while it asks and its turn is not used up; otherwise turn
  // to the other port when that one asks.
  wire cur_valid  = dir_q ? wr_valid_i : rd_valid_i;
  wire oth_valid  = dir_q ? rd_valid_i : wr_valid_i;
  wire turn_over  = batch_q == MAX_BATCH[BW-1:0];
  wire switch_dir = oth_valid && (!cur_valid || turn_over);

  wire [1:0] cnt_d = cnt_q + {1'b0, push} - {1'b0, pop};

  // ---------------------------------------------------------------------------------------------
  // Registers
  // ---------------------------------------------------------------------------------------------
  wire in_run = init_state_q == I_RUN;

  always @(posedge clk_i) begin
    if (!rst_ni) begin
      init_state_q <= I_WAIT;
      init_cnt_q   <= T_INIT[IW-1:0];
      init_refs_q  <= INIT_REFRESHES[NRW-1:0];
      cke_q        <= 1'b0;
      cmd_q        <= CMD_INHIBIT;
      ba_q         <= {BANK_BITS{1'b0}};
      a_q          <= {ROW_BITS{1'b0}};
      dqm_q        <= 2'b00;
      oe_q         <= 1'b0;
      wr2_q        <= 1'b0;
      dir_q        <= 1'b0;
      room_q       <= 1'b0;
      batch_q      <= {BW{1'b0}};
      rd_q         <= 1'b0;
      wr_q         <= 1'b0;
      cnt_q        <= 2'd0;
      open_q       <= {NB{1'b0}};
      act_wait_q   <= {(NB*CW){1'b0}};
      pre_wait_q   <= {(NB*CW){1'b0}};
      col_wait_q   <= {(NB*CW){1'b0}};
      rrd_wait_q   <= {CW{1'b0}};
      bus_wait_q   <= {CW{1'b0}};
      wr_wait_q    <= {CW{1'b0}};
      ref_cnt_q    <= T_REFI[FW-1:0] - 1'b1;
      ref_pend_q   <= 1'b0;
      ref_rec_q    <= {CW{1'b0}};
      rd_sr_q      <= {RS{1'b0}};
      rsp_valid_q  <= 1'b0;
    end else begin
      // Initialisation.
      cke_q        <= 1'b1;
      init_state_q <= init_state_d;
      if (init_cnt_q != {IW{1'b0}}) init_cnt_q <= init_cnt_q - 1'b1;
      if (do_ref && !in_run) init_refs_q <= init_refs_q - 1'b1;

      // Pins.
      cmd_q <= cmd_d;
      ba_q  <= ba_d;
      a_q   <= a_d;
      if (do_wr) begin
        dqm_q     <= ~h_be[1:0];
        oe_q      <= 1'b1;
        wr2_q     <= 1'b1;
        wr_hi_m_q <= ~h_be[3:2];
      end else if (wr2_q) begin
        dqm_q <= wr_hi_m_q;
        oe_q  <= 1'b1;
        wr2_q <= 1'b0;
      end else begin
        dqm_q <= 2'b00;
        oe_q  <= 1'b0;
      end

      // Banks and timing.
      open_q     <= open_d;
      row_q      <= row_d;
      act_wait_q <= act_wait_d;
      pre_wait_q <= pre_wait_d;
      col_wait_q <= col_wait_d;
      rrd_wait_q <= do_act ? L_RRD : dec(rrd_wait_q);
      bus_wait_q <= pop ? L_COL : dec(bus_wait_q);
      wr_wait_q  <= do_rd ? cmax(dec(wr_wait_q), L_RD_WR) : dec(wr_wait_q);

      // Refresh: the interval counter runs from the end of initialisation on.
      if (in_run) begin
        ref_cnt_q <= (ref_cnt_q == {FW{1'b0}}) ? T_REFI[FW-1:0] - 1'b1 : ref_cnt_q - 1'b1;
        ref_pend_q <= (ref_pend_q && !do_ref) || ref_cnt_q == {FW{1'b0}};
      end
      ref_rec_q <= (do_ref && in_run) ? L_RFC : dec(ref_rec_q);

      // Front.
      cnt_q  <= cnt_d;
      if (push) wr_q <= !wr_q;
      if (pop)  rd_q <= !rd_q;
      room_q <= init_state_d == I_RUN && cnt_d != 2'd2;
      if (switch_dir) begin
        dir_q   <= !dir_q;
        batch_q <= {BW{1'b0}};
      end else if (push && !turn_over) begin
        batch_q <= batch_q + 1'b1;
      end

      // Read return: beat 0 is in dq_in_q in cycle c + READ_DELAY + 2 (READ decided in c).
      rd_sr_q     <= {rd_sr_q[RS-2:0], do_rd};
      rsp_valid_q <= rd_sr_q[RS-1];
    end
  end

  // Data registers without reset (their valid bits qualify them): queue payloads, write beats,
  // the input register and the returned word's first beat.
  always @(posedge clk_i) begin
    if (push && !wr_q) q0_q <= in_entry;
    if (push &&  wr_q) q1_q <= in_entry;
    dq_in_q <= sdram_dq_i;
    // The data bus only matters while oe_q drives it, so the write beats load without waiting
    // for the command decision: the head's low half, or the high half after a WRITE.
    dq_q    <= wr2_q ? wr_hi_q : h_data[15:0];
    wr_hi_q <= h_data[31:16];
    if (rd_sr_q[RS-1]) lo_q <= dq_in_q;
  end

  assign rd_rsp_valid_o = rsp_valid_q;
  assign rd_rsp_data_o  = {dq_in_q, lo_q};
  assign init_done_o    = in_run;
  assign stat_refresh_o = ref_pend_q || ref_rec_q != {CW{1'b0}};

  assign sdram_cke_o   = cke_q;
  assign {sdram_cs_no, sdram_ras_no, sdram_cas_no, sdram_we_no} = cmd_q;
  assign sdram_ba_o    = ba_q;
  assign sdram_a_o     = a_q;
  assign sdram_dqm_o   = dqm_q;
  assign sdram_dq_o    = dq_q;
  assign sdram_dq_oe_o = oe_q;
endmodule
`default_nettype wire
