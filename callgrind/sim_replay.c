/* callgrind-bd: the deferred simulation (--defer-sim=yes, the default;
 * =no calls the helpers of sim.c in place).
 *
 * The generated code does not call the helpers: where it would call one
 * (sim_ir.c), it stores the call's data addresses in cb_sim_replay_addr
 * and the number of calls made so far in cb_replay_n, two or three host
 * stores. The calls are then made from C, in the same order with the same
 * arguments, at the tool's next entry: the next block's cb_setup_bbcc, or
 * any callback that could look at or change what they use (a client
 * request, a system call, a signal, a thread switch, a dump, the end).
 * Nothing runs in between that sees the simulator, the counters or the
 * running cost centre, so the profile is the same byte for byte;
 * cb_replay_n counts only the calls the block reached, so a side exit or
 * a fault in the middle of it is handled as before. A guarded access's
 * address is stored as REPLAY_SKIPPED when its guard is false. One call
 * per block (the setup it has anyway) instead of one per fetch group or
 * three accesses, and the loop below keeps the simulator's state in
 * registers.
 *
 * Copyright (C) 2026 the callgrind-bd authors.  GPL-2.0-or-later.
 */
#include "sim_int.h"

Addr cb_sim_replay_addr[REPLAY_ADDRS];
UInt cb_replay_n;                   /* calls reached by the pending block */
const void *cb_replay_calls;        /* the pending block's descriptors */
Bool cb_sim_defer_on;
Bool cb_sim_replay_plain_ok;
Bool cb_replay_split;               /* it was replayed in parts (defer_call) */
static ULong cut_not_mru;           /* CB_SIM_CUT builds */

static void replay_all(const sim_call *c, const sim_call *end, const Addr *a)
{
   Int i;
   for (; c < end; a += c->n_acc, c++) {
      if (c->n_fetch) do_fetch(c);
      if (UNLIKELY(c->guarded) && a[0] == REPLAY_SKIPPED) continue;
      for (i = 0; i < c->n_acc; i++) do_acc(c, i, a[i]);
   }
}

/* Counting by histogram. In the common case (collecting, outside skipped
 * code, no feature that must see each access) a run of a block adds one
 * to hist[n] of its cost centre, n being the number of its calls it
 * reached, instead of adding Ir, Dr and Dw to the cost slot of every
 * instruction: those slots are spread over the host's caches, and
 * touching them was much of the simulation's time. The slots get their
 * counts when they are read or zeroed (cb_settle_sim_counts): call k ran
 * sum(hist[n], n > k) times. The running counter gets the run's totals at
 * its end. Misses are counted where they happen, and a
 * guarded access, which may not run, the old way. */

/* Add x runs of call c to the slots of cost. */
static void add_call_runs(ULong *cost, const sim_call *c, ULong x)
{
   UInt k;
   for (k = 0; k < c->n_fetch; k++) cost[c->fetch_cost + k * cb_n_events + HOT_POS(EV_Ir)] += x;
   for (k = 0; k < c->n_acc; k++)
      cost[c->acc[k].cost + (c->acc[k].write ? HOT_POS(EV_Dw) : HOT_POS(EV_Dr))] += x;
}

static void settle_bbcc(BBCC *b)
{
   ULong runs = 0;
   UInt k;
   if (!b->hist) return;
   for (k = b->hist_n; k-- > 0;) {
      runs += b->hist[k + 1];
      if (runs > 0 && !b->hist_calls[k].guarded) add_call_runs(b->cost, &b->hist_calls[k], runs);
      if (runs > 0 && cb_bw_batched) cb_bw_settle_call(b->cost, b->hist_calls, b->hist_n, k, runs);
   }
   VG_(memset)(b->hist, 0, (b->hist_n + 1) * sizeof(ULong));
}

/* Called for every thread by cb_settle_sim_counts (threads.c). */
void cb_sim_settle_thread(thread_info *t)
{
   if (cb_sim_replay_plain_ok) cb_forall_bbccs(&t->bbccs, settle_bbcc);
}

/* The number of counters of a new cost centre's histogram, which bbcc.c
 * puts at the end of the cost centre's allocation (one allocation less
 * per cost centre): the block's calls are known when its first cost
 * centre is made, after its instrumentation. */
UInt cb_sim_hist_len(const BB *bb)
{
   return cb_sim_replay_plain_ok && bb->n_sim_calls > 0 ? bb->n_sim_calls + 1 : 0;
}

/* b's histogram for the block's current calls, when they are not those
 * it was made with (a retranslation with other calls; rare): the old one
 * is settled, the new one allocated apart. */
static void hist_attach(BBCC *b)
{
   BB *bb = b->bb;
   if (b->hist) {
      settle_bbcc(b);
      if (b->hist_own) cb_mem_free(CB_MEM_COSTS, b->hist, (b->hist_n + 1) * sizeof(ULong));
   }
   b->hist_n = bb->n_sim_calls;
   b->hist_calls = bb->sim_calls;
   b->hist = cb_mem_alloc(CB_MEM_COSTS, "cb.bbcc.hist", (b->hist_n + 1) * sizeof(ULong));
   b->hist_own = True;
   VG_(memset)(b->hist, 0, (b->hist_n + 1) * sizeof(ULong));
}

/* Not an L1 MRU hit: simulated, and its misses counted. A hit in
 * another way of the set (cs_l1_probe) needs no owner and ends in the
 * *_not_mru function; the rest (a miss, or an access the probe does not
 * apply to) is *_missed's. A fetch's is a call of its own, so that the
 * hit path needs no stack frame; a data access's is inlined: programs
 * that miss D1 at every access (a matrix column, a stream) ran 2% faster
 * with one call fewer on their way (transpose-naive, stream+reuse), and
 * the hit path was no slower. */
static __attribute__((noinline)) unsigned fetch_missed(const sim_call *c, cs_probe p)
{
   ULong *slot = cb_cost_base + c->fetch_cost;
   cs_owner o;
   unsigned r = cs_l1_finish(cb_sim_cache, &p, c->fetch_addr, c->fetch_size, make_owner(&o, slot), 0);
   if (r) count_misses(slot, r, EV_I1mr, EV_ILmr, EV_ILdmr);
   return r;
}

/* Its outcome (0: a hit in another way): --bandwidth's I1 misses. */
static __attribute__((noinline)) unsigned fetch_not_mru(const sim_call *c)
{
   cs_probe p;
   if (!cs_l1_probe(cb_sim_cache, &p, 1, c->fetch_addr, c->fetch_size)) return fetch_missed(c, p);
   return 0;
}

/* --private-caches: the coherence of a data access with result r (a hit
 * is 0), after the running core simulated it. A load hit has nothing to
 * do: the replay does not call this for one. Returns what --bandwidth
 * gets of it (a coherence miss, an invalidation: as do_data_at). */
static inline unsigned data_coherence(const sim_call *c, Int i, Addr a, unsigned r)
{
   cb_obj_ref none = { NULL, 0 };
   unsigned cc = cb_cores_data_access(cb_cost_base + c->acc[i].cost, none, a, c->acc[i].size,
                                      r, c->acc[i].write);
   return (CC_CLASS(cc) ? CB_BW_REMOTE : 0) | (CC_INV(cc) ? CB_BW_INVALIDATED : 0);
}

static inline __attribute__((always_inline))
unsigned data_missed(const sim_call *c, Int i, Addr a, cs_probe p)
{
   ULong *slot = cb_cost_base + c->acc[i].cost;
   Bool write = c->acc[i].write;
   cs_owner o;
   unsigned r = cs_l1_finish(cb_sim_cache, &p, a, c->acc[i].size, make_owner(&o, slot), write);
   if (r && write) count_misses(slot, r, EV_D1mw, EV_DLmw, EV_DLdmw);
   else if (r) count_misses(slot, r, EV_D1mr, EV_DLmr, EV_DLdmr);
   if (UNLIKELY(cb_cc != NULL)) r |= data_coherence(c, i, a, r);
   return r;
}

/* Its outcome (0: a hit in another way; with CB_BW_* bits). */
static __attribute__((noinline)) unsigned data_not_mru(const sim_call *c, Int i, Addr a)
{
   cs_probe p;
   if (CUT_BEFORE(6)) { cut_not_mru++; return 0; }
   if (!cs_l1_probe(cb_sim_cache, &p, 0, a, c->acc[i].size)) return data_missed(c, i, a, p);
   if (UNLIKELY(cb_cc != NULL) && c->acc[i].write) return data_coherence(c, i, a, 0);
   return 0;
}

/* The common case's loop: an L1 MRU hit (almost every fetch group and
 * access) costs a tag compare here, and with cacheuse the line's use
 * update; with private caches (cores) a store hit also the coherence
 * test of a line the core owns (cores.h), inline: the hook is called
 * only when it fails. Inlined for each combination.
 * With --latency (lat) each access's outcome goes to latency.c, but for
 * a hit that changes no tag (cb_lat_hit_matters). With --bandwidth (bw,
 * batched: bandwidth.c) each fetch group and access goes to its hooks,
 * as replay_all's do_fetch and do_acc call them (the Flop events go to
 * the slots there: their counts are not the histogram's). */
static inline __attribute__((always_inline))
void replay_counted(const sim_call *c, const sim_call *end, const Addr *a, Bool use,
                    Bool cores, Bool lat, Bool bw)
{
   cs_sim *s = cb_sim_cache;
   BBCC *b = cb_cur.bbcc;
   ULong *run = cb_cur.cost;
   /* (the running core does not change within a block) */
   const cc_hot *hot = cores ? cc__hot(cb_cc) : NULL;
   cc_state code = cores ? cb_cc_core->code : 0;
   UInt n_ir = 0, n_dr = 0, n_dw = 0, li = 0;
   const lat_watch *watch = NULL;
   /* (--bandwidth: the running core, whether the block has flops, its
    * static bytes, and whether this run wrote them) */
   cb_bw_thread *bw_t = bw ? cb_bw_cur : NULL;
   Bool bw_flops = bw && b->bb->bw_flops != NULL;
   const cb_bw_block *bw_block = NULL;
   Bool bw_static = False;
   Int i;
   if (lat && !cb_lat_first(c, &li, &watch)) lat = False;
   if (UNLIKELY(b->hist_calls != c)) hist_attach(b);
   b->hist[end - c]++;
   if (bw) {
      bw_block = cb_sim_bw_block(c, b->hist_n);
      bw_static = cb_bw_block_run(bw_t, bw_block, end - c);
   }
   for (; c < end; a += c->n_acc, c++) {
      n_ir += c->n_fetch;
      if (c->n_fetch && !CUT_BEFORE(3)) {
         /* (one crossing into the next line is one instruction: no other
          * can join it) */
         Bool hit = cs__planned_fetch_hit(&s->i1, &c->fplan, c->n_fetch, c->fplan_second, use);
         unsigned r = 0;
         if (!hit) {
            r = fetch_not_mru(c);
            if (use && c->n_fetch > 1)
               cs_instr_hits(s, c->fetch_addr + c->fetch_size,
                             c->fetch_addr + c->fetch_len - 1, c->n_fetch - 1);
         }
         if (bw && bw_static) cb_bw_static_fetch(bw_t, c->fetch_cost, r);
         else if (bw) cb_bw_counted_fetch(bw_t, c->fetch_cost, c->n_fetch,
                                          cb_cost_base + c->fetch_cost, r, bw_flops,
                                          !bw_block->kept);
      }
      if (UNLIKELY(c->guarded)) {
         /* (--bandwidth: its bytes are not the block's static ones) */
         if (bw && bw_static && a[0] != REPLAY_SKIPPED) cb_bw_block_unknown(bw_t);
         if (a[0] != REPLAY_SKIPPED) do_acc(c, 0, a[0]);
         li += c->n_acc;
         continue;
      }
      for (i = 0; i < c->n_acc; i++, li++) {
         Bool write = c->acc[i].write;
         unsigned r = 0;
         Bool hit = CUT_BEFORE(4) ? True : write && s->wb ? False
                    : use ? cs__mru_hit_use(&s->d1, a[i], c->acc[i].size)
                          : cs__mru_hit(&s->d1, a[i], c->acc[i].size);
         if (!hit && CUT_BEFORE(5)) cut_not_mru++;   /* (keeps the tests) */
         else if (!hit) r = data_not_mru(c, i, a[i]);
         else if (cores && write && !cb_cores_store_hit_quiet(hot, code, a[i], c->acc[i].size))
            r = data_coherence(c, i, a[i], 0);
         if (bw && bw_static) cb_bw_static_access(bw_t, c->acc[i].cost, a[i], c->acc[i].size,
                                                  r, write);
         else if (bw) cb_bw_batched_access(bw_t, c->acc[i].cost, a[i], c->acc[i].size, r,
                                           write, c->acc[i].modify);
         r &= ~(CB_BW_REMOTE | CB_BW_INVALIDATED);   /* (the cache's result only) */
         if (lat && (r || cb_lat_hit_matters(&watch[li], a[i])))
            cb_lat_after_index(li, a[i], r, cb_cost_base + c->acc[i].cost);
         n_dw += write;
         n_dr += !write;
      }
   }
   run[HOT_POS(EV_Ir)] += n_ir;
   run[HOT_POS(EV_Dr)] += n_dr;
   run[HOT_POS(EV_Dw)] += n_dw;
}

/* Whether calls c can be counted in b's histogram: they are the calls
 * it counts, or the block's current ones (replay_counted attaches them).
 * Those of an older translation, still running, are not: replay_all.
 * The histogram's calls are tested first because the cost centre is at
 * hand, where the block's BB would mostly be a host cache miss. */
static inline Bool counted_calls(const BBCC *b, const sim_call *c)
{
   return c == b->hist_calls || c == b->bb->sim_calls;
}

void cb_sim_replay(void)
{
   const sim_call *c = cb_replay_calls, *end = c + cb_replay_n;
   cb_replay_n = 0;
   cb_replay_calls = end;       /* a block replayed in parts goes on from here */
   if (c == end || CUT_BEFORE(2)) return;
   if (CB_SIM_STATS) { cb_sim_hot.replays++; cb_sim_hot.replayed += end - c; }
   if (UNLIKELY(cb_clo.sharing) && !cb_sim_share_hist(c, end, cb_sim_replay_addr))
      cb_sim_share_block(c, end, cb_sim_replay_addr);
   if (!cb_sim_replay_plain_ok || !cb_cur.collect || cb_cur.nonskipped || cb_replay_split
       || !counted_calls(cb_cur.bbcc, c))
      replay_all(c, end, cb_sim_replay_addr);
   else if (UNLIKELY(cb_bw_batched)) {
      /* (--bandwidth: batched, no --latency: cb_sim_post_clo_init; the
       * run histogram counts its Flop events: not without a core) */
      if (!cb_bw_cur) replay_all(c, end, cb_sim_replay_addr);
      else if (cb_cc && !cb_sim_cache->use) replay_counted(c, end, cb_sim_replay_addr, False, True, False, True);
      else replay_counted(c, end, cb_sim_replay_addr, cb_sim_cache->use, cb_cc != NULL, False, True);
   }
   else if (UNLIKELY(cb_clo.latency))
      replay_counted(c, end, cb_sim_replay_addr, cb_sim_cache->use, cb_cc != NULL, True, False);
   else if (cb_cc && cb_sim_cache->use) replay_counted(c, end, cb_sim_replay_addr, True, True, False, False);
   else if (cb_cc) replay_counted(c, end, cb_sim_replay_addr, False, True, False, False);
   else if (cb_sim_cache->use) replay_counted(c, end, cb_sim_replay_addr, True, False, False, False);
   else replay_counted(c, end, cb_sim_replay_addr, False, False, False, False);
}

/* A block with more data accesses than cb_sim_replay_addr holds: the calls so
 * far, in the middle of it. */
void cb_sim_replay_part(void)
{
   COUNT_CALL();
   cb_replay_split = True;
   cb_sim_replay();
}

