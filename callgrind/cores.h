/* callgrind-bd: --private-caches=yes -- every thread a core with its own
 * I1 and D1 over the shared LL, kept coherent by write invalidation. The
 * model is cachesim/coherence.h; this is the glue: thread id -> core, the
 * coherence events D1Ts, D1Fs, Inv, and the operations on all caches.
 *
 * The running thread's core is switched with the thread (cb_cores_switch
 * from threads.c), so an access reads one pointer, never looks a core up.
 * Core k is Valgrind's thread id k + 1: thread 1 runs on the cache model
 * made at start, so a single-threaded program gives exactly the profile
 * of the shared model.
 *
 * Copyright (C) 2026 the callgrind-bd authors.  GPL-2.0-or-later.
 */
#ifndef CB_CORES_H
#define CB_CORES_H

#include "global.h"
#include "cachesim.h"
#include "coherence.h"
#include "objects.h"

extern cc_sys  *cb_cc;          /* NULL unless --private-caches=yes */
extern cc_core *cb_cc_core;     /* the running thread's core */

/* At start, after every other event is enabled (the three are written
 * after all others): the system whose core 0 is first. */
void cb_cores_setup(cs_sim *first);

/* The caches of thread tid's core (made on first use); it becomes the
 * running core. */
cs_sim *cb_cores_switch(ThreadId tid);

/* Counts a nonzero coherence outcome as D1Ts / D1Fs / Inv of the
 * instruction (slot), the running counter and (--objects) the object. */
void cb_cores_count(ULong *slot, unsigned res, cb_obj_ref ref);

/* The hook of the data-access helper (sim.c), after the access of the
 * running core with result r (cachesim bits): coherence, and its events
 * while collecting. Returns the outcome (coherence.h: class and
 * invalidations), 0 when nothing happened -- at once for every load hit. */
static inline unsigned cb_cores_data_access(ULong *slot, cb_obj_ref ref, Addr a,
                                            UWord size, unsigned r, Bool is_write)
{
   cs_sim *sim = cb_cc_core->sim;
   unsigned res;
   if (cc_nothing_to_do(cb_cc_core, a, (unsigned)size, r, is_write)) return 0;
   /* invalidated lines leave other cores under the running context's flag */
   if (UNLIKELY(sim->collect != cb_cur.collect)) cs_set_collect(sim, cb_cur.collect);
   res = cc__data(cb_cc, cb_cc_core, a, (unsigned)size, r, is_write);
   if (res && cb_cur.collect) cb_cores_count(slot, res, ref);
   return res;
}

/* Every core's caches. */
void cb_cores_set_collect(Bool collecting);
void cb_cores_flush(void);        /* every L1, then the LL; directory reset */
void cb_cores_clear(void);        /* cs_clear of every core; directory reset */
void cb_cores_forget_owners(int (*forget)(void *, int, const cs_owner *), void *ctx);
void cb_cores_print_stats(void);  /* -v */
void cb_cores_prefetch_counts(ULong *up, ULong *down);   /* all cores */

#endif
