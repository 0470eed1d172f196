/* callgrind-bd: tool registration and instrumentation.
 *
 * Every superblock gets one call to cb_setup_bbcc at its start (the call
 * tracker, and Ir counting when no cache is simulated) and a constant
 * store before each side exit, recording which exit was taken. With cache
 * or branch simulation, sim.c adds per-instruction helpers.
 *
 * Copyright (C) 2026 the callgrind-bd authors.  GPL-2.0-or-later.
 */
#include "global.h"

Bool cb_instrument_state = True;

/*------------------------------------------------------------*/
/*--- Instrumentation                                      ---*/
/*------------------------------------------------------------*/

static JmpKind jmpkind_of(IRJumpKind jk, Bool side_exit)
{
   switch (jk) {
   case Ijk_Call:   return jk_Call;
   case Ijk_Ret:    return jk_Return;
   case Ijk_Boring: return side_exit ? jk_CondJump : jk_Jump;
   default:         return jk_None;
   }
}

/* Instructions and side exits of a superblock. */
static void count_block(IRSB *sbIn, UInt *instrs, UInt *exits, Addr *first)
{
   Int i;
   *instrs = *exits = 0;
   *first = 0;
   for (i = 0; i < sbIn->stmts_used; i++) {
      IRStmt *st = sbIn->stmts[i];
      if (st->tag == Ist_IMark) {
         if (*instrs == 0) *first = (Addr)st->Ist.IMark.addr + st->Ist.IMark.delta;
         (*instrs)++;
      } else if (st->tag == Ist_Exit) {
         (*exits)++;
      }
   }
}

static void store_jmps_passed(IRSB *sbOut, UInt value)
{
   addStmtToIRSB(sbOut, IRStmt_Store(Iend_LE,
                 mkIRExpr_HWord((HWord)&cb_cur.jmps_passed),
                 IRExpr_Const(IRConst_U32(value))));
}

static void add_setup_call(IRSB *sbOut, BB *bb)
{
   IRExpr **args = mkIRExprVec_1(mkIRExpr_HWord((HWord)bb));
   IRDirty *di = unsafeIRDirty_0_N(1, "cb_setup_bbcc",
                                   VG_(fnptr_to_fnentry)(&cb_setup_bbcc), args);
   addStmtToIRSB(sbOut, IRStmt_Dirty(di));
}

/* Fill a new BB's static info: instruction offsets, sizes, lines. */
static void describe_instr(BB *bb, UInt idx, Addr addr, UInt size)
{
   InstrInfo *ii = &bb->instr[idx];
   ii->offset = addr - bb->addr;
   ii->size = size;
   cb_debug_pos(addr, bb->fn->file, bb->obj, &ii->line, &ii->file);
}

static IRSB *cb_instrument(VgCallbackClosure *closure, IRSB *sbIn,
                           const VexGuestLayout *layout,
                           const VexGuestExtents *vge,
                           const VexArchInfo *archinfo_host,
                           IRType gWordTy, IRType hWordTy)
{
   IRSB *sbOut;
   BB *bb;
   Bool seen;
   UInt instrs, exits, idx = 0, exit_idx = 0;
   Addr first;
   Int i;

   if (gWordTy != hWordTy) VG_(tool_panic)("host/guest word size mismatch");
   if (!cb_instrument_state) return sbIn;

   count_block(sbIn, &instrs, &exits, &first);
   if (instrs == 0) return sbIn;
   bb = cb_get_bb(first, instrs, &seen);
   if (!seen) {
      bb->cjmp_count = exits;
      bb->jmp = CB_MALLOC("cb.bb.jmp", (exits + 1) * sizeof(JmpInfo));
      VG_(memset)(bb->jmp, 0, (exits + 1) * sizeof(JmpInfo));
      cb_get_fn_node(bb);
   }

   sbOut = deepCopyIRSBExceptStmts(sbIn);
   i = 0;
   while (i < sbIn->stmts_used && sbIn->stmts[i]->tag != Ist_IMark)
      addStmtToIRSB(sbOut, sbIn->stmts[i++]);

   add_setup_call(sbOut, bb);
   cb_sim_bb_begin(sbOut, bb, !seen);

   for (; i < sbIn->stmts_used; i++) {
      IRStmt *st = sbIn->stmts[i];
      switch (st->tag) {
      case Ist_IMark: {
         Addr a = (Addr)st->Ist.IMark.addr + st->Ist.IMark.delta;
         if (!seen) describe_instr(bb, idx, a, st->Ist.IMark.len);
         cb_sim_instr(sbOut, idx, a, st->Ist.IMark.len);
         idx++;
         break;
      }
      case Ist_Exit:
         cb_sim_flush(sbOut);
         if (exit_idx > 0) store_jmps_passed(sbOut, exit_idx);
         if (!seen) {
            bb->jmp[exit_idx].kind = jmpkind_of(st->Ist.Exit.jk, True);
            bb->jmp[exit_idx].instr = idx - 1;
         }
         cb_sim_exit(sbOut, st);
         exit_idx++;
         break;
      default:
         cb_sim_stmt(sbOut, st);
         break;
      }
      addStmtToIRSB(sbOut, st);
   }

   cb_sim_flush(sbOut);
   cb_sim_final_jump(sbOut, sbIn);
   cb_sim_bb_end(sbOut);
   if (exits > 0) store_jmps_passed(sbOut, exits);
   if (!seen) {
      bb->jmp[exits].kind = jmpkind_of(sbIn->jumpkind, False);
      bb->jmp[exits].instr = instrs - 1;
   }
   return sbOut;
}

/*------------------------------------------------------------*/
/*--- Start and end                                        ---*/
/*------------------------------------------------------------*/

static void cb_post_clo_init(void)
{
   cb_options_post();
   cb_init_fn_tables();
   cb_init_bb_table();
   cb_init_cxt_table();
   cb_sim_post_clo_init();
   cb_init_threads();
   cb_init_dumps();
   if (!cb_check_out_file()) VG_(exit)(1);
   cb_instrument_state = cb_clo.instr_atstart;

   if (VG_(clo_verbosity) > 0) {
      Int e;
      VG_(umsg)("For interactive control, run 'callgrind_control -h'.\n");
      (void)e;
   }
}

/* The exit summary on stderr, in the reference's layout. */
static void print_summary(void)
{
   ULong total[cb_n_events];
   thread_info **ts = cb_get_threads();
   Int t, e;
   HChar line[512];
   Int n = 0;

   cb_zero_cost(total);
   for (t = 1; t < VG_N_THREADS; t++)
      if (ts[t]) cb_add_cost(total, ts[t]->states[0]->cost);

   n = VG_(sprintf)(line, "Events    :");
   for (e = 0; e < EV_COUNT; e++)
      if (cb_ev_pos[e] >= 0) n += VG_(sprintf)(line + n, " %s", cb_ev_name[e]);
   VG_(message)(Vg_UserMsg, "%s\n", line);
   n = VG_(sprintf)(line, "Collected :");
   for (e = 0; e < EV_COUNT; e++)
      if (cb_ev_pos[e] >= 0) n += VG_(sprintf)(line + n, " %llu", total[cb_ev_pos[e]]);
   VG_(message)(Vg_UserMsg, "%s\n", line);
   VG_(message)(Vg_UserMsg, "\n");
   if (!cb_clo.simulate_cache)
      VG_(message)(Vg_UserMsg, "I   refs:      %'llu\n", total[0]);
   else
      cb_sim_print_summary(total);
}

/* The block running at exit never completes. As the reference, its costs
 * are not written (they are in summary: and in the inclusive costs of the
 * frames still running, as the reference's). Lines it loaded are kept out
 * of the back-dating trees, so that back-dated inclusive costs stay the
 * sums of the self costs written. */
static void drop_unfinished_block(thread_info *t)
{
   exec_state *es = t->states[t->states_sp];
   BBCC *b = es->bbcc;
   if (!b || b->ecounter_sum > 0 || b->ret_counter > 0 || !b->cost) return;
   /* the oracle's immediate line counts of this execution leave with
    * the lines */
   if (cb_clo.backdate_check) {
      es->cost[EVP(EV_L1ld)] -= es->block_lines[0];
      es->cost[EVP(EV_LLld)] -= es->block_lines[1];
   }
   cb_sim_drop_slots(b->cost, (SizeT)b->bb->instr_count * cb_n_events);
   VG_(memset)(b->cost, 0, (SizeT)b->bb->instr_count * cb_n_events * sizeof(ULong));
}

static void cb_fini(Int exitcode)
{
   cb_exec_state_save();
   cb_forall_threads(drop_unfinished_block);
   cb_sim_finish();
   cb_fini_dump();
   if (VG_(clo_verbosity) > 0) print_summary();
   if (VG_(clo_verbosity) > 1 || cb_clo.verbose > 0) cb_sim_print_stats();
}

static void cb_start_client_code(ThreadId tid, ULong blocks_done)
{
   static ULong bbs_done;
   if (cb_clo.dump_every_bb > 0 && cb_stat.bb_executions - bbs_done > cb_clo.dump_every_bb) {
      HChar buf[64];
      VG_(sprintf)(buf, "--dump-every-bb=%llu", cb_clo.dump_every_bb);
      cb_dump_profile(buf, False);
      bbs_done = cb_stat.bb_executions;
   }
   cb_switch_thread(tid);
}

static void cb_discard_superblock_info(Addr orig_addr, VexGuestExtents vge)
{
   /* BBs are kept: a retranslation of the same code reuses them. */
}

static void cb_print_stats(void)
{
   VG_(dmsg)("callgrind-bd: BBs %llu, BBCCs %llu (clones %llu), JCCs %llu, contexts %llu\n",
             cb_stat.distinct_bbs, cb_stat.distinct_bbccs, cb_stat.bbcc_clones,
             cb_stat.distinct_jccs, cb_stat.distinct_contexts);
   VG_(dmsg)("callgrind-bd: BBs executed %llu, calls %llu (recursive %llu)\n",
             cb_stat.bb_executions, cb_stat.call_counter, cb_stat.rec_call_counter);
}

static void cb_pre_clo_init(void)
{
   VG_(details_name)("Callgrind-bd");
   VG_(details_version)(CB_VERSION);
   VG_(details_description)("a call-graph generating cache profiler with back-dated inclusive cache-use costs");
   VG_(details_copyright_author)("Copyright (C) 2026, the callgrind-bd authors; GNU GPL'd.");
   VG_(details_bug_reports_to)("the callgrind-bd issue tracker");
   VG_(details_avg_translation_sizeB)(500);

   /* Blocks must map cleanly to functions: no chasing across jumps, no
    * unrolling; the stack pointer must be exact at memory accesses. */
   VG_(clo_vex_control).iropt_register_updates_default
      = VG_(clo_px_file_backed) = VexRegUpdSpAtMemAccess;
   VG_(clo_vex_control).iropt_unroll_thresh = 0;
   VG_(clo_vex_control).guest_chase = False;

   VG_(basic_tool_funcs)(cb_post_clo_init, cb_instrument, cb_fini);
   VG_(needs_superblock_discards)(cb_discard_superblock_info);
   VG_(needs_command_line_options)(cb_process_cmd_line_option,
                                   cb_print_usage, cb_print_debug_usage);
   VG_(needs_client_requests)(cb_handle_client_request);
   VG_(needs_print_stats)(cb_print_stats);
   VG_(track_start_client_code)(cb_start_client_code);
   VG_(track_pre_deliver_signal)(cb_pre_signal);
   VG_(track_post_deliver_signal)(cb_post_signal);
   cb_clreq_init();
}

VG_DETERMINE_INTERFACE_VERSION(cb_pre_clo_init)
