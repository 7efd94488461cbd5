// Verilator / Yosys file list of vmgpu_top, in dependency order.
+incdir+rtl/generated
rtl/sync_fifo.v
rtl/device_memory.v
rtl/mem_fabric.v
rtl/tlb.v
rtl/page_table_walker.v
rtl/mmu.v
rtl/dma_engine.v
rtl/compute_engine.v
rtl/graphics_engine.v
rtl/tr_port_arb.v
rtl/command_processor.v
rtl/csr_block.v
rtl/vmgpu_top.v
