/* callgrind-bd: the data-path hooks of --bandwidth=yes, inline for
 * the simulation's hot path, sim_int.h (the rest of bandwidth.c is declared in global.h's
 * section "bandwidth.c"; the model is cachesim/bandwidth.h).
 *
 * A fetch group (sim_ir.c: a run of instructions in one I1 line, all of
 * which execute) is the batch: cb_bw_fetch opens it, every data access
 * adds its bytes to the open time unit of its own instruction, and the
 * instructions' units close (in order) when a later instruction of the
 * group makes an access or when the next group starts. So each unit
 * gets exactly the bytes of its instruction, as with one call per
 * instruction, and the dominance events go to that instruction's cost.
 * Batched (cb_bw_batched, bandwidth.c): the group's units are numbered
 * at its start and an access's bytes go straight to its instruction's
 * unit; nothing closes per instruction.
 *
 * Copyright (C) 2026 the callgrind-bd authors.  GPL-2.0-or-later.
 */
#ifndef CB_BANDWIDTH_HOOKS_H
#define CB_BANDWIDTH_HOOKS_H

#include "global.h"
#include "cachesim.h"
#include "bandwidth.h"

/* A D1 miss on a line another core had written (a coherence miss of
 * --private-caches: the line comes over L1<-L1), and a store that
 * invalidated other cores' copies: passed with the cache result bits
 * (cachesim.h uses 1, 2, 4). */
#define CB_BW_REMOTE 8u
#define CB_BW_INVALIDATED 16u

/* One thread = one core of the model. */
typedef struct cb_bw_thread {
   bw_core core;
   ULong   clock;          /* aligned unit of the open unit (all cores) */
   ULong   all_sum[2];     /* all-cores window sums at the last closed unit */
   Bool    made, live;
   Bool    stepped;        /* all_sum already stepped to the open unit */
   /* the fetch group running (g_n == 0: none, or not collecting) */
   UInt    g_n, g_done;    /* its instructions; how many closed */
   UInt    g_cost0, g_cur; /* cost offsets: its first, the open unit's */
   UInt    g_cost_done;    /* cost offset of the first not closed */
   ULong  *g_slot0;        /* the first instruction's cost slot */
   UInt    g_stride;       /* slot distance (0: skipped code, one slot) */
   ULong  *g_run;          /* the running counter */
   const UChar *g_flops;   /* flops of its instructions, or NULL */
   /* D1 write-back: its dirty lines; bytes written back by the access
    * being simulated (the victim observer runs before cb_bw_data) */
   bw_dirty dirty;
   ULong   pending_wb;
   /* batched (cb_bw_batched): the core unit of the next group's first
    * instruction, the running group's first, the aligned unit minus the
    * core unit for the units not counted yet (clock: of the first of
    * them), and the index in the group of the instruction of the last
    * access (the units before it closed, as unit by unit) */
   ULong   b_next, g_unit0, b_off;
   ULong   b_limit;        /* groups end before it (else count first) */
   UInt    g_last_k;
   /* the last block run written whole (cb_bw_block_run): its block's
    * tail and calls reached, and what the run takes of the tail */
   const struct cb_bw_block *rep_S;
   UInt    rep_calls, rep_n, rep_flops, rep_last_k;
   ULong   rep_key;
} cb_bw_thread;

/* cb_bw_cur, the line sizes, cb_bw__group and cb_bw__advance are
 * declared in global.h (section "bandwidth.c"). */

/* A block's static bytes (batched; built at its instrumentation,
 * cb_bw_block_make, after its calls: sim.c's cb_sim_bw_block). A fetch
 * group's loads, stores and flops are known then, as are the units of
 * its instructions in a run of the block when its groups number the
 * block's instructions from 0 on, in order (kept): the counted replay
 * writes a run's units whole (cb_bw_block_run) instead of adding each
 * access's bytes (every other group zeroes its units first:
 * cb_bw_units_zero, so that no slot is cleared when it leaves), and the Flop events are counted from the block's run
 * histogram (cb_bw_settle_call) instead of per run. Guarded accesses,
 * which may not run, are not in it (their hook adds them). */
typedef struct cb_bw_block {
   UInt units;      /* instructions in the block's groups */
   UInt n_calls;
   UInt kept;       /* the groups number the instructions 0.. in order */
   UInt flops;      /* some instruction has flops */
   UInt serial;     /* made as the serial-th (the run log's key) */
   /* then UInt at[n_calls + 1]: the units of a run reaching the first j
    * calls, CB_BW_INEXACT set when a later call has an access in them
    * (a run ending there, mid-group, goes per access); UInt
    * flop_at[n_calls + 1]: their flops; UInt last_k[n_calls + 1]: for
    * such a run, the unit (in the block) of the last access but a
    * guarded one of its last group (none: the group's first unit);
    * UInt rd[units], wr[units],
    * fl[units]: each unit's loads, stores, flops; 8-aligned, ULong
    * bits[(units + 63) / 64]: the units with flops */
} cb_bw_block;
#define CB_BW_INEXACT 0x80000000u

static inline __attribute__((always_inline)) UInt *cb_bw_block_at(const cb_bw_block *S) { return (UInt *)(S + 1); }
static inline __attribute__((always_inline)) UInt *cb_bw_block_flop_at(const cb_bw_block *S)
{
   return cb_bw_block_at(S) + S->n_calls + 1;
}
static inline __attribute__((always_inline)) UInt *cb_bw_block_last_k(const cb_bw_block *S)
{
   return cb_bw_block_flop_at(S) + S->n_calls + 1;
}
static inline __attribute__((always_inline)) UInt *cb_bw_block_rd(const cb_bw_block *S)
{
   return cb_bw_block_last_k(S) + S->n_calls + 1;
}
static inline __attribute__((always_inline)) UInt *cb_bw_block_wr(const cb_bw_block *S) { return cb_bw_block_rd(S) + S->units; }
static inline __attribute__((always_inline)) UInt *cb_bw_block_fl(const cb_bw_block *S) { return cb_bw_block_wr(S) + S->units; }
static inline __attribute__((always_inline)) ULong *cb_bw_block_bits(const cb_bw_block *S)
{
   return (ULong *)VG_ROUNDUP((Addr)(cb_bw_block_fl(S) + S->units), 8);
}

/* The bytes of a cache result r on the line sizes (l1: I1's or D1's). */
static inline void cb_bw_misses(cb_bw_thread *t, unsigned r, UInt l1)
{
   uint64_t *open = t->core.open;
   if (!(r & CS_L1_MISS)) return;
   t->core.dirty |= 1u << BW_L1_RD;
   open[BW_L1_RD] += l1;
   if (r & CB_BW_REMOTE) { open[BW_L1_L1] += l1; t->core.dirty |= 1u << BW_L1_L1; }
   if (!(r & CS_LL_MISS)) return;
   open[BW_MEM_RD] += cb_bw_ll_line;
   t->core.dirty |= 1u << BW_MEM_RD;
   if (r & CS_LL_DIRTY_MISS) { open[BW_MEM_WR] += cb_bw_ll_line; t->core.dirty |= 1u << BW_MEM_WR; }
}

/* Batched: the bytes of cache result r (an L1 miss) go to unit u. Out
 * of line: the hooks test for the miss first (cb_bw_batch_missed), so
 * that a hit, nearly every access, costs no call. */
static __attribute__((noinline)) void cb_bw_batch_misses(cb_bw_thread *t, unsigned r, UInt l1,
                                                         ULong u)
{
   bw_core *c = &t->core;
   bw_batch_append(c, BW_L1_RD, u, l1);
   if (r & CB_BW_REMOTE) bw_batch_append(c, BW_L1_L1, u, l1);
   if (!(r & CS_LL_MISS)) return;
   bw_batch_append(c, BW_MEM_RD, u, cb_bw_ll_line);
   if (r & CS_LL_DIRTY_MISS) bw_batch_append(c, BW_MEM_WR, u, cb_bw_ll_line);
}

static inline __attribute__((always_inline))
void cb_bw_batch_missed(cb_bw_thread *t, unsigned r, UInt l1, ULong u)
{
   if (UNLIKELY(r & CS_L1_MISS)) cb_bw_batch_misses(t, r, l1, u);
}

/* Batched: units u .. u+n-1 of the paths a block run writes whole
 * (CB_BW_WRITTEN: not cleared when they leave the window) start from
 * zero when a group adds to them one by one. */
#define CB_BW_WRITTEN ((1u << BW_CORE_RD) | (1u << BW_CORE_WR) | (1u << BW_FLOP))
/* The miss paths get their bytes in unit order (a group's accesses in
 * program order, its I1 miss at its first unit, the groups in order):
 * lists, not rings (bw_batch_ordered). */
#define CB_BW_ORDERED ((1u << BW_L1_RD) | (1u << BW_L1_WR) | (1u << BW_L1_L1) \
                       | (1u << BW_MEM_RD) | (1u << BW_MEM_WR))
static inline void cb_bw_units_zero(cb_bw_thread *t, ULong u, UInt n)
{
   bw_batch_zero(&t->core, BW_CORE_RD, u, n);
   bw_batch_zero(&t->core, BW_CORE_WR, u, n);
   bw_batch_zero(&t->core, BW_FLOP, u, n);
}

/* Batched, collecting: a fetch group starts: its n units are the next
 * ones (the running group's instructions all execute); its flops are
 * known (flops: its block has some). */
static inline __attribute__((always_inline))
void cb_bw_batch_group_in(cb_bw_thread *t, UInt cost0, UInt n, ULong *slot0, unsigned r,
                          Bool flops, Bool flop_events)
{
   if (UNLIKELY(t->b_next + n > t->b_limit)) cb_bw__batch_flush(t);
   t->g_n = n;
   t->g_cost0 = cost0;
   t->g_unit0 = t->b_next;
   t->g_last_k = 0;
   t->b_next += n;
   bw_batch_log(&t->core, t->g_unit0, n, 0);
   cb_bw_units_zero(t, t->g_unit0, n);
   if (UNLIKELY(flops)) cb_bw__group_flops(t, cost0, n, slot0, flop_events);
   cb_bw_batch_missed(t, r, cb_bw_i1_line, t->g_unit0);
}

/* Batched: a fetch group starts. */
static inline void cb_bw_batch_group(cb_bw_thread *t, UInt cost0, UInt n, ULong *slot0,
                                     unsigned r)
{
   if (UNLIKELY(!cb_cur.collect)) { t->g_n = 0; return; }
   cb_bw_batch_group_in(t, cost0, n, slot0, r, cb_cur.bbcc->bb->bw_flops != NULL, True);
}

/* A fetch group of n instructions from cost offset cost0 (slot0: the
 * first one's cost slot) was fetched with I1 result r. */
static inline void cb_bw_fetch(UInt cost0, UInt n, ULong *slot0, unsigned r)
{
   cb_bw_thread *t = cb_bw_cur;
   if (cb_bw_batched) {
      cb_bw_batch_group(t, cost0, n, slot0, r);
      return;
   }
   cb_bw__group(t, cost0, n, slot0);
   if (t->g_n) cb_bw_misses(t, r, cb_bw_i1_line);
}

/* A store of [a, a + size): its D1 lines are dirty (also while not
 * collecting: it is the caches' state); with invalidations, the other
 * cores' copies are gone, dirty or not. */
static inline void cb_bw_store(cb_bw_thread *t, Addr a, UWord size, unsigned r)
{
   ULong first = a >> cb_bw_d1_bits, last = (a + size - 1) >> cb_bw_d1_bits;
   if (UNLIKELY(r & CB_BW_INVALIDATED)) cb_bw__invalidated(t, first, last);
   bw_dirty_mark(&t->dirty, first);
   if (UNLIKELY(last != first)) bw_dirty_mark(&t->dirty, last);
}

/* Batched: the access's bytes go to its instruction's unit (the group's
 * first unit + its index in the group: cost offsets are instruction *
 * events apart; a multiplication by the inverse, no division). */
static inline __attribute__((always_inline))
void cb_bw_batch_data(cb_bw_thread *t, UInt cost, UWord size, unsigned r,
                      Bool is_write, Bool modify)
{
   bw_core *c = &t->core;
   UInt k = (UInt)(((ULong)(cost - t->g_cost0) * cb_bw_inv_events) >> 32);
   ULong u = t->g_unit0 + k;
   /* (the largest: in a block run, the group's static last access set
    * it already, cb_bw_static_fetch; else accesses come in order) */
   if (k > t->g_last_k) t->g_last_k = k;
   if (t->pending_wb) {              /* D1 victims of this access, dirty */
      bw_batch_append(c, BW_L1_WR, u, (UInt)t->pending_wb);
      t->pending_wb = 0;
   }
   if (is_write) {
      bw_batch_add(c, BW_CORE_WR, u, size);
      if (modify) bw_batch_add(c, BW_CORE_RD, u, size);
   } else bw_batch_add(c, BW_CORE_RD, u, size);
   cb_bw_batch_missed(t, r, cb_bw_d1_line, u);
}

/* A data access of the instruction at cost offset cost: size bytes at a,
 * result r (with CB_BW_REMOTE, CB_BW_INVALIDATED); a modify is a load and
 * a store. */
static inline void cb_bw_data(UInt cost, Addr a, UWord size, unsigned r,
                              Bool is_write, Bool modify)
{
   cb_bw_thread *t = cb_bw_cur;
   uint64_t *open = t->core.open;
   if (is_write) cb_bw_store(t, a, size, r);
   if (!t->g_n) { t->pending_wb = 0; return; }
   if (cb_bw_batched) {
      cb_bw_batch_data(t, cost, size, r, is_write, modify);
      return;
   }
   if (cost != t->g_cur) cb_bw__advance(t, cost);
   if (t->pending_wb) {              /* D1 victims of this access, dirty */
      open[BW_L1_WR] += t->pending_wb;
      t->core.dirty |= 1u << BW_L1_WR;
      t->pending_wb = 0;
   }
   if (is_write) {
      open[BW_CORE_WR] += size;
      t->core.dirty |= 1u << BW_CORE_WR;
      if (modify) { open[BW_CORE_RD] += size; t->core.dirty |= 1u << BW_CORE_RD; }
   } else { open[BW_CORE_RD] += size; t->core.dirty |= 1u << BW_CORE_RD; }
   cb_bw_misses(t, r, cb_bw_d1_line);
}

/* The counted replay's hooks (sim_replay.c: batched, collecting, one
 * block of one thread t, whose block has flops or not): what cb_bw_fetch
 * and cb_bw_data do, with what holds for the whole block worked out
 * once. */
static inline __attribute__((always_inline))
void cb_bw_counted_fetch(cb_bw_thread *t, UInt cost0, UInt n, ULong *slot0, unsigned r,
                         Bool flops, Bool flop_events)
{
   cb_bw_batch_group_in(t, cost0, n, slot0, r, flops, flop_events);
}

static inline __attribute__((always_inline))
void cb_bw_batched_access(cb_bw_thread *t, UInt cost, Addr a, UWord size, unsigned r,
                          Bool is_write, Bool modify)
{
   if (is_write) cb_bw_store(t, a, size, r);
   if (!t->g_n) { t->pending_wb = 0; return; }
   cb_bw_batch_data(t, cost, size, r, is_write, modify);
}

/* The run's units' static bytes written, logged (key: the block's
 * serial and n), its flop units marked. */
static inline __attribute__((always_inline))
void cb_bw_block_write(cb_bw_thread *t, const cb_bw_block *S, UInt n, ULong key)
{
   static const int paths[3] = { BW_CORE_RD, BW_CORE_WR, BW_FLOP };
   const uint32_t *const src[3] = { cb_bw_block_rd(S), cb_bw_block_wr(S), cb_bw_block_fl(S) };
   bw_batch_put3(&t->core, paths, t->b_next, src, n);
   bw_batch_log(&t->core, t->b_next, n, key);
   if (S->flops)
      bw_batch_mark(&t->core, BW_FLOP, t->b_next, (const uint64_t *)cb_bw_block_bits(S), n);
}

/* The run's n units (n > 0) are the next ones: the running counter
 * gets its flops; its groups number its units from its first on (its
 * block is kept): one running group for the flushes and the misses, its
 * units the run's, cost offsets from the block's first instruction on. */
static inline __attribute__((always_inline))
void cb_bw_run_units(cb_bw_thread *t, UInt n, UInt flops, UInt last_k)
{
   if (flops) cb_cur.cost[cb_bw_flop_pos] += flops;
   t->g_n = n;
   t->g_cost0 = 0;
   t->g_unit0 = t->b_next;
   t->g_last_k = last_k;
   t->b_next += n;
}

/* The counted replay: a run of block S reaching its first `calls` calls
 * gets its units' static bytes at once, when S keeps them and the run
 * ends at a group's end (else False: the hooks add per access). Its
 * units are the next ones: room is made for all of them first (a flush
 * here or at a later group start counts the same units). Their slots are
 * written, zeros too (CB_BW_WRITTEN). The Flop
 * events come from the run histogram; the running counter gets the
 * run's flops. */
static inline __attribute__((always_inline))
Bool cb_bw_block_run(cb_bw_thread *t, const cb_bw_block *S, UInt calls)
{
   UInt n, flops;
   ULong key;
   /* A loop of one block: its runs after the second find what they need
    * of S's tail at hand (S never changes: calls arrays are not freed),
    * and the log copies their bytes (bw_batch_log_repeat). */
   if (S == t->rep_S && calls == t->rep_calls) {
      n = t->rep_n;
      if (UNLIKELY(t->b_next + n > t->b_limit)) cb_bw__batch_flush(t);
      if (!bw_batch_log_repeat(&t->core, t->b_next, n, t->rep_key))
         cb_bw_block_write(t, S, n, t->rep_key);
      cb_bw_run_units(t, n, t->rep_flops, t->rep_last_k);
      return True;
   }
   n = cb_bw_block_at(S)[calls];
   if (UNLIKELY(!S->kept || (n & CB_BW_INEXACT))) return False;
   if (!n) return True;          /* (no group reached: no units, no flops) */
   if (UNLIKELY(t->b_next + n > t->b_limit)) cb_bw__batch_flush(t);
   /* (two runs of S reaching the same call: the same bytes) */
   key = (ULong)S->serial << 32 | n;
   flops = S->flops ? cb_bw_block_flop_at(S)[calls] : 0;
   if (!bw_batch_log_repeat(&t->core, t->b_next, n, key))
      cb_bw_block_write(t, S, n, key);
   else {
      /* (the second run of a loop: kept for the next ones; code
       * without loops, which never gets here, stores nothing) */
      t->rep_S = S;
      t->rep_calls = calls;
      t->rep_n = n;
      t->rep_key = key;
      t->rep_flops = flops;
      t->rep_last_k = cb_bw_block_last_k(S)[calls];
   }
   cb_bw_run_units(t, n, flops, cb_bw_block_last_k(S)[calls]);
   return True;
}

/* A guarded access of a block run that cb_bw_block_run wrote ran: the
 * run's bytes are not the block's static ones (the run log). */
static inline void cb_bw_block_unknown(cb_bw_thread *t)
{
   bw_batch_log_unknown(&t->core);
}

/* A fetch group (at cost offset cost0) of a block run that
 * cb_bw_block_run wrote: an I1 miss's bytes go to its first unit (the
 * units a flush leaves open were set for the whole run: from its last
 * group's last access on; a guarded one, which may not run, moves them
 * on: cb_bw_batch_data). */
static inline __attribute__((always_inline))
void cb_bw_static_fetch(cb_bw_thread *t, UInt cost0, unsigned r)
{
   if (UNLIKELY(r & CS_L1_MISS))
      cb_bw_batch_misses(t, r, cb_bw_i1_line,
                         t->g_unit0 + (((ULong)cost0 * cb_bw_inv_events) >> 32));
}

/* Its bytes are written: a miss's, or a dirty victim's write-back, at
 * its unit. */
static __attribute__((noinline)) void cb_bw_static_missed(cb_bw_thread *t, UInt cost,
                                                         unsigned r)
{
   UInt k = (UInt)(((ULong)(cost - t->g_cost0) * cb_bw_inv_events) >> 32);
   ULong u = t->g_unit0 + k;
   if (t->pending_wb) {
      bw_batch_append(&t->core, BW_L1_WR, u, (UInt)t->pending_wb);
      t->pending_wb = 0;
   }
   if (r & CS_L1_MISS) cb_bw_batch_misses(t, r, cb_bw_d1_line, u);
}

/* A data access of such a run: what is not static, the dirty lines and
 * the above. */
static inline __attribute__((always_inline))
void cb_bw_static_access(cb_bw_thread *t, UInt cost, Addr a, UWord size, unsigned r,
                         Bool is_write)
{
   if (is_write) cb_bw_store(t, a, size, r);
   if (UNLIKELY((r & CS_L1_MISS) || t->pending_wb)) cb_bw_static_missed(t, cost, r);
}

#endif
