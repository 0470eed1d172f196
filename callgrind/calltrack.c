/* callgrind-bd: the call tracker, run at the start of every executed
 * basic block (cb_setup_bbcc, called by the block's first instrumented
 * statement): it decides whether the block was entered by a call, a
 * return or a jump, keeps the shadow call stack (callstack.c) and the
 * context (function plus callers) up to date, and makes the block's cost
 * centre the running one (cb_cost_base), where the helpers count.
 *
 * The tracker follows the reference Callgrind's rules, because its call
 * graph is what users compare against:
 *   - a Ret is a real return only if the stack pointer rose above the top
 *     frame, or equals it and we land on that frame's return address;
 *     otherwise it is a jump;
 *   - any transfer first pops frames below the stack pointer (longjmp,
 *     exceptions); if it popped anything it was a return;
 *   - a jump to a function's first instruction, into another object or
 *     into another section kind is a call (tail calls, PLT stubs); from a
 *     pop-on-jump function (the lazy-binding resolver) the resolver's frame
 *     is popped first, so the caller appears to call the resolved function;
 *   - a return with nothing on the stack fakes the call it returns from.
 *
 * One rule differs (docs/differences.md): a jump from a function to its
 * own first instruction, with the stack pointer where it was when the
 * function was entered, is a loop back edge, not a call. gcc emits it at
 * -O1 for a loop whose head is the function's first instruction, and for
 * a function tail-calling itself; the reference pushes a frame per round,
 * so its memory grows with running time. With another stack pointer the
 * function has built a frame in between: a recursion, a call as before.
 *
 * Copyright (C) 2026 the callgrind-bd authors.  GPL-2.0-or-later.
 */
#include "global.h"

ULong   *cb_cost_base;

/*------------------------------------------------------------*/
/*--- The call tracker                                     ---*/
/*------------------------------------------------------------*/

/* Without cache simulation Ir is counted per block, here: the
 * instructions up to the exit taken (skipped code charges its caller). */
static void count_block_ir(BBCC *last_bbcc, UInt passed)
{
   UInt n = last_bbcc->bb->jmp[passed].instr + 1;
   cb_cur.cost[0] += n;
   if (cb_cur.nonskipped) cb_cur.nonskipped->skipped[0] += n;
}

/* Count the exit the previous block took (skipped code gets no
 * execution count: it would fool the dump). The block's exit table is
 * read only without cache simulation: it is a host cache miss of its
 * own. */
static inline void account_last_exit(BBCC *last_bbcc, UInt passed)
{
   if (!cb_cur.collect) return;
   if (!cb_cur.nonskipped) {
      last_bbcc->ecounter_sum++;
      last_bbcc->jmp[passed].ecounter++;
   }
   if (!cb_clo.simulate_cache) count_block_ir(last_bbcc, passed);
}

/* Number of frames a Ret pops, or 0 if it is no real return. */
static Int real_return_pops(Addr sp, Addr target)
{
   Int up = cb_calls->sp - 1, pops = 1;
   call_entry *top = &cb_calls->entry[up];
   if (sp < top->sp) return 0;
   if (sp > top->sp) return 1;
   /* same stack pointer: accept only a frame whose return address we hit */
   for (;;) {
      if (top->ret_addr == target) return pops;
      if (up == 0) return 0;
      top = &cb_calls->entry[--up];
      if (top->sp != sp) return 0;
      pops++;
   }
}

/* A return with an empty stack (or into a signal handler's separator):
 * fake the call from the returned-to function, at return address - 1,
 * lasting since the last dump (or since the handler started). */
static void handle_underflow(BB *bb)
{
   Bool seen;
   BB *src_bb = cb_get_bb(bb->addr - 1, 0, &seen);
   BBCC *src;
   fn_node *caller;
   call_entry *up;

   if (!seen) {
      src_bb->jmp = cb_mem_alloc(CB_MEM_BBS, "cb.bb.jmp", sizeof(jmp_info));
      src_bb->jmp[0].kind = jk_None;
      src_bb->jmp[0].instr = 0;
      src_bb->fn = cb_get_fn_node(bb);
   }
   src = cb_bbcc_first(src_bb);
   if (!seen) src->ecounter_sum = cb_cur.collect ? 1 : 0;
   else if (cb_cur.collect) src->ecounter_sum++;

   cb_fns->top--;
   cb_cur.cxt = NULL;
   caller = cb_get_fn_node(bb);
   cb_push_cxt(caller);
   if (!seen && !src->cxt) cb_bbcc_adopt(src, cb_cur.cxt);

   (*cb_fn_depth(cb_cur.bbcc->cxt->fn[0]->number))--;
   cb_cur.nonskipped = NULL;
   cb_push_cxt(cb_cur.bbcc->cxt->fn[0]);
   cb_push_faked_call(src, cb_cur.bbcc);
   up = &cb_calls->entry[cb_calls->sp - 1];
   if (cb_cur.sig == 0) cb_copy_cost(up->enter_cost, cb_cur.thread->underflow_cost);
   else cb_zero_cost(up->enter_cost);
}

/* The stack pointer the running function had at its first block: its
 * frame's, or for the function at the bottom of a thread or signal
 * handler (no frame) the context's. */
static Addr running_entry_sp(void)
{
   if (cb_calls->sp > cb_cur.es->call_stack_bottom)
      return cb_calls->entry[cb_calls->sp - 1].entry_sp;
   return cb_cur.es->entry_sp;
}

/* A jump back to the running function's first instruction, with the
 * stack pointer of its entry: a loop back edge (see the rules above). */
static Bool is_loop_to_entry(BB *last_bb, BB *bb, Addr sp)
{
   return bb->is_entry && cb_get_fn_node(bb) == cb_get_fn_node(last_bb)
       && sp == running_entry_sp();
}

static Bool is_call_like_jump(const BB *last_bb, const BB *bb)
{
   return bb->is_entry
       || last_bb->sect_kind != bb->sect_kind
       || last_bb->obj != bb->obj;
}

/* --collect-jumps: a jump that stayed a jump (no call, no return) is an
 * arc of its own, counted whether or not events are being collected, as
 * in the reference. */
static void count_jump(BBCC *from, UInt passed, BBCC *to, Bool conditional)
{
   JCC *j = cb_get_jcc(from, passed, to);
   if (j->kind == jk_Call) j->kind = conditional ? jk_CondJump : jk_Jump;
   j->call_counter++;
}

/* Inline fast paths of the per-block work below: the common case costs a
 * compare instead of a call (this function runs for every block). */
static inline Int unwind_below(Addr sp)
{
   if (cb_calls->sp == 0 || cb_calls->entry[cb_calls->sp - 1].sp >= sp) return 0;
   return cb_unwind_call_stack(sp, 0);
}

static inline UInt *fn_depth_fast(UInt fn_number)
{
   thread_info *t = cb_cur.thread;
   return fn_number < t->fn_active_size ? &t->fn_active[fn_number] : cb_fn_depth(fn_number);
}

/* The cost centre of bbcc's block and context at recursion level idx,
 * or NULL if there is none yet. Mostly bbcc is that level's itself
 * (every cost centre is its own entry of the shared rec_array): then the
 * array, a host cache miss of its own, is not read. */
static inline BBCC *rec_level_known(BBCC *bbcc, UInt idx)
{
   return bbcc->rec_index == idx ? bbcc : bbcc->rec_array[idx];
}

static inline BBCC *rec_level_fast(BBCC *bbcc, UInt idx)
{
   BBCC *known = rec_level_known(bbcc, idx);
   return known ? known : cb_bbcc_rec_level(bbcc, idx);
}

/* The function a block enters: with --separate-par, the context of the
 * argument values, read at the function's first instruction. */
static inline fn_node *entered_fn(BB *bb)
{
   fn_node *fn = cb_get_fn_node(bb);
   if (UNLIKELY(fn->separate_par != NULL) && bb->is_entry)
      return cb_sp_context_fn(fn);
   return fn;
}

/* The block becomes the running one. */
static inline void enter_bbcc(BBCC *bbcc, const void *sim_calls)
{
   cb_cur.bbcc = bbcc;
   cb_cur.jmps_passed = 0;
   cb_cost_base = bbcc->cost;
   if (UNLIKELY(cb_clo.latency)) cb_lat_pending = cb_cur.es;
   cb_stat.bb_executions++;
   cb_sim_block_starts(sim_calls);
}

/* The common case, a jump inside a function (a loop, an if) to the block
 * that followed the same exit last time: by the rules above nothing
 * changes but the running cost centre, which is the one chosen then. The
 * slow path marks such a transition in the exit's plain_next: a jump or
 * fall-through exit, a target that is no function entry, in the same
 * object and section kind. One successor per exit, not per block: a
 * block that branches both ways in turn (an if in a loop, a switch's
 * dispatch) would otherwise take the slow path every other time (a fifth
 * of all blocks did in gzip). What can differ from last time is checked
 * here: the target (the same exit has the same kind: a block's exits
 * never change, so its kind is not read again), the context (a call or
 * return since would change it), the thread, and the stack pointer
 * (frames to unwind). plain_next is the target's cost centre at
 * recursion level 0 (cb_bbcc_for_context). */
static inline Bool plain_jump(BB *bb, BBCC *last_bbcc, const void *sim_calls, Addr sp)
{
   UInt passed = cb_cur.jmps_passed;
   BBCC *base = last_bbcc->jmp[passed].plain_next, *next;
   if (!base || base->bb != bb || base->cxt != cb_cur.cxt
       || UNLIKELY(cb_mem_over) || cb_clo.collect_jumps)
      return False;
   /* the recursion level is the last block's: no call or return since */
   next = rec_level_known(base, last_bbcc->rec_index);
   if (!next) return False;
   if (cb_running_tid != cb_cur.tid) return False;
   if (cb_calls->sp > 0 && cb_calls->entry[cb_calls->sp - 1].sp < sp) return False;
   account_last_exit(last_bbcc, passed);
   enter_bbcc(next, sim_calls);
   return True;
}

/* Everything but a plain jump: calls, returns, other jumps, a first
 * block. Not inlined, so that the plain jump's path (cb_setup_bbcc)
 * saves none of the registers this one needs. */
static __attribute__((noinline))
void setup_bbcc_slow(BB *bb, const void *sim_calls, Addr guest_sp)
{
   ThreadId tid;
   BBCC *last_bbcc, *bbcc, *level0;   /* level0: bbcc at recursion level 0 */
   BB *last_bb;
   Addr sp;
   jmp_kind kind = jk_None;
   UInt passed = 0, exit_taken = 0;   /* passed may become a caller's exit */
   Int csp, pops = 1;
   Bool ret_without_call = False, call_emulation = False;
   Bool delayed_push = False, skip = False, plain = False;

   cb_sim_settle();      /* before the tree may change (sim.c) */
   /* --max-memory passed while the last block ran: no table is being
    * updated now, the profile so far can be written */
   if (UNLIKELY(cb_mem_over)) cb_stop_run(cb_mem_check());
   tid = VG_(get_running_tid)();
   if (UNLIKELY(tid != cb_cur.tid)) cb_switch_thread(tid);

   sp = guest_sp;
   last_bbcc = cb_cur.bbcc;
   last_bb = last_bbcc ? last_bbcc->bb : NULL;

   if (last_bb) {
      passed = exit_taken = cb_cur.jmps_passed;
      CB_ASSERT(passed <= last_bb->cjmp_count);
      kind = last_bb->jmp[passed].kind;
      account_last_exit(last_bbcc, passed);
      plain = (kind == jk_Jump || kind == jk_None) && !bb->is_entry
              && !is_call_like_jump(last_bb, bb);
   }

   csp = cb_calls->sp;
   if (kind == jk_Return && csp > 0) {
      pops = real_return_pops(sp, bb->addr);
      if (pops == 0) { kind = jk_Jump; ret_without_call = True; }
   }

   if (!last_bb) {
      cb_cur.es->entry_sp = sp;     /* a thread or signal handler starts */
   } else if (kind != jk_Return && kind != jk_Call
              && is_loop_to_entry(last_bb, bb, sp)) {
      kind = jk_Jump;
   } else if (kind != jk_Return && kind != jk_Call
              && (ret_without_call || is_call_like_jump(last_bb, bb))) {
      if (cb_get_fn_node(last_bb)->pop_on_jump && csp > 0) {
         call_entry *top = &cb_calls->entry[csp - 1];
         if (top->jcc) {
            /* the resolver's caller calls the resolved function */
            cb_cur.bbcc = top->jcc->from;
            sp = top->sp;
            passed = top->jcc->jmp;
            cb_pop_call_stack();
         }
      }
      kind = jk_Call;
      call_emulation = True;
   }

   if (kind == jk_Call) skip = cb_get_fn_node(bb)->skip;

   if (kind == jk_Return) {
      if (csp == 0 || (cb_fns->top > cb_fns->bottom && cb_fns->top[-1] == NULL)) {
         handle_underflow(bb);
         cb_pop_call_stack();
      } else {
         cb_unwind_call_stack(sp, pops);
      }
   } else {
      if (unwind_below(sp) > 0) kind = jk_Return;
      if (kind == jk_Call) {
         delayed_push = True;
         csp = cb_calls->sp;
         if (call_emulation && csp > 0) sp = cb_calls->entry[csp - 1].sp;
      }
   }

   if ((delayed_push && !skip) || cb_cur.cxt == NULL)
      cb_push_cxt(entered_fn(bb));

   bbcc = cb_bbcc_for_context(bb, cb_cur.cxt, last_bbcc);
   level0 = bbcc;
   if (last_bbcc) last_bbcc->lru_next_bbcc = bbcc;

   {
      fn_node *top = *cb_fns->top;
      if (top->separate_recs > 1) {
         UInt *active = fn_depth_fast(top->number);
         UInt level = *active;
         if (delayed_push && !skip) {
            if (!cb_clo.skip_direct_rec
                || cb_cur.bbcc->cxt->fn[0] != bbcc->cxt->fn[0])
               level++;
         }
         if (level > (UInt)top->separate_recs) level = top->separate_recs;
         if (level == 0) { level = 1; *active = 1; }
         bbcc = rec_level_fast(bbcc, level - 1);
      }
   }

   if (delayed_push) {
      if (!skip && cb_cur.nonskipped) {
         /* a call from skipped code is a call of the code that called it */
         cb_cur.bbcc = cb_cur.nonskipped;
         passed = cb_cur.bbcc->bb->cjmp_count;
      }
      cb_push_call_stack(cb_cur.bbcc, passed, bbcc, sp, skip);
      /* sp may be the caller's (a tail call): the callee's own entry SP
       * is the guest's */
      cb_calls->entry[cb_calls->sp - 1].entry_sp = guest_sp;
   }

   if (cb_clo.collect_jumps && kind == jk_Jump && last_bb)
      count_jump(last_bbcc, passed, bbcc, passed < last_bb->cjmp_count);

   if (last_bbcc)
      last_bbcc->jmp[exit_taken].plain_next =
         plain && (kind == jk_Jump || kind == jk_None) && !delayed_push ? level0 : NULL;
   enter_bbcc(bbcc, sim_calls);
}

VG_REGPARM(3) void cb_setup_bbcc(BB *bb, const void *sim_calls, Addr guest_sp)
{
   /* the last block's simulation, before anything moves (sim_replay.c) */
   if (cb_replay_n) cb_sim_replay();
   if (UNLIKELY(cb_clo.latency)) cb_lat_block_end();   /* (after its replay) */
   if (cb_cur.bbcc && plain_jump(bb, cb_cur.bbcc, sim_calls, guest_sp))
      return;
   setup_bbcc_slow(bb, sim_calls, guest_sp);
}
