`default_nettype none
// tr_port_arb: lets two engines share one MMU translation port. Requester A has priority when
// both ask at once, but a request that was presented and not yet accepted keeps the grant, so
// the MMU sees a valid request and its payload held until the transfer, as the port's
// contract says. The MMU answers one request at a time, in order, so the response belongs to
// whoever was granted at the last acceptance.
module tr_port_arb (
  input  wire        clk_i,
  input  wire        rst_ni,
  // requester A (priority)
  input  wire        a_req_valid_i,
  output wire        a_req_ready_o,
  input  wire [31:0] a_req_va_i,
  input  wire        a_req_write_i,
  output wire        a_rsp_valid_o,
  // requester B
  input  wire        b_req_valid_i,
  output wire        b_req_ready_o,
  input  wire [31:0] b_req_va_i,
  input  wire        b_req_write_i,
  output wire        b_rsp_valid_o,
  // the shared MMU port (response payload goes to both requesters unchanged)
  output wire        req_valid_o,
  input  wire        req_ready_i,
  output wire [31:0] req_va_o,
  output wire        req_write_o,
  input  wire        rsp_valid_i
);
  reg hold_q;    // the granted request was presented and is still waiting
  reg hold_b_q;  // ... and it is B's
  reg owner_b_q; // the request in flight at the MMU is B's

  wire sel_b = hold_q ? hold_b_q : !a_req_valid_i;

  assign req_valid_o   = sel_b ? b_req_valid_i : a_req_valid_i;
  assign req_va_o      = sel_b ? b_req_va_i : a_req_va_i;
  assign req_write_o   = sel_b ? b_req_write_i : a_req_write_i;
  assign a_req_ready_o = !sel_b && req_ready_i;
  assign b_req_ready_o = sel_b && req_ready_i;
  assign a_rsp_valid_o = rsp_valid_i && !owner_b_q;
  assign b_rsp_valid_o = rsp_valid_i && owner_b_q;

  always @(posedge clk_i) begin
    if (!rst_ni) begin
      hold_q    <= 1'b0;
      hold_b_q  <= 1'b0;
      owner_b_q <= 1'b0;
    end else begin
      hold_q   <= req_valid_o && !req_ready_i;
      hold_b_q <= sel_b;
      if (req_valid_o && req_ready_i) owner_b_q <= sel_b;
    end
  end

`ifdef FORMAL
  // Properties (tests/formal/tr_port_arb.sby, docs/formal.md). The requesters' and the MMU's
  // promises are assumed when the arbiter is proven alone (FORMAL_TR_PORT_ARB), asserted else.
`ifdef FORMAL_TR_PORT_ARB
`define ARB_ASSUME assume
`else
`define ARB_ASSUME assert
`endif
  reg f_past_valid = 1'b0;
  always @(posedge clk_i) f_past_valid <= 1'b1;
  always @(*) if (!f_past_valid) `ARB_ASSUME(!rst_ni);

  wire f_a_go = a_req_valid_i && a_req_ready_o;
  wire f_b_go = b_req_valid_i && b_req_ready_o;
  wire f_go   = req_valid_o && req_ready_i;

  // Requesters hold a request and its payload until it is taken (the port's contract); the MMU
  // answers each request it took once, at least a cycle later, and takes the next one at the
  // earliest in the cycle of that answer.
  reg f_mmu_busy = 1'b0;  // the MMU holds a request it has not answered
  always @(posedge clk_i) begin
    if (!rst_ni) f_mmu_busy <= 1'b0;
    else if (f_go) f_mmu_busy <= 1'b1;
    else if (rsp_valid_i) f_mmu_busy <= 1'b0;
  end
  always @(posedge clk_i) if (f_past_valid && rst_ni && $past(rst_ni)) begin
    if ($past(a_req_valid_i && !a_req_ready_o))
      `ARB_ASSUME(a_req_valid_i && $stable(a_req_va_i) && $stable(a_req_write_i));
    if ($past(b_req_valid_i && !b_req_ready_o))
      `ARB_ASSUME(b_req_valid_i && $stable(b_req_va_i) && $stable(b_req_write_i));
  end
  always @(*) if (f_past_valid && rst_ni) begin
    if (rsp_valid_i) `ARB_ASSUME(f_mmu_busy);
    if (req_ready_i && f_mmu_busy) `ARB_ASSUME(rsp_valid_i);
  end

  // Towards the MMU the arbiter keeps the same contract: a presented request stays, unchanged,
  // until it is taken.
  always @(posedge clk_i) if (f_past_valid && rst_ni && $past(rst_ni)) begin
    if ($past(req_valid_o && !req_ready_i))
      assert(req_valid_o && $stable(req_va_o) && $stable(req_write_o));
  end

  // Every transfer at the MMU is exactly one requester's, with that requester's payload; A wins
  // when both ask and no request is held.
  always @(*) if (f_past_valid && rst_ni) begin
    assert(!(a_req_ready_o && b_req_ready_o));
    assert(f_go == (f_a_go || f_b_go));
    if (f_a_go) assert(req_va_o == a_req_va_i && req_write_o == a_req_write_i);
    if (f_b_go) assert(req_va_o == b_req_va_i && req_write_o == b_req_write_i);
    if (!hold_q && a_req_valid_i) assert(!sel_b);
  end

  // Each answer goes to the requester whose request the MMU took, once: no answer is lost,
  // duplicated or delivered to the other requester.
  reg f_a_waits = 1'b0, f_b_waits = 1'b0;  // the request in the MMU is A's / B's
  always @(posedge clk_i) begin
    if (!rst_ni) begin
      f_a_waits <= 1'b0;
      f_b_waits <= 1'b0;
    end else begin
      if (rsp_valid_i) begin
        f_a_waits <= 1'b0;
        f_b_waits <= 1'b0;
      end
      if (f_a_go) f_a_waits <= 1'b1;
      if (f_b_go) f_b_waits <= 1'b1;
    end
  end
  always @(*) if (f_past_valid && rst_ni) begin
    assert(f_mmu_busy == (f_a_waits || f_b_waits));
    assert(!(f_a_waits && f_b_waits));
    assert(a_rsp_valid_o == (rsp_valid_i && f_a_waits));
    assert(b_rsp_valid_o == (rsp_valid_i && f_b_waits));
    // For the induction: what the arbiter remembers matches what happened.
    if (f_mmu_busy) assert(owner_b_q == f_b_waits);
    if (hold_q) assert(req_valid_o);
  end
  always @(posedge clk_i) if (f_past_valid && rst_ni && $past(rst_ni)) begin
    assert(hold_q == $past(req_valid_o && !req_ready_i));
    if (hold_q) assert(hold_b_q == $past(sel_b));
  end

  // Reachability: B waits while A asks and is still served first; both answered in turn.
  reg f_b_first = 1'b0;
  always @(posedge clk_i) if (!rst_ni) f_b_first <= 1'b0; else if (f_b_go && a_req_valid_i) f_b_first <= 1'b1;
  always @(*) if (f_past_valid && rst_ni) begin
    cover(f_b_go && a_req_valid_i);
    cover(f_b_first && a_rsp_valid_o);
    cover(b_rsp_valid_o && f_a_go);
  end
`undef ARB_ASSUME
`endif
endmodule

`default_nettype wire
