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
endmodule

`default_nettype wire
