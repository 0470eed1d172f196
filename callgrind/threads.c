/* callgrind-bd: threads and signal handlers.
 *
 * Every thread has its own call stack, function stack, recursion counts
 * and a stack of execution states: index 0 is the thread's own flow, each
 * running signal handler pushes one more (at most MAX_SIGHANDLERS). An
 * execution state owns a running counter and a back-dating tree, so a
 * handler's costs are a root of their own, never a callee of whatever it
 * interrupted.
 *
 * Copyright (C) 2026 the callgrind-bd authors.  GPL-2.0-or-later.
 */
#include "global.h"
#include "objects.h"

cur_state    cb_cur;
call_stack *cb_calls;
fn_stack   *cb_fns;
static thread_info **threads;    /* VG_N_THREADS entries */

thread_info **cb_get_threads(void) { return threads; }

static exec_state *new_exec_state(Int sig)
{
   exec_state *es = cb_mem_alloc(CB_MEM_STACKS, "cb.es", sizeof *es);
   VG_(memset)(es, 0, sizeof *es);
   es->cost = cb_new_cost(CB_MEM_STACKS);
   es->sig = sig;
   es->collect = cb_clo.collect_atstart;
   return es;
}

static thread_info *new_thread(ThreadId tid)
{
   thread_info *t = cb_mem_alloc(CB_MEM_STACKS, "cb.thread", sizeof *t);
   VG_(memset)(t, 0, sizeof *t);
   t->tid = tid;
   t->states[0] = new_exec_state(0);
   cb_paths_new_context(t->states[0], tid);
   t->states[0]->bd = cb_bd_new_tree(t->states[0]->path_root);
   cb_init_call_stack(&t->calls);
   cb_init_fn_stack(&t->fns);
   t->lastdump_cost = cb_new_cost(CB_MEM_STACKS);
   t->underflow_cost = cb_new_cost(CB_MEM_STACKS);
   t->sighandler_cost = cb_new_cost(CB_MEM_STACKS);
   cb_init_bbcc_hash(&t->bbccs);
   cb_init_jcc_hash(&t->jccs);
   return t;
}

/* Copy the hot-path state back into the top execution state. */
void cb_exec_state_save(void)
{
   exec_state *es = cb_cur.es;
   if (!es) return;
   es->cxt = cb_cur.cxt;
   es->collect = cb_cur.collect;
   es->jmps_passed = cb_cur.jmps_passed;
   es->bbcc = cb_cur.bbcc;
   es->nonskipped = cb_cur.nonskipped;
}

static void exec_state_load(thread_info *t)
{
   exec_state *es = t->states[t->states_sp];
   cb_cur.es = es;
   cb_cur.cxt = es->cxt;
   cb_cur.collect = es->collect;
   cb_cur.jmps_passed = es->jmps_passed;
   cb_cur.bbcc = es->bbcc;
   cb_cur.nonskipped = es->nonskipped;
   cb_cur.cost = es->cost;
   cb_cur.sig = es->sig;
   cb_cost_base = es->bbcc ? es->bbcc->cost : NULL;
   cb_obj_state_changed();
}

/* The cost centre tables of thread tid: its own with
 * --separate-threads=yes, else thread 1's, shared by all (thread 1 is made
 * first and never freed). */
static void set_tables(ThreadId tid)
{
   thread_info *owner = threads[cb_clo.separate_threads ? tid : 1];
   cb_cur.bbccs = &owner->bbccs;
   cb_cur.jccs = &owner->jccs;
}

void cb_switch_thread(ThreadId tid)
{
   thread_info *t;
   if (tid == cb_cur.tid) return;
   cb_sim_catch_up();            /* the last block ran on the old thread */
   if (cb_clo.latency) { cb_lat_block_end(); cb_lat_now.unknown = True; }
   cb_exec_state_save();
   cb_cur.tid = tid;
   if (tid == VG_INVALID_THREADID) { cb_cur.es = NULL; cb_cur.thread = NULL; return; }
   CB_ASSERT(tid < VG_N_THREADS);
   if (!threads[tid]) threads[tid] = new_thread(tid);
   t = threads[tid];
   cb_cur.thread = t;
   cb_sim_switch_thread(tid);
   set_tables(tid);
   cb_calls = &t->calls;
   cb_fns = &t->fns;
   exec_state_load(t);
}

void cb_init_threads(void)
{
   threads = CB_MALLOC("cb.threads", VG_N_THREADS * sizeof(thread_info *));
   VG_(memset)(threads, 0, VG_N_THREADS * sizeof(thread_info *));
   cb_cur.tid = VG_INVALID_THREADID;
   cb_switch_thread(1);
}

/* Call f for every thread, with that thread made current. */
void cb_forall_threads(void (*f)(thread_info *))
{
   ThreadId orig = cb_cur.tid, t;
   for (t = 1; t < VG_N_THREADS; t++) {
      if (!threads[t]) continue;
      cb_switch_thread(t);
      f(threads[t]);
   }
   cb_switch_thread(orig);
}

void cb_pre_signal(ThreadId tid, Int sigNo, Bool alt_stack)
{
   thread_info *t;
   exec_state *es;

   cb_sim_catch_up();
   cb_switch_thread(tid);
   t = cb_cur.thread;
   cb_exec_state_save();
   cb_bw_context_change(tid);
   if (t->states_sp + 1 >= MAX_SIGHANDLERS) {
      VG_(message)(Vg_UserMsg, "callgrind-bd: more than %d nested signal handlers\n",
                   MAX_SIGHANDLERS - 1);
      VG_(exit)(1);
   }
   t->states_sp++;
   es = t->states[t->states_sp];
   if (!es) es = t->states[t->states_sp] = new_exec_state(sigNo);
   cb_zero_cost(es->cost);
   es->sig = sigNo;
   es->collect = cb_clo.collect_atstart;
   es->cxt = NULL;
   es->jmps_passed = 0;
   es->bbcc = NULL;
   es->nonskipped = NULL;
   es->call_stack_bottom = cb_calls->sp;
   cb_paths_new_context(es, tid);
   es->bd = cb_bd_new_tree(es->path_root);
   exec_state_load(t);
   cb_push_cxt(NULL);
}

/* The execution state frame i of t's call stack runs in, whose running
 * counter it entered with: a signal handler's frames start at its stack
 * bottom; the frames it interrupted stand still on their own counter
 * (the handler's costs go to the thread's sighandler_cost, not to the
 * calls it interrupted), as when the handler has returned. */
const exec_state *cb_frame_state(const thread_info *t, Int i)
{
   Int s;
   for (s = t->states_sp; s > 0; s--)
      if (t->states[s] && i >= t->states[s]->call_stack_bottom) return t->states[s];
   return t->states[0];
}

/* Called when popping a frame inside a handler: at the handler's bottom,
 * the handler is being left by a longjmp. */
void cb_run_post_signal_on_call_stack_bottom(void)
{
   exec_state *es = cb_cur.es;
   if (cb_calls->sp == es->call_stack_bottom)
      cb_post_signal(cb_cur.tid, cb_cur.sig);
}

void cb_post_signal(ThreadId tid, Int sigNo)
{
   thread_info *t;
   exec_state *es;

   cb_sim_catch_up();
   cb_switch_thread(tid);
   t = cb_cur.thread;
   es = cb_cur.es;
   if (t->states_sp == 0 || sigNo != cb_cur.sig) return;
   cb_bw_context_change(tid);

   while (cb_calls->sp > es->call_stack_bottom) cb_pop_call_stack();

   if (cb_cur.cxt) (*cb_fn_depth(cb_cur.cxt->fn[0]->number))--;

   if (cb_fns->top > cb_fns->bottom) {
      /* the top is the handler's separator if nothing ran in it */
      if (*cb_fns->top != NULL) cb_fns->top--;
      if (cb_fns->top > cb_fns->bottom) cb_fns->top--;
   }

   cb_paths_end_context(es);
   cb_add_cost(t->sighandler_cost, es->cost);
   cb_zero_cost(es->cost);
   cb_bd_close_tree(es->bd);
   es->bd = NULL;
   es->sig = -1;
   t->states_sp--;
   exec_state_load(t);
}

/* The deferred simulation's counts of every thread's cost centres go to
 * their cost slots (sim_replay.c: "Counting by histogram"). */
void cb_settle_sim_counts(void)
{
   cb_forall_threads(cb_sim_settle_thread);
}
