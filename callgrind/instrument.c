/* callgrind-bd: the instrumentation state, on or off (--instr-atstart,
 * START/STOP_INSTRUMENTATION client requests, the "instrumentation"
 * monitor command).
 *
 * Switched off, blocks are translated without any instrumentation
 * (main.c asks cb_instrument_state); every switch discards the existing
 * translations, unwinds every thread's call stack (no call seen so far
 * will be seen returning), and empties the simulated caches as the
 * reference does (sim.c).
 *
 * Copyright (C) 2026 the callgrind-bd authors.  GPL-2.0-or-later.
 */
#include "global.h"

Bool cb_instrument_state = True;

/* Pop every frame and signal handler of a thread: with instrumentation
 * switched, no call seen so far will be seen returning. */
static void unwind_thread(thread_info *t)
{
   while (cb_cur.sig != 0) cb_post_signal(cb_cur.tid, cb_cur.sig);
   while (cb_calls->sp > 0) cb_pop_call_stack();
   cb_cur.collect = cb_clo.collect_atstart;
   cb_cur.cxt = NULL;
   cb_cur.jmps_passed = 0;
   cb_cur.bbcc = NULL;
   cb_cur.nonskipped = NULL;
   cb_fns->top = cb_fns->bottom;
}

/* --paths: what runs next starts a new root (paths.c), which the
 * thread's back-dating tree takes as its root's tag. After the caches'
 * lines left and the trees were settled (cb_sim_clear): no line
 * references the tree's root, nothing is pending there. */
static void restart_paths(thread_info *t)
{
   cb_paths_restart(t);
   cb_bd_retag_root(t->states[0]);
}

/* Set at start, before the client runs: nothing to unwind or discard. */
void cb_instrument_init(Bool state)
{
   cb_instrument_state = state;
}

void cb_set_instrument_state(const HChar *reason, Bool state)
{
   if (cb_instrument_state == state) return;
   cb_instrument_state = state;
   VG_(discard_translations_safely)((Addr)0x1000, ~(SizeT)0xfff, "callgrind-bd");
   /* Unlike the reference, the running counters are not zeroed: the
    * costs counted before the switch are still in their cost centres and
    * will be written, so summary: stays equal to totals:. */
   cb_forall_threads(unwind_thread);
   cb_forall_threads(cb_mark_stacks_emptied);
   cb_sim_clear();
   if (cb_clo.paths) cb_forall_threads(restart_paths);
   if (VG_(clo_verbosity) > 1)
      VG_(message)(Vg_DebugMsg, "%s: instrumentation switched %s\n",
                   reason, state ? "ON" : "OFF");
}
