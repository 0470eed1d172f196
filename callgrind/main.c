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
#include "pub_tool_vkiscnums.h"
#include "pub_tool_aspacemgr.h"
#include "valgrind.h"          /* VG_USERREQ__GDB_MONITOR_COMMAND */
#include "objects.h"

/*------------------------------------------------------------*/
/*--- Instrumentation                                      ---*/
/*------------------------------------------------------------*/

/* An exit's kind as the reference sees it: a call, a return, a jump, or
 * a fall-through (jk_None) when it goes to the next instruction. */
static jmp_kind exit_kind(IRJumpKind jk, Bool known_dst, Addr dst, Addr next)
{
   if (jk == Ijk_Call) return jk_Call;
   if (jk == Ijk_Ret)  return jk_Return;
   return (known_dst && dst == next) ? jk_None : jk_Jump;
}

/* Instructions and side exits of a superblock; exits in the preamble
 * before the first instruction (self-modifying-code checks) are not the
 * client's. inverted: the last side exit goes to the next instruction,
 * i.e. VEX inverted the block's final conditional branch. */
static void count_block(IRSB *sbIn, UInt *instrs, UInt *exits, Addr *first,
                        Bool *inverted)
{
   Int i;
   Addr iaddr = 0;
   UInt ilen = 0;
   *instrs = *exits = 0;
   *first = 0;
   *inverted = False;
   for (i = 0; i < sbIn->stmts_used; i++) {
      IRStmt *st = sbIn->stmts[i];
      if (st->tag == Ist_IMark) {
         iaddr = (Addr)st->Ist.IMark.addr + st->Ist.IMark.delta;
         ilen = st->Ist.IMark.len;
         if (*instrs == 0) *first = iaddr;
         (*instrs)++;
         *inverted = False;
      } else if (st->tag == Ist_Exit && *instrs > 0) {
         (*exits)++;
         *inverted = (Addr)st->Ist.Exit.dst->Ico.U64 == iaddr + ilen;
      }
   }
}

/* With an inverted last branch, the last side exit is the guest's
 * fall-through and the block's end is the guest's branch: swap what they
 * describe, as the reference does. */
static void swap_last_exits(BB *bb)
{
   jmp_info t = bb->jmp[bb->cjmp_count];
   bb->jmp[bb->cjmp_count] = bb->jmp[bb->cjmp_count - 1];
   bb->jmp[bb->cjmp_count - 1] = t;
}

static void store_jmps_passed(IRSB *sbOut, UInt value)
{
   addStmtToIRSB(sbOut, IRStmt_Store(Iend_LE,
                 mkIRExpr_HWord((HWord)&cb_cur.jmps_passed),
                 IRExpr_Const(IRConst_U32(value))));
}

/* The call tracker's call at the block's start. It gets the guest stack
 * pointer read in the block (nothing has changed it yet there): cheaper
 * than asking the core for it. */
static void add_setup_call(IRSB *sbOut, BB *bb, const VexGuestLayout *layout, IRType word)
{
   IRTemp sp = newIRTemp(sbOut->tyenv, word);
   IRExpr **args = mkIRExprVec_3(mkIRExpr_HWord((HWord)bb), cb_sim_setup_arg(),
                                 IRExpr_RdTmp(sp));
   addStmtToIRSB(sbOut, IRStmt_WrTmp(sp, IRExpr_Get(layout->offset_SP, word)));
   IRDirty *di = unsafeIRDirty_0_N(3, "cb_setup_bbcc",
                                   VG_(fnptr_to_fnentry)(&cb_setup_bbcc), args);
   addStmtToIRSB(sbOut, IRStmt_Dirty(di));
}

/* Fill a new BB's static info: instruction offsets, sizes, lines. */
static void describe_instr(BB *bb, UInt idx, Addr addr, UInt size)
{
   instr_info *ii = &bb->instr[idx];
   ii->offset = addr - bb->addr;
   ii->size = size;
   cb_debug_pos(addr, bb->fn->file, bb->obj, &ii->line, &ii->file);
}

/* Instrumentation off: the block as it is, but for the turns' block
 * count (--interleave), which goes on. Without it the thread running when
 * instrumentation went off would keep its turn until it blocks: a thread
 * spinning on a flag that another, queued, thread sets held the lock for
 * 20,000 yields at each hand-over (seconds), and what the others did
 * before instrumentation came back followed Valgrind's schedule. */
static IRSB *count_turns_only(IRSB *sbIn)
{
   IRSB *sbOut;
   Int i = 0;

   if (!cb_il_active()) return sbIn;
   sbOut = deepCopyIRSBExceptStmts(sbIn);
   while (i < sbIn->stmts_used && sbIn->stmts[i]->tag != Ist_IMark)
      addStmtToIRSB(sbOut, sbIn->stmts[i++]);
   if (i == sbIn->stmts_used) return sbIn;   /* no instruction */
   cb_il_instrument(sbOut);
   for (; i < sbIn->stmts_used; i++)
      addStmtToIRSB(sbOut, sbIn->stmts[i]);
   return sbOut;
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
   Addr first, next = 0;
   Bool inverted;
   Int i;

   if (gWordTy != hWordTy) VG_(tool_panic)("host/guest word size mismatch");
   if (!cb_instrument_state) return count_turns_only(sbIn);

   count_block(sbIn, &instrs, &exits, &first, &inverted);
   if (instrs == 0) return sbIn;
   bb = cb_get_bb(first, instrs, &seen);
   if (!seen) {
      bb->cjmp_count = exits;
      bb->jmp = cb_mem_alloc(CB_MEM_BBS, "cb.bb.jmp", (exits + 1) * sizeof(jmp_info));
      VG_(memset)(bb->jmp, 0, (exits + 1) * sizeof(jmp_info));
      cb_get_fn_node(bb);
   }

   sbOut = deepCopyIRSBExceptStmts(sbIn);
   i = 0;
   while (i < sbIn->stmts_used && sbIn->stmts[i]->tag != Ist_IMark)
      addStmtToIRSB(sbOut, sbIn->stmts[i++]);

   cb_sim_bb_begin(sbOut, bb, !seen);
   add_setup_call(sbOut, bb, layout, gWordTy);
   cb_il_instrument(sbOut);

   for (; i < sbIn->stmts_used; i++) {
      IRStmt *st = sbIn->stmts[i];
      switch (st->tag) {
      case Ist_IMark: {
         Addr a = (Addr)st->Ist.IMark.addr + st->Ist.IMark.delta;
         if (!seen) describe_instr(bb, idx, a, st->Ist.IMark.len);
         cb_sim_instr(sbOut, idx, a, st->Ist.IMark.len);
         next = a + st->Ist.IMark.len;
         idx++;
         break;
      }
      case Ist_Exit: {
         /* taking an inverted last exit means the guest did NOT branch:
          * it counts as leaving through the block's end */
         UInt passed = (inverted && exit_idx + 1 == exits) ? exits : exit_idx;
         cb_sim_flush(sbOut);
         if (passed > 0) store_jmps_passed(sbOut, passed);
         if (!seen) {
            bb->jmp[exit_idx].kind = exit_kind(st->Ist.Exit.jk, True,
                                               (Addr)st->Ist.Exit.dst->Ico.U64, next);
            bb->jmp[exit_idx].instr = idx - 1;
         }
         cb_sim_exit(sbOut, st);
         exit_idx++;
         break;
      }
      default:
         cb_sim_stmt(sbOut, st);
         break;
      }
      addStmtToIRSB(sbOut, st);
   }

   cb_sim_flush(sbOut);
   cb_sim_final_jump(sbOut, sbIn);
   cb_sim_bb_end(sbOut);
   if (cb_clo.latency) cb_lat_bb_end(bb, inverted);
   if (exits > 0) store_jmps_passed(sbOut, inverted ? exits - 1 : exits);
   if (!seen) {
      Bool known = sbIn->next->tag == Iex_Const;
      bb->jmp[exits].kind = exit_kind(sbIn->jumpkind, known,
                                      known ? (Addr)sbIn->next->Iex.Const.con->Ico.U64 : 0,
                                      next);
      bb->jmp[exits].instr = instrs - 1;
      if (inverted) swap_last_exits(bb);
   }
   return sbOut;
}

/*------------------------------------------------------------*/
/*--- System call time (--collect-systime)                 ---*/
/*------------------------------------------------------------*/

/* When each thread entered its current system call: wall clock, and with
 * nsec the thread's CPU clock. */
static struct vki_timespec *syscall_wall_start, *syscall_cpu_start;

static void clock_now(struct vki_timespec *wall, struct vki_timespec *cpu)
{
   switch (cb_clo.collect_systime) {
   case SYSTIME_MSEC: {
      UInt ms = VG_(read_millisecond_timer)();
      wall->tv_sec = ms / 1000;
      wall->tv_nsec = (ms % 1000) * 1000000L;
      break;
   }
   case SYSTIME_USEC: {
      struct vki_timeval tv;
      VG_(gettimeofday)(&tv, NULL);
      wall->tv_sec = tv.tv_sec;
      wall->tv_nsec = tv.tv_usec * 1000L;
      break;
   }
   default:
      VG_(clock_gettime)(wall, VKI_CLOCK_MONOTONIC);
      VG_(clock_gettime)(cpu, VKI_CLOCK_THREAD_CPUTIME_ID);
      break;
   }
}

/* after - before, in the unit chosen by --collect-systime */
static ULong elapsed(const struct vki_timespec *after, const struct vki_timespec *before)
{
   Long ns = ((Long)after->tv_sec - (Long)before->tv_sec) * 1000000000LL
             + ((Long)after->tv_nsec - (Long)before->tv_nsec);
   if (ns < 0) ns = 0;
   switch (cb_clo.collect_systime) {
   case SYSTIME_MSEC: return (ULong)ns / 1000000ULL;
   case SYSTIME_USEC: return (ULong)ns / 1000ULL;
   default:           return (ULong)ns;
   }
}

/* A successful execve replaces the process: Valgrind does not run the
 * tool's exit code, so the profile of everything before would be lost.
 * It is dumped as a part first. An exec bound to fail (no such executable
 * file: a shell or execvp trying each directory of PATH) dumps nothing;
 * one that fails later (e.g. a bad ELF file) leaves an extra part. */
static Bool is_executable_file(const HChar *path)
{
   struct vg_stat st;
   if (sr_isError(VG_(stat)(path, &st))) return False;
   return VKI_S_ISREG(st.mode) && (st.mode & 0111) != 0;
}

static void dump_before_exec(UInt syscallno, const UWord *args)
{
   const HChar *path = (const HChar *)args[0];
   HChar trigger[64];
   if (syscallno != __NR_execve) return;
   if (!path || !VG_(am_is_valid_for_client)((Addr)path, 1, VKI_PROT_READ)) return;
   if (!is_executable_file(path)) return;
   VG_(snprintf)(trigger, sizeof trigger, "execve %s", path);
   cb_dump_profile(trigger, False);
   cb_remove_empty_out_file();
   cb_fs_fini(cb_last_part_base_name(), trigger);   /* the false sharing reports so far */
}

static void pre_syscall(ThreadId tid, UInt syscallno, UWord *args, UInt nArgs)
{
   cb_sim_catch_up();
   dump_before_exec(syscallno, args);
   cb_bw_syscall(tid, True);
   cb_il_syscall(tid, syscallno, args, NULL);
   if (cb_clo.collect_systime != SYSTIME_NO)
      clock_now(&syscall_wall_start[tid], &syscall_cpu_start[tid]);
}

/* The system call's cost belongs to the block that made it: as the
 * reference, it is written at that block's last instruction (where
 * skipped callees' costs go). A call made inside skipped code is charged
 * to the calling, non-skipped cost centre. */
static void post_syscall(ThreadId tid, UInt syscallno, UWord *args, UInt nArgs, SysRes res)
{
   struct vki_timespec wall, cpu;
   BBCC *owner;
   ULong *c;

   cb_sim_catch_up();
   cb_bw_syscall(tid, False);
   cb_il_syscall(tid, syscallno, args, &res);
   if (cb_clo.collect_systime == SYSTIME_NO) return;
   clock_now(&wall, &cpu);
   cb_switch_thread(tid);
   if (!cb_cur.bbcc || !cb_cur.collect) return;
   owner = cb_cur.nonskipped ? cb_cur.nonskipped : cb_cur.bbcc;
   if (!owner->skipped) owner->skipped = cb_new_cost(CB_MEM_COSTS);
   c = owner->skipped;
   c[cb_event_pos(EV_sysCount)]++;
   cb_cur.cost[cb_event_pos(EV_sysCount)]++;
   c[cb_event_pos(EV_sysTime)] += elapsed(&wall, &syscall_wall_start[tid]);
   cb_cur.cost[cb_event_pos(EV_sysTime)] += elapsed(&wall, &syscall_wall_start[tid]);
   if (cb_clo.collect_systime == SYSTIME_NSEC) {
      ULong t = elapsed(&cpu, &syscall_cpu_start[tid]);
      c[cb_event_pos(EV_sysCpuTime)] += t;
      cb_cur.cost[cb_event_pos(EV_sysCpuTime)] += t;
   }
}

/* The wrappers time system calls (--collect-systime) and save the
 * profile before an execve. */
static void init_syscall_wrappers(void)
{
   SizeT n = VG_N_THREADS * sizeof(struct vki_timespec);
   VG_(needs_syscall_wrapper)(pre_syscall, post_syscall);
   if (cb_clo.collect_systime == SYSTIME_NO) return;
   syscall_wall_start = CB_MALLOC("cb.systime", n);
   syscall_cpu_start = CB_MALLOC("cb.systime", n);
   VG_(memset)(syscall_wall_start, 0, n);
   VG_(memset)(syscall_cpu_start, 0, n);
}

/*------------------------------------------------------------*/
/*--- Start and end                                        ---*/
/*------------------------------------------------------------*/

static void cb_post_clo_init(void)
{
   cb_mem_post_clo_init();
   cb_options_post();
   cb_init_fn_tables();
   cb_init_bb_table();
   cb_init_cxt_table();
   cb_sim_post_clo_init();
   cb_obj_post_clo_init();
   cb_fs_post_clo_init();
   cb_il_post_clo_init();
   cb_init_dumps();
   /* every refusal above comes before any file is made; then the profile
    * first: the objects profile is beside it, so a missing directory
    * gets the profile's message (cb_obj_dump_init checks the .objects
    * file itself) */
   if (!cb_check_out_file()) VG_(exit)(1);
   cb_obj_dump_init();
   cb_check_companion_files();
   cb_init_threads();
   cb_mpi_rank_init();
   cb_instrument_init(cb_clo.instr_atstart);
   init_syscall_wrappers();

   if (VG_(clo_verbosity) > 0) {
      Int e;
      VG_(umsg)("For interactive control, run 'callgrind-bd_control -h'.\n");
      (void)e;
   }
}

/* The block running at exit never completes. As the reference, its costs
 * are not written (they are in summary: and in the inclusive costs of the
 * frames still running, as the reference's). Lines it loaded are kept out
 * of the back-dating trees, so that back-dated inclusive costs stay the
 * sums of the self costs written. */
/* The system call of a block that never completed (exit_group) is not
 * written as a self cost, as in the reference; like the block's other
 * events it stays in the running counter, hence in the inclusive costs
 * of the frames still running. */
static void drop_unfinished_syscalls(BBCC *b)
{
   static const event_id sys[] = { EV_sysCount, EV_sysTime, EV_sysCpuTime };
   UInt i;
   if (!b->skipped) return;
   for (i = 0; i < sizeof sys / sizeof sys[0]; i++)
      if (cb_ev_pos[sys[i]] >= 0) b->skipped[cb_ev_pos[sys[i]]] = 0;
}

static void drop_unfinished_block(thread_info *t)
{
   exec_state *es = t->states[t->states_sp];
   BBCC *b = es->bbcc;
   SizeT bytes;
   if (!b || b->ecounter_sum > 0 || b->ret_counter > 0) return;
   drop_unfinished_syscalls(b);
   if (!b->cost) return;
   /* Its self costs are not written, as in the reference; but the running
    * counters, hence the inclusive costs of the calls around it, hold
    * them, and so do the trees for the lines it loaded (some of them may
    * have left long ago, when the block ended its thread). The block gets
    * a fresh cost array: the old one, which resident lines still point
    * to, only collects their self metrics out of sight. */
   bytes = (SizeT)b->bb->instr_count * cb_n_events * sizeof(ULong);
   if (cb_clo.objects)
      cb_obj_block_dropped(b->bb, b->cost, (SizeT)b->bb->instr_count * cb_n_events);
   b->cost = cb_mem_alloc(CB_MEM_COSTS, "cb.bbcc.dropped", bytes);
   VG_(memset)(b->cost, 0, bytes);
}

/* A run that wrote no event at all had collection off all the time,
 * most likely by mistake (a --toggle-collect pattern that never matched,
 * --collect-atstart=no without a toggle): say so. */
static void warn_if_nothing_collected(void)
{
   Int i;
   for (i = 0; i < cb_n_events; i++)
      if (cb_written_total[i]) return;
   VG_(fmsg)("callgrind-bd: warning: nothing was collected: every event is 0 "
             "(see --collect-atstart, --toggle-collect, --instr-atstart)\n");
}

/* The end of a run: each thread's unfinished block dropped, every
 * resident line flushed into the trees, the last dump (trigger NULL:
 * the program's end; else why the run is stopped, --max-memory). */
void cb_finish_run(const HChar *trigger)
{
   cb_sim_catch_up();
   cb_settle_sim_counts();
   cb_exec_state_save();
   /* the running units' events first: the unfinished block's are dropped
    * with its other costs */
   cb_bw_finish(cb_out_base_name());
   cb_forall_threads(drop_unfinished_block);
   cb_sim_finish();
   cb_fini_dump(trigger);
   if (VG_(clo_verbosity) > 0) cb_print_summary();
   if (VG_(clo_verbosity) > 1 || cb_clo.verbose > 0) {
      cb_sim_print_stats();
      cb_mem_print_stats();
      cb_il_print_stats();
      cb_pin_print_stats();
      cb_paths_print_stats();
   }

   cb_obj_fini();
   cb_fs_fini(cb_out_base_name(), trigger);
   cb_fn_config_warn_unmatched();
   cb_sp_report_unmatched();
   warn_if_nothing_collected();
}

static void cb_fini(Int exitcode)
{
   cb_finish_run(NULL);
}

/* A thread ends; Valgrind gives its id to the next thread created. Its
 * frames are closed now, as at the end of the run (their arcs get their
 * inclusive costs): otherwise the next thread with that id would run on
 * top of them, they would count its costs, and the frames each ended
 * thread leaves (it exits inside start_thread) would pile up with the
 * number of threads created. The block that made the exit call stays
 * the thread's last block: the next thread with the id completes it, as
 * in the reference (with none, the end of the run drops it). */
static void cb_thread_created(ThreadId parent, ThreadId child)
{
   cb_bw_thread_created(parent, child);
   cb_il_thread_created(parent, child);
   cb_fs_thread_created(parent, child);
   if (cb_clo.latency) cb_lat_thread_created(child);
}

static void cb_thread_exit(ThreadId tid)
{
   thread_info *t = tid < VG_N_THREADS ? cb_get_threads()[tid] : NULL;
   ThreadId orig = cb_cur.tid;
   cb_sim_catch_up();
   cb_bw_thread_exit(tid);
   cb_il_thread_exited(tid);
   cb_fs_thread_exit(tid);
   if (!t || t->states_sp > 0) return;   /* inside a signal handler: keep */
   cb_switch_thread(tid);
   while (cb_calls->sp > 0) cb_pop_call_stack();
   t->states[0]->entry_sp = 0;           /* the next thread's is unknown */
   /* the next thread with the id is another context: a call path root
    * and a back-dating tree of its own (lines loaded so far keep the
    * old tree's nodes, whose arcs get their metrics as before) */
   cb_paths_thread_exit(t);
   cb_bd_restart_tree(t->states[0], NULL, 0);
   cb_switch_thread(orig);
}

/* --max-memory passed (memory.c): the profile so far, then the end. */
void cb_stop_run(const HChar *why)
{
   cb_finish_run(why);
   VG_(exit)(1);
}

ThreadId cb_running_tid;

/* Whether --dump-every-bb is due is checked, as in the reference, only
 * when the scheduler has run 5000 blocks since the last check, so that
 * the parts cut at the same places. */
static void cb_start_client_code(ThreadId tid, ULong blocks_done)
{
   static ULong last_check, bbs_done;
   const HChar *stop;
   cb_il_thread_runs(tid);               /* may let others run first */
   cb_running_tid = tid;
   cb_sim_catch_up();
   stop = cb_mem_check();                /* the baseline at the start */
   if (stop) cb_stop_run(stop);
   if (blocks_done - last_check < 5000) return;
   last_check = blocks_done;
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
   cb_sim_catch_up();
   VG_(dmsg)("callgrind-bd: BBs %llu, BBCCs %llu (clones %llu), JCCs %llu, contexts %llu\n",
             cb_stat.distinct_bbs, cb_stat.distinct_bbccs, cb_stat.bbcc_clones,
             cb_stat.distinct_jccs, cb_stat.distinct_contexts);
   VG_(dmsg)("callgrind-bd: BBs executed %llu, calls %llu (recursive %llu)\n",
             cb_stat.bb_executions, cb_stat.call_counter, cb_stat.rec_call_counter);
}

/* Client requests: the gdbserver's monitor commands arrive as one too. */
static Bool handle_client_request(ThreadId tid, UWord *args, UWord *ret)
{
   cb_sim_catch_up();
   if (args[0] == VG_USERREQ__GDB_MONITOR_COMMAND) {
      *ret = cb_handle_gdb_monitor_command(tid, (HChar *)args[1]);
      return (Bool)*ret;
   }
   return cb_handle_client_request(tid, args, ret);
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
   VG_(needs_client_requests)(handle_client_request);
   VG_(needs_print_stats)(cb_print_stats);
   VG_(track_start_client_code)(cb_start_client_code);
   VG_(track_pre_thread_ll_exit)(cb_thread_exit);
   VG_(track_pre_thread_ll_create)(cb_thread_created);
   VG_(track_pre_deliver_signal)(cb_pre_signal);
   VG_(track_post_deliver_signal)(cb_post_signal);
}

VG_DETERMINE_INTERFACE_VERSION(cb_pre_clo_init)
