/* callgrind-bd: --private-caches=yes -- every thread a core with its own
 * I1 and D1 over the shared LL, kept coherent by write invalidation. Owns
 * the cores (thread id -> core), their events and the operations on all
 * caches; the model's rules are in cachesim/coherence.h, the access hook
 * is inline in cores.h.
 *
 * Core k is Valgrind's thread id k + 1: thread 1 runs on the cache model
 * made at start, so a single-threaded program gives exactly the profile
 * of the shared model.
 *
 * Events (immediate, of the accessing instruction, after all others):
 *    D1Ts   D1 misses of a line this core lost to another thread's store,
 *           touching bytes written by other threads since (true sharing)
 *    D1Fs   the same, touching none of those bytes (false sharing)
 *    Inv    other cores' D1 copies invalidated by this store
 *
 * Copyright (C) 2026 the callgrind-bd authors.  GPL-2.0-or-later.
 */
#include "cores.h"

cc_sys  *cb_cc;
cc_core *cb_cc_core;

void cb_cores_setup(cs_sim *first)
{
   cb_event_declare(EV_D1Ts, "D1Ts");
   cb_event_declare(EV_D1Fs, "D1Fs");
   cb_event_declare(EV_Inv, "Inv");
   cb_cc = cc_new(first);
   cb_cc_core = cc_core_of(cb_cc, 0);
}

unsigned cb_cores_coherence(Addr a, UWord size, unsigned r, Bool is_write)
{
   cs_sim *sim = cb_cc_core->sim;
   /* invalidated lines leave other cores under the running context's flag */
   if (UNLIKELY(sim->collect != cb_cur.collect)) cs_set_collect(sim, cb_cur.collect);
   return cc__data(cb_cc, cb_cc_core, a, (unsigned)size, r, is_write);
}

cs_sim *cb_cores_switch(ThreadId tid)
{
   Bool made = !cc_core_exists(cb_cc, tid - 1);
   /* the cores share the LL: the next finds the last one's fills made */
   cs_settle(cb_cc_core->sim);
   cb_cc_core = cc_core_of(cb_cc, tid - 1);
   if (made && cb_clo.miss_class) cb_mc_new_core(tid - 1, cb_cc_core->sim);
   return cb_cc_core->sim;
}

void cb_cores_set_collect(Bool collecting)
{
   cc_set_collect(cb_cc, collecting);
}

void cb_cores_flush(void)
{
   cc_flush(cb_cc);
}

void cb_cores_clear(void)
{
   cc_clear(cb_cc);
}

UInt cb_cores_n(void)
{
   return cc_n_cores(cb_cc);
}

cs_sim *cb_cores_sim(UInt k)
{
   return cc_core_exists(cb_cc, k) ? cc_core_of(cb_cc, k)->sim : NULL;
}

void cb_cores_prefetch_counts(ULong *up, ULong *down)
{
   UInt k;
   *up = *down = 0;
   for (k = 0; k < cc_n_cores(cb_cc); k++) {
      uint64_t u, d;
      if (!cc_core_exists(cb_cc, k)) continue;
      cs_prefetch_counts(cc_core_of(cb_cc, k)->sim, &u, &d);
      *up += u;
      *down += d;
   }
}

void cb_cores_print_stats(void)
{
   cc_stats st;
   cc_get_stats(cb_cc, &st);
   VG_(dmsg)("Private caches:    cores %u, lost lines %llu, their entries now %llu, max %llu, "
             "sweeps %llu; line states %llu KiB\n",
             cc_n_cores(cb_cc), (ULong)st.lost_now, (ULong)st.entries, (ULong)st.entries_max,
             (ULong)st.sweeps, (ULong)st.state_bytes / 1024);
}
