/* callgrind-bd: the simulation helpers and their instrumentation.
 *
 * Owns the cache model and the branch predictor of the run, the run-time
 * helpers that feed them every fetch and data access of the client, and
 * the instrumentation that inserts the helper calls. A helper counts the
 * access's events (Ir, Dr, misses...) in the cost slot of the accessing
 * instruction and in the running counter; lines it loads carry an owner
 * (backdating.c) whose cache-use metrics come back when they leave. The
 * miss classes and reuse distances are fed from here too
 * (missclass_events.c, reusedist_events.c).
 *
 * Instrumentation: one helper call per run of instructions inside one I1
 * line (only the first needs a cache lookup, the others are sure hits),
 * carrying up to three of their data accesses; further accesses take one
 * call per three (see "Instrumentation" below). A read directly followed by
 * a write of the same address and size by one instruction
 * (read-modify-write) is one access counted as Dw. By default the
 * generated code does not make these calls: they are replayed from C
 * after the block (see "Deferred simulation"; --defer-sim=no makes them
 * in place).
 *
 * Copyright (C) 2026 the callgrind-bd authors.  GPL-2.0-or-later.
 */
#include "global.h"
#include "cachesim.h"
#include "branchsim.h"
#include "backdate.h"
#include "objects.h"
#include "cores.h"
#include "bandwidth_hooks.h"

static cs_sim   *sim;
static bs_sim   *bsim;

/* Statistics of the hot path, for measuring it (issue 21): build with
 * `make CPPFLAGS=-DCB_SIM_STATS=1` and run with -v; printed at exit as
 * "Sim helpers:" (perf/helper-stats.py). Off by default, so they cost
 * nothing: counting in the helpers would slow the path they measure. A
 * statistics build replays every call one by one (replay_all), so that
 * the MRU shares below count the accesses of both settings. */
#ifndef CB_SIM_STATS
#define CB_SIM_STATS 0
#endif

/* Where the simulation's time goes, by subtraction (perf/decompose.sh):
 * a build with `CPPFLAGS=-DCB_SIM_CUT=k` stops the deferred simulation
 * after stage k, so the profile is WRONG in such a build: 1 = no replay,
 * 2 = the replay loop and histogram only, 3 = and the I1 tests, 4 = and
 * the D1 MRU tests, 5 = and the call for a D1 access that is no MRU hit,
 * which returns at once. 0 (the default): everything. */
#ifndef CB_SIM_CUT
#define CB_SIM_CUT 0
#endif
#define CUT_BEFORE(k) (CB_SIM_CUT > 0 && CB_SIM_CUT < (k))
static ULong cut_not_mru;
static struct {
   ULong instrs;            /* guest instructions (counted in IR) */
   ULong calls;             /* helper calls from the generated code: the
                               simulation helpers, or replay_part */
   ULong replays, replayed; /* deferred: replays from C, the calls in them */
   ULong i_mru, i_other;    /* I1 lookups: MRU hits, the rest */
   ULong d_mru, d_other;    /* D1 accesses: MRU hits, the rest */
} hot_stat;
/*------------------------------------------------------------*/
/*--- Run-time helpers                                     ---*/
/*------------------------------------------------------------*/

/* With --cache-sim=yes the first nine events are always Ir Dr Dw I1mr D1mr
 * D1mw ILmr DLmr DLmw, at positions 0..8 (cb_events_setup asserts it), so the
 * hot path adds to constant offsets instead of reading cb_ev_pos[] for
 * every access. */
#define HOT_POS(e) ((Int)(e))

/* Cost slot of the running BBCC's instruction at a cost offset (index *
 * cb_n_events): skipped code charges its caller. */
static inline ULong *slot_at(UInt cost_offset)
{
   return cb_cur.nonskipped ? cb_cur.nonskipped->skipped : cb_cost_base + cost_offset;
}

/* Built only for an access that is no L1 MRU hit: an MRU hit (almost
 * every access) needs no owner, and neither does it depend on the
 * simulator's collect flag. */
static inline const cs_owner *make_owner(cs_owner *o, ULong *slot)
{
   if (!cb_clo.cacheuse) return NULL;
   cs_settle_hooks(sim);   /* a late LL fill's hooks before the tree grows */
   o->slot = (void *)((UWord)slot | (cb_cur.collect ? CB_OWNER_COLLECTED : 0));
   o->node = (cb_clo.backdate && cb_cur.es->bd) ? bd_active(cb_cur.es->bd) : NULL;
   o->obj = NULL;
   if (UNLIKELY(sim->collect != cb_cur.collect)) cs_set_collect(sim, cb_cur.collect);
   return o;
}

/* Adds 1 to event e of slot and the running counter (e counted). */
static void count_event(ULong *slot, event_id e)
{
   Int p = cb_event_pos(e);
   slot[p]++;
   cb_cur.cost[p]++;
}

/* The outcome below L1 when it has a bit only --L2 or --prefetch set
 * (CS_L2_MISS, CS_PF_ISSUED): the L2 misses, the LL's (with an L2 their
 * positions are 3 later, so through cb_ev_pos) and the prefetches issued.
 * Only called on such outcomes: off the hit path. */
static __attribute__((noinline))
void count_l2_prefetch(ULong *slot, unsigned r, event_id l1, event_id ll, event_id dirty)
{
   if (r & CS_L2_MISS)
      count_event(slot, l1 == EV_I1mr ? EV_I2mr : l1 == EV_D1mr ? EV_D2mr : EV_D2mw);
   if (r & CS_LL_MISS) {          /* with an L2, only after an L2 miss */
      count_event(slot, ll);
      if ((r & CS_LL_DIRTY_MISS) && cb_event_pos(dirty) >= 0) count_event(slot, dirty);
   }
   if (r & CS_PF_ISSUED) count_event(slot, EV_Pfi);
}

/* Add an access's miss events (r: an L1 miss, or with --prefetch Pfi). */
static inline void count_misses(ULong *slot, unsigned r, event_id l1, event_id ll, event_id dirty)
{
   ULong *run = cb_cur.cost;
   if (r & CS_L1_MISS) { slot[HOT_POS(l1)]++; run[HOT_POS(l1)]++; }
   if (UNLIKELY(r >= CS_L2_MISS)) { count_l2_prefetch(slot, r, l1, ll, dirty); return; }
   if (r & CS_LL_MISS) {
      slot[HOT_POS(ll)]++; run[HOT_POS(ll)]++;
      if ((r & CS_LL_DIRTY_MISS) && cb_event_pos(dirty) >= 0) { slot[cb_event_pos(dirty)]++; run[cb_event_pos(dirty)]++; }
   }
}

/* Add an access's outcome: the access event and the miss events. */
static inline void count(ULong *slot, unsigned r, event_id ev, event_id l1, event_id ll, event_id dirty)
{
   slot[HOT_POS(ev)]++; cb_cur.cost[HOT_POS(ev)]++;
   if (UNLIKELY(r != 0)) count_misses(slot, r, l1, ll, dirty);
}

static inline unsigned do_instr_at(ULong *slot, Addr a, UWord size)
{
   unsigned r = 0;
   cs_probe p;
   Bool hit = cs_instr_hit(sim, a, size);
   if (CB_SIM_STATS) { if (hit) hot_stat.i_mru++; else hot_stat.i_other++; }
   if (!hit && !cs_l1_probe(sim, &p, 1, a, size)) {   /* (another way: a hit) */
      cs_owner o;
      const cs_owner *ow = make_owner(&o, slot);
      if (UNLIKELY(cb_clo.objects)) cb_obj_instr_owner((cs_owner *)ow);
      r = cs_l1_finish(sim, &p, a, size, ow, 0);
   }
   if (cb_cur.collect) count(slot, r, EV_Ir, EV_I1mr, EV_ILmr, EV_ILdmr);
   if (UNLIKELY(cb_clo.miss_class) && (r || !cb_mc_same_i1_line(a, size)))
      cb_mc_instr(slot, a, size, r);
   return r;
}

/* A data access. Data objects (objects.h): the accessed object's cell
 * rides in the owner of the lines the access loads, and gets the access's
 * outcome; ii is the accessing instruction (NULL unless --objects=yes).
 * Always inlined with a constant is_write, so each caller gets the code
 * of one kind of access. */
static inline __attribute__((always_inline))
unsigned do_data_at(ULong *slot, sim_instr_info *ii, Addr a, UWord size, Bool is_write)
{
   unsigned r = 0, cc = 0;
   cs_probe p;
   cb_obj_ref ref = { NULL, 0 };
   Bool hit = is_write ? cs_write_hit(sim, a, size) : cs_read_hit(sim, a, size);
   if (CB_SIM_STATS) { if (hit) hot_stat.d_mru++; else hot_stat.d_other++; }
   if (!hit && !cs_l1_probe(sim, &p, 0, a, size)) {   /* (another way: a hit) */
      cs_owner o;
      const cs_owner *ow = make_owner(&o, slot);
      if (UNLIKELY(cb_clo.objects)) ref = cb_obj_before(ii, a, (cs_owner *)ow);
      r = cs_l1_finish(sim, &p, a, size, ow, is_write);
   } else if (UNLIKELY(cb_clo.objects)) ref = cb_obj_before(ii, a, NULL);
   if (cb_cur.collect) {
      if (is_write) count(slot, r, EV_Dw, EV_D1mw, EV_DLmw, EV_DLdmw);
      else count(slot, r, EV_Dr, EV_D1mr, EV_DLmr, EV_DLdmr);
      if (UNLIKELY(cb_clo.objects)) cb_obj_count(ref, r, is_write);
   }
   if (UNLIKELY(cb_cc != NULL)) cc = cb_cores_data_access(slot, ref, a, size, r, is_write);
   if (UNLIKELY(cb_clo.miss_class)) cb_mc_data(slot, a, size, r, CC_CLASS(cc) != 0);
   if (UNLIKELY(cb_clo.reuse_dist)) cb_rd_data(slot, a, size);
   return r | (CC_CLASS(cc) ? CB_BW_REMOTE : 0) | (CC_INV(cc) ? CB_BW_INVALIDATED : 0);
}

/* One helper call simulates a fetch group and/or up to three data
 * accesses (see "Instrumentation" below for how they are formed).
 * Fetch group: n_fetch instructions from fetch_addr, fetch_len bytes in
 * all, contiguous and inside one I1 line; the first is looked up, the
 * others are I1 MRU hits by construction (cs_instr_hits). Each access is
 * charged to the cost slot of its instruction (offset acc[i].cost). The
 * descriptor is self-contained: no per-instruction table is read. */
typedef struct sim_call {
   Addr     fetch_addr;      /* the group's first instruction */
   UInt     fetch_cost;      /* its cost offset; the others follow */
   UShort   fetch_size;      /* its size */
   UShort   n_fetch, fetch_len;
   UChar    n_acc;
   UChar    guarded;         /* its one access runs only under a guard */
   struct { UInt cost; UShort size; UChar write, modify; } acc[3];
   UInt     fplan_second;    /* the plan's second line, if it crosses one */
   cs_fetch_plan fplan;      /* the group's I1 lookup, worked out once */
} sim_call;
/* (one host cache line: fplan_second fills what was padding) */
typedef char sim_call_is_64_bytes[sizeof(sim_call) == 64 ? 1 : -1];

/* Ir of the group's n instructions after the first: they hit. Their cost
 * slots follow the first one's, cb_n_events apart. */
static inline void count_more_fetches(UInt first_cost, UInt n)
{
   UInt k;
   if (!cb_cur.collect) return;
   if (cb_cur.nonskipped) cb_cur.nonskipped->skipped[HOT_POS(EV_Ir)] += n;
   else {
      ULong *s = cb_cost_base + first_cost + HOT_POS(EV_Ir);
      for (k = 1; k <= n; k++) s[k * cb_n_events]++;
   }
   cb_cur.cost[HOT_POS(EV_Ir)] += n;
}

static inline void do_fetch(const sim_call *c)
{
   ULong *slot = slot_at(c->fetch_cost);
   unsigned r = do_instr_at(slot, c->fetch_addr, c->fetch_size);
   if (UNLIKELY(cb_bw_cur != NULL)) cb_bw_fetch(c->fetch_cost, c->n_fetch, slot, r);
   if (c->n_fetch > 1) {
      cs_instr_hits(sim, c->fetch_addr + c->fetch_size, c->fetch_addr + c->fetch_len - 1,
                    c->n_fetch - 1);
      count_more_fetches(c->fetch_cost, c->n_fetch - 1);
   }
}

/* The accessing instruction's info, for --objects=yes (the per-instruction
 * table is built then): cost offsets are instruction index * events. */
static inline sim_instr_info *acc_instr(const sim_call *c, Int i)
{
   if (LIKELY(!cb_clo.objects)) return NULL;
   return &cb_cur.bbcc->bb->sim_instr[c->acc[i].cost / cb_n_events];
}

/* --sharing=yes: the access, with its instruction's address (while
 * collecting, as every event). */
static void share_acc(const sim_call *c, Int i, Addr a)
{
   const BB *bb = cb_cur.bbcc->bb;
   Addr instr = bb->addr + bb->instr[c->acc[i].cost / cb_n_events].offset;
   if (!cb_cur.collect) return;
   if (c->acc[i].modify) cb_fs_modify(instr, a, c->acc[i].size);
   else cb_fs_access(instr, a, c->acc[i].size, c->acc[i].write);
}

static inline void do_acc(const sim_call *c, Int i, Addr a)
{
   ULong *slot = slot_at(c->acc[i].cost);
   unsigned r;
   if (c->acc[i].write) r = do_data_at(slot, acc_instr(c, i), a, c->acc[i].size, True);
   else r = do_data_at(slot, acc_instr(c, i), a, c->acc[i].size, False);
   if (UNLIKELY(cb_bw_cur != NULL))
      cb_bw_data(c->acc[i].cost, a, c->acc[i].size, r, c->acc[i].write, c->acc[i].modify);
   if (UNLIKELY(cb_clo.sharing)) share_acc(c, i, a);
}

#define COUNT_CALL() do { if (CB_SIM_STATS) hot_stat.calls++; } while (0)
static VG_REGPARM(1) void log_F(sim_call *c) { COUNT_CALL(); do_fetch(c); }
static VG_REGPARM(2) void log_F1(sim_call *c, Addr a0) { COUNT_CALL(); do_fetch(c); do_acc(c, 0, a0); }
static VG_REGPARM(3) void log_F2(sim_call *c, Addr a0, Addr a1)
{ COUNT_CALL(); do_fetch(c); do_acc(c, 0, a0); do_acc(c, 1, a1); }
static void log_F3(sim_call *c, Addr a0, Addr a1, Addr a2)
{ COUNT_CALL(); do_fetch(c); do_acc(c, 0, a0); do_acc(c, 1, a1); do_acc(c, 2, a2); }
static VG_REGPARM(2) void log_D1(sim_call *c, Addr a0) { COUNT_CALL(); do_acc(c, 0, a0); }
static VG_REGPARM(3) void log_D2(sim_call *c, Addr a0, Addr a1)
{ COUNT_CALL(); do_acc(c, 0, a0); do_acc(c, 1, a1); }
static void log_D3(sim_call *c, Addr a0, Addr a1, Addr a2)
{ COUNT_CALL(); do_acc(c, 0, a0); do_acc(c, 1, a1); do_acc(c, 2, a2); }

/* Deferred simulation (the default; --defer-sim=no calls the helpers in
 * place). The generated code does not call the helpers above: where it
 * would call one, it stores the call's data addresses in replay_addr and
 * the number of calls made so far in replay_n, two or three host stores.
 * The calls are then made from C, in the same order with the same
 * arguments, at the tool's next entry: the next block's cb_setup_bbcc, or
 * any callback that could look at or change what they use (a client
 * request, a system call, a signal, a thread switch, a dump, the end).
 * Nothing runs in between that sees the simulator, the counters or the
 * running cost centre, so the profile is the same byte for byte; replay_n
 * counts only the calls the block reached, so a side exit or a fault in
 * the middle of it is handled as before. A guarded access's address is
 * stored as REPLAY_SKIPPED when its guard is false. One call per block
 * (the setup it has anyway) instead of one per fetch group or three
 * accesses, and the loop below keeps the simulator's state in registers. */
#define REPLAY_ADDRS    64       /* data accesses of one block before it is replayed in parts */
#define REPLAY_SKIPPED  (~(Addr)0)
static Addr replay_addr[REPLAY_ADDRS];
UInt cb_replay_n;                   /* calls reached by the pending block */
const void *cb_replay_calls;            /* the pending block's descriptors */

static Bool defer_on;          /* deferred simulation (cb_sim_post_clo_init) */
static Bool replay_plain_ok;   /* and no feature needs each access */
Bool cb_replay_split;          /* it was replayed in parts (defer_call) */

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
   }
   VG_(memset)(b->hist, 0, (b->hist_n + 1) * sizeof(ULong));
}

/* Called for every thread by cb_settle_sim_counts (threads.c). */
void cb_sim_settle_thread(thread_info *t)
{
   if (replay_plain_ok) cb_forall_bbccs(&t->bbccs, settle_bbcc);
}

/* The number of counters of a new cost centre's histogram, which bbcc.c
 * puts at the end of the cost centre's allocation (one allocation less
 * per cost centre): the block's calls are known when its first cost
 * centre is made, after its instrumentation. */
UInt cb_sim_hist_len(const BB *bb)
{
   return replay_plain_ok && bb->n_sim_calls > 0 ? bb->n_sim_calls + 1 : 0;
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
static __attribute__((noinline)) void fetch_missed(const sim_call *c, cs_probe p)
{
   ULong *slot = cb_cost_base + c->fetch_cost;
   cs_owner o;
   unsigned r = cs_l1_finish(sim, &p, c->fetch_addr, c->fetch_size, make_owner(&o, slot), 0);
   if (r) count_misses(slot, r, EV_I1mr, EV_ILmr, EV_ILdmr);
}

static __attribute__((noinline)) void fetch_not_mru(const sim_call *c)
{
   cs_probe p;
   if (!cs_l1_probe(sim, &p, 1, c->fetch_addr, c->fetch_size)) fetch_missed(c, p);
}

/* --private-caches: the coherence of a data access with result r (a hit
 * is 0), after the running core simulated it. A load hit has nothing to
 * do: the replay does not call this for one. */
static inline void data_coherence(const sim_call *c, Int i, Addr a, unsigned r)
{
   cb_obj_ref none = { NULL, 0 };
   cb_cores_data_access(cb_cost_base + c->acc[i].cost, none, a, c->acc[i].size, r,
                        c->acc[i].write);
}

static inline __attribute__((always_inline))
void data_missed(const sim_call *c, Int i, Addr a, cs_probe p)
{
   ULong *slot = cb_cost_base + c->acc[i].cost;
   Bool write = c->acc[i].write;
   cs_owner o;
   unsigned r = cs_l1_finish(sim, &p, a, c->acc[i].size, make_owner(&o, slot), write);
   if (r && write) count_misses(slot, r, EV_D1mw, EV_DLmw, EV_DLdmw);
   else if (r) count_misses(slot, r, EV_D1mr, EV_DLmr, EV_DLdmr);
   if (UNLIKELY(cb_cc != NULL)) data_coherence(c, i, a, r);
}

static __attribute__((noinline)) void data_not_mru(const sim_call *c, Int i, Addr a)
{
   cs_probe p;
   if (CUT_BEFORE(6)) { cut_not_mru++; return; }
   if (!cs_l1_probe(sim, &p, 0, a, c->acc[i].size)) data_missed(c, i, a, p);
   else if (UNLIKELY(cb_cc != NULL) && c->acc[i].write) data_coherence(c, i, a, 0);
}

/* The common case's loop: an L1 MRU hit (almost every fetch group and
 * access) costs a tag compare here, and with cacheuse the line's use
 * update; with private caches (cores) a store hit also the coherence
 * test of a line the core owns (cores.h). Inlined for each combination. */
static inline __attribute__((always_inline))
void replay_counted(const sim_call *c, const sim_call *end, const Addr *a, Bool use,
                    Bool cores)
{
   cs_sim *s = sim;
   BBCC *b = cb_cur.bbcc;
   ULong *run = cb_cur.cost;
   UInt n_ir = 0, n_dr = 0, n_dw = 0;
   Int i;
   if (UNLIKELY(b->hist_calls != c)) hist_attach(b);
   b->hist[end - c]++;
   for (; c < end; a += c->n_acc, c++) {
      n_ir += c->n_fetch;
      if (c->n_fetch && !CUT_BEFORE(3)) {
         /* (one crossing into the next line is one instruction: no other
          * can join it) */
         Bool hit = cs__planned_fetch_hit(&s->i1, &c->fplan, c->n_fetch, c->fplan_second, use);
         if (!hit) {
            fetch_not_mru(c);
            if (use && c->n_fetch > 1)
               cs_instr_hits(s, c->fetch_addr + c->fetch_size,
                             c->fetch_addr + c->fetch_len - 1, c->n_fetch - 1);
         }
      }
      if (UNLIKELY(c->guarded)) {
         if (a[0] != REPLAY_SKIPPED) do_acc(c, 0, a[0]);
         continue;
      }
      for (i = 0; i < c->n_acc; i++) {
         Bool write = c->acc[i].write;
         Bool hit = CUT_BEFORE(4) ? True : write && s->wb ? False
                    : use ? cs__mru_hit_use(&s->d1, a[i], c->acc[i].size)
                          : cs__mru_hit(&s->d1, a[i], c->acc[i].size);
         if (!hit && CUT_BEFORE(5)) cut_not_mru++;   /* (keeps the tests) */
         else if (!hit) data_not_mru(c, i, a[i]);
         else if (cores && write) data_coherence(c, i, a[i], 0);
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
   if (CB_SIM_STATS) { hot_stat.replays++; hot_stat.replayed += end - c; }
   if (!replay_plain_ok || !cb_cur.collect || cb_cur.nonskipped || cb_replay_split
       || !counted_calls(cb_cur.bbcc, c))
      replay_all(c, end, replay_addr);
   else if (cb_cc && sim->use) replay_counted(c, end, replay_addr, True, True);
   else if (cb_cc) replay_counted(c, end, replay_addr, False, True);
   else if (sim->use) replay_counted(c, end, replay_addr, True, False);
   else replay_counted(c, end, replay_addr, False, False);
}

/* A block with more data accesses than replay_addr holds: the calls so
 * far, in the middle of it. */
static void replay_part(void)
{
   COUNT_CALL();
   cb_replay_split = True;
   cb_sim_replay();
}

/* A late LL fill (cachesim.h) is made before the tool changes or reads
 * what its hooks see: the back-dating tree, the costs (cb_setup_bbcc when
 * a call or return may follow, cb_sim_catch_up). */
void cb_sim_settle(void)
{
   if (sim) cs_settle(sim);
}

/* Branch prediction runs even while collection is off, as the reference's. */
static VG_REGPARM(2) void log_cond(sim_instr_info *ii, UWord taken)
{
   unsigned miss = bs_cond(bsim, ii->addr, taken);
   if (cb_cur.collect) {
      ULong *slot = slot_at(ii->cost_offset), *run = cb_cur.cost;
      slot[cb_event_pos(EV_Bc)]++; run[cb_event_pos(EV_Bc)]++;
      slot[cb_event_pos(EV_Bcm)] += miss; run[cb_event_pos(EV_Bcm)] += miss;
   }
}

static VG_REGPARM(2) void log_ind(sim_instr_info *ii, Addr target)
{
   unsigned miss = bs_indirect(bsim, ii->addr, target);
   if (cb_cur.collect) {
      ULong *slot = slot_at(ii->cost_offset), *run = cb_cur.cost;
      slot[cb_event_pos(EV_Bi)]++; run[cb_event_pos(EV_Bi)]++;
      slot[cb_event_pos(EV_Bim)] += miss; run[cb_event_pos(EV_Bim)] += miss;
   }
}

/* --collect-bus: one global bus event per atomic instruction (a CAS, which
 * is what VEX makes of LOCK-prefixed instructions, or a store-conditional). */
static VG_REGPARM(1) void log_bus(sim_instr_info *ii)
{
   if (cb_cur.collect) {
      slot_at(ii->cost_offset)[cb_event_pos(EV_Ge)]++;
      cb_cur.cost[cb_event_pos(EV_Ge)]++;
   }
}

/*------------------------------------------------------------*/
/*--- Instrumentation                                      ---*/
/*------------------------------------------------------------*/

/* Helper calls are the main cost of simulation, so they are batched:
 *  - a FETCH GROUP is a run of contiguous instructions inside one I1 line
 *    with no side exit between them. Only the first needs a lookup: the
 *    others are MRU hits, because nothing but instruction fetches touches
 *    I1, and a hit has no effect on D1 or LL. Their hits are applied when
 *    the group's first instruction is simulated, which is the same final
 *    state (the line cannot leave I1 before they would have run);
 *  - the group's data accesses follow in program order, up to three per
 *    call (the first three in the group's fetch call); a guarded access
 *    gets a call of its own under its guard.
 * So every D1/LL-visible event happens in the same order as with one call
 * per access, and the counts are exactly the same. The calls are emitted
 * when the group ends: at an instruction outside it, a side exit, the end
 * of the block. Their descriptors (sim_call) are collected per block and
 * copied to the BB at its end (cb_sim_bb_end), where the helpers'
 * arguments are pointed at the copy. */
typedef struct { Bool write, modify; Int size; IRExpr *addr; IRExpr *guard; UInt instr; } data_access;

#define MAX_ACCESSES 64
#define MAX_GROUP    32        /* instructions per fetch group */
static struct {
   IRSB    *sb;
   BB      *bb;
   sim_instr_info *ii;            /* the BB's per-instruction info */
   Int      cur;            /* current instruction, -1 before the first */
   UInt     grp_first, grp_n, grp_len; /* fetch group not emitted yet (grp_n > 0) */
   Addr     grp_addr;       /* its first instruction's address and size */
   UInt     grp_size;
   Bool     grp_open;       /* further instructions may join it */
   Int      n_acc;
   data_access   acc[MAX_ACCESSES];
   /* the block's calls and the argument expressions to point at them */
   sim_call *calls;
   IRExpr **call_arg;
   Int      n_calls, calls_size;
   /* deferred simulation: where the next address goes in replay_addr, the
    * first call replay_n counts from, cb_setup_bbcc's argument */
   Bool     defer;
   Int      n_addr, seg_first;
   IRExpr  *setup_arg;
} cur_block;                /* the block being instrumented */


static void emit_call(const HChar *name, void *fn, Int regparms, IRExpr **args, IRExpr *guard)
{
   IRDirty *di = unsafeIRDirty_0_N(regparms, name, VG_(fnptr_to_fnentry)(fn), args);
   if (guard) di->guard = guard;
   addStmtToIRSB(cur_block.sb, IRStmt_Dirty(di));
}

static void store_const_addr(void *where, IRExpr *value)
{
   addStmtToIRSB(cur_block.sb, IRStmt_Store(Iend_LE, mkIRExpr_HWord((HWord)where), value));
}

/* Instead of calling the helper: store the call's addresses and count it
 * (see "Deferred simulation"). A block with more addresses than
 * replay_addr holds replays the calls so far in the middle. */
static void defer_call(data_access *acc, Int n, IRExpr *guard)
{
   Int i;
   if (cur_block.n_addr + n > REPLAY_ADDRS) {
      emit_call("replay_part", (void *)replay_part, 0, mkIRExprVec_0(), NULL);
      cur_block.seg_first = cur_block.n_calls - 1;
      cur_block.n_addr = 0;
   }
   for (i = 0; i < n; i++) {
      IRExpr *a = acc[i].addr;
      if (guard) {
         IRTemp t = newIRTemp(cur_block.sb->tyenv, typeOfIRExpr(cur_block.sb->tyenv, a));
         addStmtToIRSB(cur_block.sb, IRStmt_WrTmp(t, IRExpr_ITE(guard, a,
                                                  mkIRExpr_HWord(REPLAY_SKIPPED))));
         a = IRExpr_RdTmp(t);
      }
      store_const_addr(&replay_addr[cur_block.n_addr++], a);
   }
   store_const_addr(&cb_replay_n, IRExpr_Const(IRConst_U32(cur_block.n_calls - cur_block.seg_first)));
}

static IRExpr *ii_arg(void) { return mkIRExpr_HWord((HWord)&cur_block.ii[cur_block.cur]); }

/* A new descriptor in the block's list; its argument expression is
 * patched to the final copy by cb_sim_bb_end. */
static IRExpr *new_call(sim_call **c)
{
   if (cur_block.n_calls == cur_block.calls_size) {
      Int size = cur_block.calls_size ? 2 * cur_block.calls_size : 64;
      cur_block.calls_size = size;
      cur_block.calls = VG_(realloc)("cb.sim.calls", cur_block.calls, size * sizeof(sim_call));
      cur_block.call_arg = VG_(realloc)("cb.sim.calls", cur_block.call_arg,
                                        size * sizeof(IRExpr *));
   }
   *c = &cur_block.calls[cur_block.n_calls];
   VG_(memset)(*c, 0, sizeof(sim_call));   /* padding too: compared by memcmp */
   cur_block.call_arg[cur_block.n_calls] = mkIRExpr_HWord(0);
   return cur_block.call_arg[cur_block.n_calls++];
}

/* One call: the pending fetch group (if fetch) and accesses acc[0..n-1]. */
static void emit_sim_call(Bool fetch, data_access *acc, Int n, IRExpr *guard)
{
   static const struct { const HChar *name; void *fn; } helpers[2][4] = {
      { { NULL, NULL }, { "log_D1", (void *)log_D1 }, { "log_D2", (void *)log_D2 }, { "log_D3", (void *)log_D3 } },
      { { "log_F", (void *)log_F }, { "log_F1", (void *)log_F1 }, { "log_F2", (void *)log_F2 }, { "log_F3", (void *)log_F3 } },
   };
   sim_call *c;
   IRExpr *arg = new_call(&c);
   IRExpr **args;
   Int i;

   if (fetch) {
      c->fetch_addr = cur_block.grp_addr;
      c->fetch_size = cur_block.grp_size;
      c->fetch_cost = cur_block.grp_first * cb_n_events;
      c->n_fetch = cur_block.grp_n;
      c->fetch_len = cur_block.grp_len;
      cs_plan_fetch(sim, c->fetch_addr, c->fetch_len, &c->fplan, &c->fplan_second);
   }
   c->n_acc = n;
   c->guarded = cur_block.defer && guard != NULL;
   for (i = 0; i < n; i++) {
      c->acc[i].cost = acc[i].instr * cb_n_events;
      c->acc[i].size = acc[i].size;
      c->acc[i].write = acc[i].write;
      c->acc[i].modify = acc[i].modify;
   }
   switch (n) {
   case 0:  args = mkIRExprVec_1(arg); break;
   case 1:  args = mkIRExprVec_2(arg, acc[0].addr); break;
   case 2:  args = mkIRExprVec_3(arg, acc[0].addr, acc[1].addr); break;
   default: args = mkIRExprVec_4(arg, acc[0].addr, acc[1].addr, acc[2].addr); break;
   }
   if (cur_block.defer) defer_call(acc, n, guard);
   else emit_call(helpers[fetch][n].name, helpers[fetch][n].fn, n + 1 > 3 ? 3 : n + 1, args, guard);
}

/* CB_SIM_STATS builds: *counter += n in the generated code. */
static void count_in_ir(IRSB *sbOut, ULong *counter, UInt n)
{
   IRTemp old = newIRTemp(sbOut->tyenv, Ity_I64), sum = newIRTemp(sbOut->tyenv, Ity_I64);
   IRExpr *where = mkIRExpr_HWord((HWord)counter);
   addStmtToIRSB(sbOut, IRStmt_WrTmp(old, IRExpr_Load(Iend_LE, Ity_I64, where)));
   addStmtToIRSB(sbOut, IRStmt_WrTmp(sum, IRExpr_Binop(Iop_Add64, IRExpr_RdTmp(old),
                                                       IRExpr_Const(IRConst_U64(n)))));
   addStmtToIRSB(sbOut, IRStmt_Store(Iend_LE, where, IRExpr_RdTmp(sum)));
}

/* Emit the pending fetch group and accesses, in program order: a call
 * per three accesses, the first with the group; a guarded access gets a
 * call of its own under its guard. */
void cb_sim_flush(IRSB *sbOut)
{
   Bool fetch = cur_block.grp_n > 0;
   Int i, from = 0;
   if (!cb_clo.simulate_cache || cur_block.cur < 0) return;
   if (CB_SIM_STATS && fetch) count_in_ir(sbOut, &hot_stat.instrs, cur_block.grp_n);
   for (i = 0; i < cur_block.n_acc; i++) {
      if (cur_block.acc[i].guard) {
         if (fetch || i > from) emit_sim_call(fetch, &cur_block.acc[from], i - from, NULL);
         emit_sim_call(False, &cur_block.acc[i], 1, cur_block.acc[i].guard);
         fetch = False;
         from = i + 1;
      } else if (i + 1 - from == 3) {
         emit_sim_call(fetch, &cur_block.acc[from], 3, NULL);
         fetch = False;
         from = i + 1;
      }
   }
   if (fetch || cur_block.n_acc > from)
      emit_sim_call(fetch, &cur_block.acc[from], cur_block.n_acc - from, NULL);
   cur_block.n_acc = 0;
   cur_block.grp_n = 0;
   cur_block.grp_open = False;
}

void cb_sim_bb_begin(IRSB *sbOut, BB *bb, Bool fresh)
{
   cur_block.sb = sbOut;
   cur_block.bb = bb;
   cur_block.cur = -1;
   cur_block.n_acc = 0;
   cur_block.grp_first = cur_block.grp_n = 0;
   cur_block.grp_open = False;
   cur_block.n_calls = 0;
   cur_block.ii = NULL;
   cur_block.defer = defer_on;
   cur_block.n_addr = cur_block.seg_first = 0;
   cur_block.setup_arg = mkIRExpr_HWord(0);
   if (cb_clo.bandwidth) cb_bw_bb_begin(bb);
   /* per-instruction info: only the branch predictor's and the bus event's
    * helpers, and the data objects' cells, need it */
   if (!cb_clo.branch_sim && !cb_clo.collect_bus && !cb_clo.objects) return;
   if (!bb->sim_instr) {
      bb->sim_instr = cb_mem_alloc(CB_MEM_BBS, "cb.sim.ii", bb->instr_count * sizeof(sim_instr_info));
      VG_(memset)(bb->sim_instr, 0, bb->instr_count * sizeof(sim_instr_info));
   }
   cur_block.ii = bb->sim_instr;
}

/* The block's call descriptors go to the BB. A retranslation of the same
 * block builds the same list and shares it; a different list gets a new
 * array (the old one may still serve an older translation, so it stays). */
void cb_sim_bb_end(IRSB *sbOut)
{
   BB *bb = cur_block.bb;
   Int i;
   if (cur_block.n_calls == 0) return;
   if (!bb->sim_calls || bb->n_sim_calls != (UInt)cur_block.n_calls
       || VG_(memcmp)(bb->sim_calls, cur_block.calls, cur_block.n_calls * sizeof(sim_call)) != 0) {
      bb->sim_calls = cb_mem_alloc(CB_MEM_BBS, "cb.sim.calls", cur_block.n_calls * sizeof(sim_call));
      VG_(memcpy)(bb->sim_calls, cur_block.calls, cur_block.n_calls * sizeof(sim_call));
      bb->n_sim_calls = cur_block.n_calls;
   }
   for (i = 0; i < cur_block.n_calls; i++)
      cur_block.call_arg[i]->Iex.Const.con->Ico.U64 = (ULong)(HWord)&bb->sim_calls[i];
   if (cur_block.defer)
      cur_block.setup_arg->Iex.Const.con->Ico.U64 = (ULong)(HWord)bb->sim_calls;
   cur_block.n_calls = 0;
}

/* cb_setup_bbcc's second argument: the block's call descriptors when its
 * simulation is deferred, else 0 (set by cb_sim_bb_end). */
IRExpr *cb_sim_setup_arg(void)
{
   return cur_block.setup_arg;
}

/* Whether instruction [addr, addr+size) extends the open fetch group. */
static Bool joins_group(Addr addr, UInt size)
{
   Addr start = cur_block.grp_addr;
   if (cur_block.grp_n == 0 || !cur_block.grp_open || cur_block.grp_n >= MAX_GROUP) return False;
   return addr == start + cur_block.grp_len
       && ((addr + size - 1) >> cb_geom.i1_line_bits) == (start >> cb_geom.i1_line_bits);
}

void cb_sim_instr(IRSB *sbOut, UInt idx, Addr addr, UInt size)
{
   if (!cb_events_per_instr()) return;
   if (cur_block.ii) {              /* branch simulation only */
      cur_block.ii[idx].addr = addr;
      cur_block.ii[idx].size = size;
      cur_block.ii[idx].cost_offset = idx * cb_n_events;
   }
   if (cb_clo.simulate_cache) {
      if (joins_group(addr, size)) {
         cur_block.grp_n++;
         cur_block.grp_len += size;
      } else {
         cb_sim_flush(sbOut);
         cur_block.grp_first = idx;
         cur_block.grp_addr = addr;
         cur_block.grp_size = size;
         cur_block.grp_n = 1;
         cur_block.grp_len = size;
         /* an instruction straddling two lines is looked up alone */
         cur_block.grp_open = (addr >> cb_geom.i1_line_bits)
                              == ((addr + size - 1) >> cb_geom.i1_line_bits);
      }
   }
   cur_block.cur = idx;
}

static Bool same_atom(IRExpr *a, IRExpr *b)
{
   return eqIRAtom(a, b);
}

static void add_access(Bool write, IRExpr *addr, Int size, IRExpr *guard)
{
   data_access *last = cur_block.n_acc > 0 ? &cur_block.acc[cur_block.n_acc - 1] : NULL;
   if (!cb_clo.simulate_cache || cur_block.cur < 0) return;
   if (size > cb_geom.min_line_size) size = cb_geom.min_line_size;
   /* read-modify-write by one instruction: one access, counted as a write */
   if (write && !guard && last && last->instr == (UInt)cur_block.cur && !last->write && !last->guard
       && last->size == size && same_atom(last->addr, addr)) {
      last->write = True;
      last->modify = True;              /* --sharing: a load and a store */
      return;
   }
   if (cur_block.n_acc == MAX_ACCESSES) cb_sim_flush(cur_block.sb);
   cur_block.acc[cur_block.n_acc++] = (data_access){ write, False, size, addr, guard, cur_block.cur };
}

static void add_bus_event(void)
{
   if (cb_clo.collect_bus && cur_block.cur >= 0)
      emit_call("log_bus", (void *)log_bus, 1, mkIRExprVec_1(ii_arg()), NULL);
}

void cb_sim_stmt(IRSB *sbOut, IRStmt *st)
{
   IRTypeEnv *env = sbOut->tyenv;
   if (UNLIKELY(cb_clo.bandwidth)) cb_bw_stmt(cur_block.bb, cur_block.cur, st);
   switch (st->tag) {
   case Ist_WrTmp: {
      IRExpr *e = st->Ist.WrTmp.data;
      if (e->tag == Iex_Load)
         add_access(False, e->Iex.Load.addr, sizeofIRType(e->Iex.Load.ty), NULL);
      break;
   }
   case Ist_Store:
      add_access(True, st->Ist.Store.addr,
                 sizeofIRType(typeOfIRExpr(env, st->Ist.Store.data)), NULL);
      break;
   case Ist_StoreG: {
      IRStoreG *sg = st->Ist.StoreG.details;
      add_access(True, sg->addr, sizeofIRType(typeOfIRExpr(env, sg->data)), sg->guard);
      break;
   }
   case Ist_LoadG: {
      IRLoadG *lg = st->Ist.LoadG.details;
      IRType wide = Ity_INVALID, narrow = Ity_INVALID;
      typeOfIRLoadGOp(lg->cvt, &wide, &narrow);
      add_access(False, lg->addr, sizeofIRType(narrow), lg->guard);
      break;
   }
   case Ist_Dirty: {
      IRDirty *d = st->Ist.Dirty.details;
      if (d->mFx != Ifx_None) {
         if (d->mFx == Ifx_Read || d->mFx == Ifx_Modify)
            add_access(False, d->mAddr, d->mSize, NULL);
         if (d->mFx == Ifx_Write || d->mFx == Ifx_Modify)
            add_access(True, d->mAddr, d->mSize, NULL);
      }
      break;
   }
   case Ist_CAS: {
      IRCAS *cas = st->Ist.CAS.details;
      Int size = sizeofIRType(typeOfIRExpr(env, cas->dataLo)) * (cas->dataHi ? 2 : 1);
      add_access(False, cas->addr, size, NULL);
      add_access(True, cas->addr, size, NULL);
      add_bus_event();
      break;
   }
   case Ist_LLSC:
      if (st->Ist.LLSC.storedata == NULL)
         add_access(False, st->Ist.LLSC.addr,
                    sizeofIRType(typeOfIRTemp(env, st->Ist.LLSC.result)), NULL);
      else {
         add_access(True, st->Ist.LLSC.addr,
                    sizeofIRType(typeOfIRExpr(env, st->Ist.LLSC.storedata)), NULL);
         add_bus_event();
      }
      break;
   default:
      break;
   }
}

/* A conditional branch: taken when the exit is taken, unless VEX inverted
 * the condition so that the exit goes to the next instruction. */
void cb_sim_exit(IRSB *sbOut, IRStmt *st)
{
   IRTemp t1, t2;
   IRExpr *taken;
   Addr next, dst;
   if (!cb_clo.branch_sim || cur_block.cur < 0 || st->Ist.Exit.jk != Ijk_Boring) return;
   next = cur_block.ii[cur_block.cur].addr + cur_block.ii[cur_block.cur].size;
   dst = (Addr)st->Ist.Exit.dst->Ico.U64;
   t1 = newIRTemp(sbOut->tyenv, Ity_I64);
   addStmtToIRSB(sbOut, IRStmt_WrTmp(t1, IRExpr_Unop(Iop_1Uto64, st->Ist.Exit.guard)));
   taken = IRExpr_RdTmp(t1);
   if (dst == next) {
      t2 = newIRTemp(sbOut->tyenv, Ity_I64);
      addStmtToIRSB(sbOut, IRStmt_WrTmp(t2, IRExpr_Binop(Iop_Xor64, taken, mkIRExpr_HWord(1))));
      taken = IRExpr_RdTmp(t2);
   }
   emit_call("log_cond", (void *)log_cond, 2, mkIRExprVec_2(ii_arg(), taken), NULL);
}

/* An indirect jump or call (not a return) at the end of the block. */
void cb_sim_final_jump(IRSB *sbOut, IRSB *sbIn)
{
   if (!cb_clo.branch_sim || cur_block.cur < 0) return;
   if (sbIn->next->tag == Iex_Const) return;
   if (sbIn->jumpkind != Ijk_Boring && sbIn->jumpkind != Ijk_Call) return;
   emit_call("log_ind", (void *)log_ind, 2, mkIRExprVec_2(ii_arg(), sbIn->next), NULL);
}

/*------------------------------------------------------------*/
/*--- Start, dumps, end                                    ---*/
/*------------------------------------------------------------*/

/* After option parsing: the events, the caches' geometry, the models. */
void cb_sim_post_clo_init(void)
{
   cb_events_setup();
   cb_geometry_setup();
   if (cb_clo.simulate_cache) {
      const cb_cache_geometry *g = &cb_geom;
      cs_options o = { cb_clo.simulate_wb, cb_clo.simulate_hwpref, cb_clo.cacheuse,
                       cb_clo.objects };
      sim = cs_new(&g->i1, &g->d1, &g->ll, o, cb_clo.cacheuse ? &cb_bd_cache_hooks : NULL);
      if (cb_clo.cacheuse) cb_bd_use_charging(sim);
      if (g->has_l2) cs_set_l2(sim, &g->l2);
      if (cb_clo.prefetch_distance > 0) cs_set_stream_prefetch(sim, cb_clo.prefetch_distance);
      /* their events come after all others: declared last */
      if (cb_clo.miss_class) cb_mc_setup(sim, &g->i1, &g->d1, &g->ll);
      if (cb_clo.reuse_dist) cb_rd_setup(&g->ll);
      if (cb_clo.private_caches) cb_cores_setup(sim);
      cb_bw_setup(sim);               /* its events last */
      defer_on = cb_clo.defer_sim && !cb_clo.bandwidth;
      replay_plain_ok = defer_on && !CB_SIM_STATS && !cb_clo.objects
                        && !cb_clo.miss_class && !cb_clo.reuse_dist && !cb_clo.sharing;
      /* (--backdate-check's on_load counts at the running counter; the
       * cores share the LL, which another core's fill must find filled) */
      if (replay_plain_ok && !cb_clo.backdate_check && !cb_clo.private_caches)
         cs_set_late_ll_fill(sim, 1);
   }
   if (cb_clo.branch_sim) bsim = bs_new();
   cb_bd_setup();
}

/* The profile's description of the simulation (desc: lines). */
void cb_sim_write_desc(cb_outfile *f)
{
   cb_geometry_write_desc(f);
   cb_bd_write_desc(f);
}

/* Zeroing: see cb_bd_zero; with private caches, for every core's. */
void cb_sim_zero(thread_info *only)
{
   UInt k;
   if (!cb_cc) {
      cb_bd_zero(sim && cb_clo.cacheuse ? sim : NULL, only);
      return;
   }
   for (k = 0; k < cb_cores_n(); k++)
      if (cb_cores_sim(k)) cb_bd_zero(cb_clo.cacheuse ? cb_cores_sim(k) : NULL, only);
}

/* --private-caches: the thread's core runs from now on (its caches and
 * its miss classifier). */
void cb_sim_switch_thread(ThreadId tid)
{
   cb_bw_switch_thread(tid);
   if (!cb_cc) return;
   sim = cb_cores_switch(tid);
   if (cb_clo.miss_class) cb_mc_switch_core(tid - 1);
}

/* At exit: every resident line leaves, every tree is pruned to its root. */
void cb_sim_finish(void)
{
   if (sim && cb_clo.cacheuse && cb_cc) {
      cb_cores_set_collect(cb_cur.collect);
      cb_cores_flush();
   } else if (sim && cb_clo.cacheuse) {
      if (sim->collect != cb_cur.collect) cs_set_collect(sim, cb_cur.collect);
      cs_flush(sim);
   }
   cb_bd_finish();
}

/* Instrumentation switched on or off: the reference empties the caches
 * and loses the use data of resident lines; we account it first. */
void cb_sim_clear(void)
{
   cb_bw_caches_cleared();
   if (sim && cb_cc) {
      if (cb_clo.cacheuse) cb_cores_flush();
      cb_cores_clear();
      cb_mc_clear();
      cb_rd_clear();
   } else if (sim) {
      if (cb_clo.cacheuse) cs_flush(sim);
      cs_clear(sim);
      cb_mc_clear();
      cb_rd_clear();
   }
   /* A call faked after the switch (a return with an empty stack) lasts
    * since then (instrument.c); what reached a tree's root before must
    * not climb through that call's arc: hand it over now, as a dump does. */
   cb_bd_settle();
}

/* "Sim helpers:" (CB_SIM_STATS builds): per 1000 guest instructions, the
 * helper calls from the generated code and the replays from C (with the
 * simulation calls they made); and the share of the I1 lookups and D1
 * accesses simulated that were L1 MRU hits. */
static void print_hot_stats(void)
{
   ULong n = hot_stat.instrs ? hot_stat.instrs : 1;
   ULong i = hot_stat.i_mru + hot_stat.i_other, d = hot_stat.d_mru + hot_stat.d_other;
   VG_(dmsg)("Sim helpers:       instrs %llu, calls %llu (%llu.%llu per 1000 instrs), "
             "replays %llu (%llu.%llu per 1000 instrs, %llu calls); "
             "simulated: I1 lookups %llu (MRU hits %llu), D1 accesses %llu (MRU hits %llu)\n",
             hot_stat.instrs, hot_stat.calls, hot_stat.calls * 1000 / n,
             hot_stat.calls * 10000 / n % 10, hot_stat.replays, hot_stat.replays * 1000 / n,
             hot_stat.replays * 10000 / n % 10, hot_stat.replayed,
             i, hot_stat.i_mru, d, hot_stat.d_mru);
}

void cb_sim_print_stats(void)
{
   if (CB_SIM_STATS && sim) print_hot_stats();
   if (sim && cb_clo.simulate_hwpref) {
      uint64_t up, down;
      if (cb_cc) {
         ULong u, d;
         cb_cores_prefetch_counts(&u, &d);
         up = u, down = d;
      } else cs_prefetch_counts(sim, &up, &down);
      VG_(dmsg)("Prefetch Up:       %llu\n", (ULong)up);
      VG_(dmsg)("Prefetch Down:     %llu\n", (ULong)down);
   }
   if (cb_cc) cb_cores_print_stats();
   cb_bd_print_stats();
}

/* --prefetch: the stream prefetcher's counts of the whole run, over all
 * cores (cs_stream_prefetch_counts). */
void cb_sim_stream_prefetch_counts(ULong *issued, ULong *used, ULong *unused)
{
   cs_spf_counts n;
   UInt k;
   *issued = *used = *unused = 0;
   for (k = 0; k < (cb_cc ? cb_cores_n() : 1); k++) {
      const cs_sim *s = cb_cc ? cb_cores_sim(k) : sim;
      if (!s) continue;
      cs_stream_prefetch_counts(s, &n);
      *issued += n.issued;
      *used += n.used;
      *unused += n.unused;
   }
}
