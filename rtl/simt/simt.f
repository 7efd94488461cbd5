// The SIMT compute unit (issue 13) on its own, for its tests and out-of-context runs (rtl/vmgpu.f lists it with the device).
rtl/simt/simt_alu.v
rtl/simt/simt_div.v
rtl/simt/simt_fround.v
rtl/simt/simt_fpu.v
rtl/simt/simt_fdiv.v
rtl/simt/simt_regfile.v
rtl/simt/simt_amo_alu.v
rtl/simt/simt_stage.v
rtl/simt/simt_lsu.v
rtl/simt/simt_core.v
