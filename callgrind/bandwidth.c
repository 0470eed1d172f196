/* callgrind-bd: --bandwidth=yes -- bandwidth requirements per data path
 * and thread, dominance against a machine's limits, the Flop event, the
 * dirty D1 lines of every core (the L1->LL write-backs: the cache model
 * keeps dirty bits in LL only), and the companion file
 * <profile>.bandwidth (docs/bandwidth-format.md).
 * The pure model (windows, histograms, dominance, the machine file) is
 * cachesim/bandwidth.c; the per-access hooks are inline in
 * bandwidth_hooks.h.
 *
 * Rules:
 *  - Every thread is a core (Valgrind thread id = core; --private-caches
 *    is on unless given as no). Its time is its own count of units (an
 *    instruction, or a flop); units pass only while collecting, so with
 *    unit instr a thread's units are its Ir.
 *  - Unit instr: an instruction's accesses, misses and flops belong to its
 *    unit. Unit flop: an instruction with f flops closes f units; the
 *    bytes since the last flop belong to the first of them. Bytes moved
 *    after a thread's last flop make one more unit at the end.
 *  - All cores (LL<-mem all, LL->mem all): each core's bytes are added at
 *    its aligned unit, the cores' requirements summed at equal local
 *    time (DESIGN.md section 7): a thread starts at the aligned unit of
 *    the thread creating it, then counts its own units; a thread blocked
 *    in a system call stands still (it adds nothing meanwhile: the
 *    thesis' zero requirement of an idle core). Units become final
 *    (histogram) once every live thread has passed them; an exited
 *    thread holds nothing back. When the running thread gets MAX_AHEAD
 *    units ahead of the first unit not final, units are finalized up to
 *    MAX_AHEAD / 2 behind it, and a thread left behind continues at the
 *    first unit not final when it runs again (it was idle meanwhile). So
 *    the series hold at most MAX_AHEAD + W units per shared path, a
 *    byte each (bandwidth.h).
 *  - Dominance of a shared path in a thread's unit uses the all-cores
 *    window sum known when that unit closes: the other cores' bytes at
 *    the same aligned units if they have run them already.
 *  - Events (only with limits, while collecting): for each path with a
 *    limit, the units it dominated (BwCr ... BwMwA), and the units at
 *    peak (BwPk), charged to the instruction of the unit; Flop always.
 *  - Batched (no limits, unit instr: cb_bw_batched): no unit is closed
 *    one by one. A fetch group's units are its instructions, numbered at
 *    its start; the hooks add each access's bytes at its instruction's
 *    unit (cachesim/bandwidth.h, "batched"), and the units are counted
 *    in stretches (batch_flush: when the ring is full, and before
 *    anything reads the clocks or the series: a thread switch, a system
 *    call, an exit, the end). The flush replays for the shared paths what
 *    closing the units one by one did, in the same order (the series
 *    adds, the 2^16-unit finalization, MAX_AHEAD), and keeps open, as that
 *    did, the units of a running group from its last access's
 *    instruction on. The deferred simulation's counted replay calls the
 *    hooks (sim_replay.c). The output is the same byte for byte.
 *
 * Copyright (C) 2026 the callgrind-bd authors.  GPL-2.0-or-later.
 */
#include "bandwidth_hooks.h"
#include "sim_int.h"          /* sim_call: a block's static bytes */

#define MAX_AHEAD (1u << 21)      /* aligned units a core may run ahead */

cb_bw_thread *cb_bw_cur;
UInt cb_bw_i1_line, cb_bw_d1_line, cb_bw_ll_line, cb_bw_d1_bits;
/* log2 of the line size when I1, D1 and LL share it (every miss path's
 * bytes a multiple of it: the histograms count in lines), else 32 */
static UInt line_shift = 32;
Bool cb_bw_batched;
ULong cb_bw_inv_events;

/* Batched: the units of a stretch this long at most are counted at once */
#define BATCH_STRETCH 4096

static cb_bw_thread *threads;     /* VG_N_THREADS entries */
/* The ids of the threads made, ascending: the loops over all cores run
 * at every thread switch and invalidating store, and VG_N_THREADS is
 * hundreds where a program makes a few. */
static ThreadId *made_ids;
static UInt n_made;
static bw_limits limits;
static const bw_limits *lim;      /* &limits, or NULL without a machine file */
static Bool all_matters;          /* a limit on a shared all-cores path */
static bw_series all[2];          /* LL<-mem all, LL->mem all */
static const Int all_path[2] = { BW_MEM_RD, BW_MEM_WR };   /* each core's path of all[i] */
/* Batched, while the program has made one thread: the all-cores series
 * are that thread's LL<-mem and LL->mem at the same units (it started at
 * aligned unit 0 and nothing moved its clock on), so they are not kept:
 * made from it when a second thread is made (series_from_sole), or
 * copied from it at the end. */
static Bool all_lazy;
static Int dom_pos[BW_DOM_PATHS]; /* event positions, -1: no limit */
static Int peak_pos;
Int cb_bw_flop_pos;

/*------------------------------------------------------------*/
/*--- Setup: events, the machine file                      ---*/
/*------------------------------------------------------------*/

static const HChar *const dom_event[BW_DOM_PATHS] = {
   "BwCr", "BwCw", "BwLr", "BwLw", "BwXr", "BwMr", "BwMw", "BwF", "BwMrA", "BwMwA",
};

/* The machine file, whole, or exit with a message naming it. */
static void machine_file_error(const HChar *name, const HChar *why)
{
   VG_(fmsg)("callgrind-bd: cannot read machine file '%s' (--bandwidth-limits): %s\n",
             name, why);
   VG_(exit)(1);
}

static HChar *read_machine_file(const HChar *name, SizeT *len)
{
   SizeT cap = 4096, used = 0;
   HChar *buf;
   Int fd, n;
   SysRes res = VG_(open)(name, VKI_O_RDONLY, 0);
   struct vg_stat st;
   if (sr_isError(res)) machine_file_error(name, cb_open_error_text(sr_Err(res)));
   fd = sr_Res(res);
   if (VG_(fstat)(fd, &st) == 0 && VKI_S_ISDIR(st.mode))
      machine_file_error(name, "is a directory");
   buf = CB_MALLOC("cb.bw.machine", cap);
   while ((n = VG_(read)(fd, buf + used, cap - used)) > 0) {
      used += n;
      if (used == cap) {
         if (cap >= (1 << 20)) {
            VG_(fmsg)("callgrind-bd: machine file '%s' is larger than 1 MB\n", name);
            VG_(exit)(1);
         }
         cap *= 2;
         buf = VG_(realloc)("cb.bw.machine", buf, cap);
      }
   }
   VG_(close)(fd);
   if (n < 0) {
      VG_(fmsg)("callgrind-bd: cannot read machine file '%s' (--bandwidth-limits): "
                "read error\n", name);
      VG_(exit)(1);
   }
   *len = used;
   return buf;
}

/* The `latency ...:` lines of a machine file are callgrind-bd_bandwidth
 * --latency's (docs/bandwidth-format.md), not limits: made comments here
 * (line numbers of messages unchanged). */
static void hide_latency_lines(HChar *text, SizeT len)
{
   SizeT i = 0, k;
   static const HChar key[] = "latency ";
   while (i < len) {
      SizeT start = i;
      while (i < len && (text[i] == ' ' || text[i] == '\t')) i++;
      for (k = 0; key[k] && i + k < len && text[i + k] == key[k]; k++)
         ;
      if (!key[k]) text[start] = '#';
      while (i < len && text[i] != '\n') i++;
      i++;
   }
}

static void load_limits(void)
{
   const HChar *name = cb_clo.bandwidth_limits, *msg = NULL;
   SizeT len;
   HChar *text = read_machine_file(name, &len);
   Int line;
   hide_latency_lines(text, len);
   line = bw_parse_machine(text, len, cb_clo.bandwidth_unit == BW_UNIT_FLOP,
                               &limits, &msg);
   CB_FREE(text);
   if (line > 0) {
      VG_(fmsg)("callgrind-bd: %s:%d: %s\n", name, line, msg);
      VG_(exit)(1);
   } else if (line < 0) {
      VG_(fmsg)("callgrind-bd: %s: %s\n", name, msg);
      VG_(exit)(1);
   }
   bw_limits_prepare(&limits, cb_clo.bandwidth_window);
   lim = &limits;
   all_matters = limits.has[BW_ALL_RD] || limits.has[BW_ALL_WR];
}

static void declare_events(void)
{
   Int p;
   cb_event_declare(EV_Flop, "Flop");
   cb_bw_flop_pos = cb_event_pos(EV_Flop);
   peak_pos = -1;
   for (p = 0; p < BW_DOM_PATHS; p++) dom_pos[p] = -1;
   if (!lim) return;
   for (p = 0; p < BW_DOM_PATHS; p++) {
      if (!limits.has[p]) continue;
      cb_event_declare(EV_BwCr + p, dom_event[p]);
      dom_pos[p] = cb_event_pos(EV_BwCr + p);
   }
   cb_event_declare(EV_BwPk, "BwPk");
   peak_pos = cb_event_pos(EV_BwPk);
}

/* A line the running core's D1 drops: written back if dirty, in the
 * unit of the access being simulated (cb_bw_data adds it there). */
static void d1_victim(void *ctx, uint64_t line)
{
   cb_bw_thread *t = cb_bw_cur;
   if (t && bw_dirty_take(&t->dirty, line)) t->pending_wb += cb_bw_d1_line;
}

void cb_bw_setup(cs_sim *first)
{
   if (!cb_clo.bandwidth) return;
   if (cb_clo.bandwidth_limits) load_limits();
   declare_events();
   cb_bw_i1_line = cb_geom.i1.line_size;
   cb_bw_d1_line = cb_geom.d1.line_size;
   cb_bw_ll_line = cb_geom.ll.line_size;
   while ((1u << cb_bw_d1_bits) < cb_bw_d1_line) cb_bw_d1_bits++;
   if (cb_bw_i1_line == cb_bw_d1_line && cb_bw_ll_line == cb_bw_d1_line
       && (1u << cb_bw_d1_bits) == cb_bw_d1_line)
      line_shift = cb_bw_d1_bits;
   /* private caches: the cores made later copy it from the first */
   cs_set_d1_victim_observer(first, d1_victim, NULL);
   /* Without limits each path's histogram is its own (no dominance): the
    * units are counted in stretches (cachesim/bandwidth.h, "batched").
    * Unit flop keeps closing unit by unit (an instruction closes as many
    * units as it makes flops). */
   cb_bw_batched = !lim && cb_clo.bandwidth_unit == BW_UNIT_INSTR;
   all_lazy = cb_bw_batched;
   cb_bw_inv_events = ((1ULL << 32) + cb_n_events - 1) / cb_n_events;
   threads = CB_MALLOC("cb.bw.threads", VG_N_THREADS * sizeof(cb_bw_thread));
   VG_(memset)(threads, 0, VG_N_THREADS * sizeof(cb_bw_thread));
   made_ids = CB_MALLOC("cb.bw.made", VG_N_THREADS * sizeof(ThreadId));
   /* (the shared paths move whole LL lines) */
   bw_series_init(&all[0], cb_clo.bandwidth_window, MAX_AHEAD, cb_bw_ll_line);
   bw_series_init(&all[1], cb_clo.bandwidth_window, MAX_AHEAD, cb_bw_ll_line);
}

/*------------------------------------------------------------*/
/*--- Flops from the VEX IR                                ---*/
/*------------------------------------------------------------*/

/* Floating-point operations of one IR operation on F32/F64 values:
 * add, sub, mul, div, sqrt (scalar, lowest lane, packed: one per lane),
 * fused multiply-add/sub (two). */
static UInt flops_of(IROp op)
{
   switch (op) {
   case Iop_AddF64: case Iop_SubF64: case Iop_MulF64: case Iop_DivF64:
   case Iop_AddF32: case Iop_SubF32: case Iop_MulF32: case Iop_DivF32:
   case Iop_AddF64r32: case Iop_SubF64r32: case Iop_MulF64r32: case Iop_DivF64r32:
   case Iop_SqrtF64: case Iop_SqrtF32:
   case Iop_Add64F0x2: case Iop_Sub64F0x2: case Iop_Mul64F0x2: case Iop_Div64F0x2:
   case Iop_Add32F0x4: case Iop_Sub32F0x4: case Iop_Mul32F0x4: case Iop_Div32F0x4:
   case Iop_Sqrt64F0x2: case Iop_Sqrt32F0x4:
      return 1;
   case Iop_MAddF64: case Iop_MSubF64: case Iop_MAddF32: case Iop_MSubF32:
   case Iop_MAddF64r32: case Iop_MSubF64r32:
   case Iop_Add64Fx2: case Iop_Sub64Fx2: case Iop_Mul64Fx2: case Iop_Div64Fx2:
   case Iop_Sqrt64Fx2:
   case Iop_Add32Fx2: case Iop_Sub32Fx2: case Iop_Mul32Fx2:
      return 2;
   case Iop_Add32Fx4: case Iop_Sub32Fx4: case Iop_Mul32Fx4: case Iop_Div32Fx4:
   case Iop_Sqrt32Fx4:
   case Iop_Add64Fx4: case Iop_Sub64Fx4: case Iop_Mul64Fx4: case Iop_Div64Fx4:
   case Iop_Sqrt64Fx4:
      return 4;
   case Iop_Add32Fx8: case Iop_Sub32Fx8: case Iop_Mul32Fx8: case Iop_Div32Fx8:
   case Iop_Sqrt32Fx8:
      return 8;
   default:
      return 0;
   }
}

static UInt flops_of_expr(const IRExpr *e)
{
   switch (e->tag) {
   case Iex_Unop:  return flops_of(e->Iex.Unop.op);
   case Iex_Binop: return flops_of(e->Iex.Binop.op);
   case Iex_Triop: return flops_of(e->Iex.Triop.details->op);
   case Iex_Qop:   return flops_of(e->Iex.Qop.details->op);
   default:        return 0;
   }
}

/* A block's flops: a byte per instruction, then a bit per instruction
 * saying "has flops" (words of 64 after the bytes rounded up to 8), so
 * that a fetch group finds its few instructions with flops at once. Made
 * at the block's first flop: a block without any has none (NULL). */
static SizeT flops_bytes(const BB *bb)
{
   return ((bb->instr_count + 7) & ~7u) + 8 * ((bb->instr_count + 63) / 64);
}

static ULong *flop_bits(const BB *bb)
{
   return (ULong *)(bb->bw_flops + ((bb->instr_count + 7) & ~7u));
}

void cb_bw_bb_begin(BB *bb)
{
   if (bb->bw_flops) VG_(memset)(bb->bw_flops, 0, flops_bytes(bb));   /* retranslated */
}

/* Flat IR: an operation is the whole right side of a WrTmp. */
void cb_bw_stmt(BB *bb, Int instr, IRStmt *st)
{
   UInt f, sum;
   if (st->tag != Ist_WrTmp || instr < 0) return;
   f = flops_of_expr(st->Ist.WrTmp.data);
   if (!f) return;
   if (!bb->bw_flops) {
      bb->bw_flops = cb_mem_alloc(CB_MEM_BBS, "cb.bw.flops", flops_bytes(bb));
      VG_(memset)(bb->bw_flops, 0, flops_bytes(bb));
   }
   sum = bb->bw_flops[instr] + f;
   bb->bw_flops[instr] = sum > 255 ? 255 : sum;
   flop_bits(bb)[instr / 64] |= 1ULL << (instr % 64);
}

/* The "has flops" bits of the n <= 64 instructions from k on. */
static ULong flop_bits_of(const BB *bb, UInt k, UInt n)
{
   const ULong *w = flop_bits(bb);
   UInt i = k / 64, off = k % 64;
   ULong bits = w[i] >> off;
   if (off && i + 1 < (bb->instr_count + 63) / 64) bits |= w[i + 1] << (64 - off);
   return n >= 64 ? bits : bits & ((1ULL << n) - 1);
}

/*------------------------------------------------------------*/
/*--- A block's static bytes (bandwidth_hooks.h)           ---*/
/*------------------------------------------------------------*/

static UInt block_units(const sim_call *calls, UInt n)
{
   UInt j, units = 0;
   for (j = 0; j < n; j++) units += calls[j].n_fetch;
   return units;
}

SizeT cb_bw_block_bytes(const sim_call *calls, UInt n)
{
   UInt units = block_units(calls, n);
   SizeT bytes = sizeof(cb_bw_block) + (3 * (n + 1) + 3 * units) * sizeof(UInt);
   return VG_ROUNDUP(bytes, 8) + (units + 63) / 64 * sizeof(ULong);
}

/* Whether the calls' groups number the block's instructions from 0 on,
 * in order, each access (but a guarded one) in its call's group. */
static Bool block_numbered(const sim_call *calls, UInt n)
{
   UInt j, i, units = 0, group0 = 0;
   for (j = 0; j < n; j++) {
      const sim_call *c = &calls[j];
      if (c->n_fetch) {
         if (c->fetch_cost != units * cb_n_events) return False;
         group0 = units;
         units += c->n_fetch;
      }
      for (i = 0; i < c->n_acc && !c->guarded; i++) {
         UInt k = c->acc[i].cost / cb_n_events;
         if (c->acc[i].cost % cb_n_events || k < group0 || k >= units) return False;
      }
   }
   return True;
}

/* The per-unit bytes and flops, and each group's last access (S kept:
 * its accesses are in their groups, in order). */
static void block_bytes(cb_bw_block *S, const sim_call *calls, const BB *bb)
{
   UInt *rd = cb_bw_block_rd(S), *wr = cb_bw_block_wr(S), *fl = cb_bw_block_fl(S);
   UInt *last_k = cb_bw_block_last_k(S);
   ULong *bits = cb_bw_block_bits(S);
   UInt j, i, u, group = 0;
   /* (last_k per group here, the group's first unit if it has no
    * access; block_prefixes makes it per run) */
   for (j = 0; j < S->n_calls; j++) {
      const sim_call *c = &calls[j];
      if (c->n_fetch) { group = j; last_k[j] = c->fetch_cost / cb_n_events; }
      for (i = 0; i < c->n_acc && !c->guarded; i++) {
         UInt k = c->acc[i].cost / cb_n_events;
         if (!c->acc[i].write || c->acc[i].modify) rd[k] += c->acc[i].size;
         if (c->acc[i].write) wr[k] += c->acc[i].size;
         last_k[group] = k;
      }
   }
   for (u = 0; u < S->units && bb->bw_flops; u++) {
      fl[u] = bb->bw_flops[u];
      if (fl[u]) { bits[u / 64] |= 1ULL << (u % 64); S->flops = 1; }
   }
}

/* at[] and flop_at[]: a run reaching the first j calls, and whether an
 * access of a later call falls in its units (the smallest unit of the
 * accesses from call j on, walking back). */
static void block_prefixes(cb_bw_block *S, const sim_call *calls)
{
   UInt *at = cb_bw_block_at(S), *flop_at = cb_bw_block_flop_at(S), *fl = cb_bw_block_fl(S);
   UInt *last_k = cb_bw_block_last_k(S);
   UInt j, i, u = 0, flops = 0, first_acc = S->units;
   for (j = 0; j <= S->n_calls; j++) {
      at[j] = u;
      flop_at[j] = flops;
      if (j == S->n_calls) break;
      for (i = 0; i < calls[j].n_fetch; i++, u++) flops += fl[u];
   }
   for (j = S->n_calls; j-- > 0;) {
      const sim_call *c = &calls[j];
      for (i = 0; i < c->n_acc && !c->guarded; i++) {
         UInt k = c->acc[i].cost / cb_n_events;
         if (k < first_acc) first_acc = k;
      }
      if (first_acc < at[j]) at[j] |= CB_BW_INEXACT;
   }
   /* a run reaching the first j calls: its last group's (descending:
    * the groups' values, at smaller indices, are read before they go) */
   for (j = S->n_calls + 1; j-- > 0;) {
      UInt g = j;
      while (g > 0 && !calls[g - 1].n_fetch) g--;
      last_k[j] = g > 0 ? last_k[g - 1] : 0;
   }
}

static void block_make(cb_bw_block *S, const sim_call *calls, UInt n, const BB *bb)
{
   VG_(memset)(S, 0, cb_bw_block_bytes(calls, n));
   S->n_calls = n;
   S->units = block_units(calls, n);
   if (!block_numbered(calls, n)) return;
   S->kept = 1;
   block_bytes(S, calls, bb);
   block_prefixes(S, calls);
}

void cb_bw_block_made(const sim_call *calls, const BB *bb)
{
   static UInt serial;
   cb_bw_block *S;
   if (!cb_bw_batched) return;
   S = cb_sim_bw_block(calls, bb->n_sim_calls);
   block_make(S, calls, bb->n_sim_calls, bb);
   S->serial = ++serial;
}

/* (at a retranslation with the same calls: its flops may differ) */
Bool cb_bw_block_same(const sim_call *calls, const BB *bb)
{
   SizeT bytes;
   cb_bw_block *S;
   Bool same;
   if (!cb_bw_batched) return True;
   bytes = cb_bw_block_bytes(calls, bb->n_sim_calls);
   S = VG_(malloc)("cb.bw.block", bytes);
   block_make(S, calls, bb->n_sim_calls, bb);
   S->serial = cb_sim_bw_block(calls, bb->n_sim_calls)->serial;   /* (not a difference) */
   same = VG_(memcmp)(S, cb_sim_bw_block(calls, bb->n_sim_calls), bytes) == 0;
   VG_(free)(S);
   return same;
}

/* The Flop events of `runs` runs of call k of the n calls (the units of
 * its group), for the blocks whose runs cb_bw_block_run counts. */
void cb_bw_settle_call(ULong *cost, const sim_call *calls, UInt n, UInt k, ULong runs)
{
   const cb_bw_block *S = cb_sim_bw_block(calls, n);
   const UInt *at = cb_bw_block_at(S), *fl = cb_bw_block_fl(S);
   UInt u, end;
   if (!S->kept || !S->flops) return;
   end = at[k + 1] & ~CB_BW_INEXACT;
   for (u = at[k] & ~CB_BW_INEXACT; u < end; u++)
      if (fl[u]) cost[u * cb_n_events + cb_bw_flop_pos] += fl[u] * runs;
}

/*------------------------------------------------------------*/
/*--- Time units                                           ---*/
/*------------------------------------------------------------*/

/* Finalizes the all-cores units every live core has passed (with none:
 * every unit). */
static void finalize_all(void)
{
   ULong low = ~0ULL, high = 0;
   UInt i;
   if (all_lazy) return;
   for (i = 0; i < n_made; i++) {
      cb_bw_thread *th = &threads[made_ids[i]];
      if (th->clock > high) high = th->clock;
      if (th->live && th->clock < low) low = th->clock;
   }
   if (low == ~0ULL) low = high;
   bw_series_final(&all[0], low);
   bw_series_final(&all[1], low);
}

/* The core continues at the first unit not final if it is behind it. */
static void realign(cb_bw_thread *t)
{
   ULong final = all[0].final;
   if (t->clock < final) t->clock = final;
   t->b_off = t->clock - t->core.units;   /* (batched: all counted but the open) */
   /* (the sums, O(W) each, are read only by the dominance of a shared
    * path; OpenMP's passive wait switches threads often) */
   if (!all_matters) return;
   t->all_sum[0] = t->clock ? bw_series_window(&all[0], t->clock - 1) : 0;
   t->all_sum[1] = t->clock ? bw_series_window(&all[1], t->clock - 1) : 0;
}

/* The window sum of a shared path, one aligned unit on (u enters). */
static inline ULong step_all(bw_series *s, ULong sum, ULong u)
{
   sum += bw_series_at(s, u);
   if (u >= s->w) sum -= bw_series_at(s, u - s->w);
   return sum;
}

/* The dominance event of a closed unit (with limits). */
static inline void charge(cb_bw_thread *t, ULong *slot, Int dom)
{
   Int pos = dom >= 0 ? dom_pos[dom] : peak_pos;
   slot[pos]++;
   t->g_run[pos]++;
}

/* The open unit closes; its events go to slot. */
static __attribute__((noinline)) void close_unit_slow(cb_bw_thread *t, ULong *slot)
{
   Int dom;
   ULong u = t->clock;
   bw_core *c = &t->core;
   if (c->dirty) {
      if (c->open[BW_MEM_RD]) bw_series_add(&all[0], u, (UInt)c->open[BW_MEM_RD]);
      if (c->open[BW_MEM_WR]) bw_series_add(&all[1], u, (UInt)c->open[BW_MEM_WR]);
   }
   if (all_matters && !t->stepped) {
      t->all_sum[0] = step_all(&all[0], t->all_sum[0], u);
      t->all_sum[1] = step_all(&all[1], t->all_sum[1], u);
   }
   t->stepped = False;
   if (bw_close_quiet(c, all_matters, t->all_sum[0], t->all_sum[1])) dom = c->dom;
   else dom = bw_close(c, lim, t->all_sum[0], t->all_sum[1]);
   if (lim) charge(t, slot, dom);
   t->clock = u + 1;
   /* now and then: what all live cores passed is final (the ring stays
    * small while they keep up, e.g. with one thread) */
   if (UNLIKELY((t->clock & 0xffff) == 0)) finalize_all();
   if (UNLIKELY(t->clock - all[0].final >= MAX_AHEAD)) {
      /* the others are too far behind: they will continue from here */
      bw_series_final(&all[0], t->clock - MAX_AHEAD / 2);
      bw_series_final(&all[1], t->clock - MAX_AHEAD / 2);
   }
}

/* Most units change nothing: no bytes enter or leave a window (nor do
 * the all-cores sums change, when a shared path has a limit): their
 * dominance is the last one, and only the clocks move. */
static inline void close_unit(cb_bw_thread *t, ULong *slot)
{
   bw_core *c = &t->core;
   ULong next = t->clock + 1;
   if (UNLIKELY(c->dirty || c->units >= c->next_out || (next & 0xffff) == 0
                || next - all[0].final >= MAX_AHEAD)) {
      close_unit_slow(t, slot);
      return;
   }
   if (all_matters) {
      /* the sums step here (close_unit_slow must not step them again) */
      t->all_sum[0] = step_all(&all[0], t->all_sum[0], t->clock);
      t->all_sum[1] = step_all(&all[1], t->all_sum[1], t->clock);
      if (t->all_sum[0] != c->last_all[0] || t->all_sum[1] != c->last_all[1]) {
         t->stepped = True;
         close_unit_slow(t, slot);
         return;
      }
   }
   c->units++;
   t->clock = next;
   if (lim) charge(t, slot, c->dom);
}

/* How many units after the open one may close as quiet units at once
 * (at most n): none of them ends a 2^16-unit stretch (finalize_all) or
 * reaches MAX_AHEAD, and no bytes leave a window in them. Byte-less
 * units only (the caller's): then only the clocks move. */
static inline ULong quiet_room(const cb_bw_thread *t, ULong n)
{
   const bw_core *c = &t->core;
   ULong to_stretch = 0x10000 - (t->clock & 0xffff) - 1;
   ULong ahead = t->clock - all[0].final;
   if (all_matters || c->dirty || c->units >= c->next_out) return 0;
   if (c->next_out - c->units < n) n = c->next_out - c->units;
   if (to_stretch < n) n = to_stretch;
   if (ahead + 1 >= MAX_AHEAD) return 0;
   if (MAX_AHEAD - 1 - ahead < n) n = MAX_AHEAD - 1 - ahead;
   return n;
}

/* Closes the units of the n instructions from k on, which moved no bytes
 * and made no flop: what close_unit does for each, at once where it can. */
static void close_byteless(cb_bw_thread *t, UInt k, UInt n)
{
   while (n) {
      ULong m = quiet_room(t, n);
      UInt i;
      if (!m) {
         close_unit(t, t->g_slot0 + k * t->g_stride);
         k++, n--;
         continue;
      }
      t->core.units += m;
      t->clock += m;
      if (lim) {
         Int pos = t->core.dom >= 0 ? dom_pos[t->core.dom] : peak_pos;
         for (i = 0; i < m; i++) t->g_slot0[(k + i) * t->g_stride + pos]++;
         t->g_run[pos] += m;
      }
      k += m, n -= m;
   }
}

/* Unit flop: the bytes moved after a thread's last flop close one more
 * unit at the end; no instruction runs in it, so its dominance event is
 * not in the profile (only in the file). */
static void close_unit_at_end(cb_bw_thread *t)
{
   ULong scratch[cb_n_events];
   ULong *run = t->g_run;
   t->g_run = scratch;
   close_unit(t, scratch);
   t->g_run = run;
}

/* Instruction k of the running group ends: its Flop event, its units. */
static inline void retire(cb_bw_thread *t, UInt k)
{
   ULong *slot = t->g_slot0 + k * t->g_stride;
   UInt f = t->g_flops ? t->g_flops[k] : 0, i;
   if (f) {
      slot[cb_bw_flop_pos] += f;
      t->g_run[cb_bw_flop_pos] += f;
   }
   if (cb_clo.bandwidth_unit == BW_UNIT_INSTR) {
      if (f) bw_add(&t->core, BW_FLOP, f);
      close_unit(t, slot);
      return;
   }
   for (i = 0; i < f; i++) {
      bw_add(&t->core, BW_FLOP, 1);
      close_unit(t, slot);
   }
}

/* Of the instructions from k on before `end`, how many in a row make no
 * flop (unit instr only: with unit flop such an instruction closes no
 * unit, and retire does nothing for it). */
static inline UInt flopless_run(const cb_bw_thread *t, UInt k, UInt end)
{
   UInt n = 0;
   if (cb_clo.bandwidth_unit != BW_UNIT_INSTR) return 0;
   if (!t->g_flops) return end - k;
   while (k + n < end && !t->g_flops[k + n]) n++;
   return n;
}

/* The running group's instructions g_done .. end-1 end. The first one
 * carries the bytes of the accesses so far; after it, a run of
 * instructions without accesses (none was seen) and without flops closes
 * byte-less units, at once. */
static void retire_upto(cb_bw_thread *t, UInt end)
{
   while (t->g_done < end) {
      UInt n;
      retire(t, t->g_done++);
      n = flopless_run(t, t->g_done, end);
      if (n) {
         close_byteless(t, t->g_done, n);
         t->g_done += n;
      }
   }
}

static void retire_to(cb_bw_thread *t, UInt k)
{
   retire_upto(t, k);
   t->g_cost_done = t->g_cost0 + k * cb_n_events;
}

/* The running group's instructions before the one at cost offset cost
 * have ended (no division: cost offsets are instruction * events). */
void cb_bw__advance(cb_bw_thread *t, UInt cost)
{
   UInt end = t->g_done;
   ULong done = t->g_cost_done;
   while (done < cost) {
      done += cb_n_events;
      end++;
   }
   retire_upto(t, end);
   t->g_cost_done = done;
   t->g_cur = cost;
}

static void end_group(cb_bw_thread *t)
{
   if (!t->g_n) return;
   if (cb_bw_batched) {            /* the units were counted at the start */
      t->g_n = 0;
      return;
   }
   retire_to(t, t->g_n);
   t->g_n = 0;
}

void cb_bw__group(cb_bw_thread *t, UInt cost0, UInt n, ULong *slot0)
{
   const BB *bb;
   end_group(t);
   if (!cb_cur.collect) return;
   bb = cb_cur.bbcc->bb;
   t->g_n = n;
   t->g_done = 0;
   t->g_cost0 = t->g_cur = t->g_cost_done = cost0;
   t->g_slot0 = slot0;
   t->g_stride = cb_cur.nonskipped ? 0 : cb_n_events;
   t->g_run = cb_cur.cost;
   t->g_flops = bb->bw_flops ? bb->bw_flops + cost0 / cb_n_events : NULL;
}

/*------------------------------------------------------------*/
/*--- Batched units                                        ---*/
/*------------------------------------------------------------*/

/* The all-cores series get core units x .. end-1's bytes of the shared
 * paths, at their aligned units (core unit + off). */
static void batch_series_add(cb_bw_thread *t, ULong x, ULong end, ULong off)
{
   Int i;
   for (i = 0; i < 2; i++) {
      Int p = all_path[i];
      ULong e, u;
      for (e = bw_batch_entry(&t->core, p, x); (u = bw_batch_entry_unit(&t->core, p, e)) < end; e++)
         bw_series_add(&all[i], u + off, bw_batch_entry_bytes(&t->core, p, e));
   }
}

/* The thread's closed units since the last flush are counted. For the
 * shared paths this replays what closing them one by one did, in the
 * same order: each unit's bytes enter the series, and after the unit
 * that ends a 2^16 stretch of aligned units the finished units are
 * final, and after the one that gets MAX_AHEAD units ahead of `final`
 * the units up to MAX_AHEAD / 2 behind it are (close_unit_slow). No
 * other thread runs meanwhile, so their clocks are as they were.
 * Closed: unit by unit, the units of a running group from its last
 * access's instruction on stay open until the group ends (a thread
 * switched out there gets its clock realigned before they close). */
static void batch_flush(cb_bw_thread *t)
{
   bw_core *c = &t->core;
   ULong end = t->g_n ? t->g_unit0 + t->g_last_k : t->b_next;
   ULong x = c->units, off = t->b_off;
   while (x < end && !all_lazy) {
      ULong at = x + off;
      ULong stretch_end = (at & ~0xffffULL) + 0x10000;
      ULong ahead_end = all[0].final + MAX_AHEAD;
      ULong ev = stretch_end < ahead_end ? stretch_end : ahead_end;
      ULong stop;
      if (ev <= at) ev = at + 1;
      stop = ev - off < end ? ev - off : end;
      batch_series_add(t, x, stop, off);
      x = stop;
      if (stop + off != ev) break;
      t->clock = ev;                 /* (finalize_all reads it) */
      if ((ev & 0xffff) == 0) finalize_all();
      if (ev - all[0].final >= MAX_AHEAD) {
         bw_series_final(&all[0], ev - MAX_AHEAD / 2);
         bw_series_final(&all[1], ev - MAX_AHEAD / 2);
      }
   }
   t->clock = end + off;
   bw_batch_flush(c, end);
   t->b_limit = bw_batch_limit(c);
}

void cb_bw__batch_flush(cb_bw_thread *t)
{
   batch_flush(t);
}

/* The running group's flops (its block has some): their events (not
 * with events False: the run histogram counts them, cb_bw_settle_call),
 * and their units' flop path. */
void cb_bw__group_flops(cb_bw_thread *t, UInt cost0, UInt n, ULong *slot0, Bool events)
{
   const BB *bb = cb_cur.bbcc->bb;
   UInt k0 = (UInt)(((ULong)cost0 * cb_bw_inv_events) >> 32);   /* cost0 / events */
   UInt stride = cb_cur.nonskipped ? 0 : cb_n_events, base;
   ULong none = 0;
   const UChar *flops = bb->bw_flops + k0;
   /* (locals: the slots' stores cannot move them) */
   UInt *ring = t->core.ring[BW_FLOP], mask = t->core.ring_mask;
   uint64_t *nz = t->core.ring_nz[BW_FLOP];
   ULong *pos = events ? slot0 + cb_bw_flop_pos : &none, u0 = t->g_unit0, sum = 0;
   if (!events) stride = 0;
   for (base = 0; base < n; base += 64) {  /* (a group of an I1 line > 64 bytes) */
      ULong bits;
      for (bits = flop_bits_of(bb, k0 + base, n - base); bits; bits &= bits - 1) {
         UInt k = base + __builtin_ctzll(bits), f = flops[k], i = (UInt)(u0 + k) & mask;
         pos[k * stride] += f;
         sum += f;
         ring[i] += f;
         nz[i >> 6] |= 1ULL << (i & 63);
      }
   }
   cb_cur.cost[cb_bw_flop_pos] += sum;
}

/* Before anything reads the series or moves the clock: the running
 * thread's units are counted. */
static void batch_sync(cb_bw_thread *t)
{
   if (cb_bw_batched && t) batch_flush(t);
}

/*------------------------------------------------------------*/
/*--- Threads                                              ---*/
/*------------------------------------------------------------*/

/* tid joins made_ids, in its place (a thread is made once). */
static void note_made(ThreadId tid)
{
   UInt i = n_made++;
   for (; i > 0 && made_ids[i - 1] > tid; i--) made_ids[i] = made_ids[i - 1];
   made_ids[i] = tid;
}

/* The all-cores series as the one thread t made them: its LL<-mem and
 * LL->mem histograms, totals and window sums up to its last counted unit
 * (aligned: its clock, t->b_off is 0), and the entries still in its
 * windows (needed when they leave). */
static void series_from_sole(cb_bw_thread *t)
{
   Int i;
   for (i = 0; i < 2; i++) {
      Int p = all_path[i];
      bw_core *c = &t->core;
      bw_series *s = &all[i];
      ULong low = c->units > c->w ? c->units - c->w : 0, e;
      tl_assert(t->b_off == 0 && t->clock == c->units);
      bw_hist_add_hist(&s->hist, &c->hist[p]);
      bw_series_resume(s, c->units, c->win[p].sum, c->total[p]);
      for (e = c->ev_head[p]; e < c->ev_in[p]; e++)
         bw_series_add(s, bw__ev_unit(c, p, e, low), bw_batch_entry_bytes(c, p, e));
   }
}

/* A second thread is made: the series are kept from now on (the first
 * thread's units counted first, without them). */
static void series_keep(void)
{
   cb_bw_thread *sole = &threads[made_ids[0]];
   batch_flush(sole);
   all_lazy = False;
   series_from_sole(sole);
}

static cb_bw_thread *thread_of(ThreadId tid)
{
   cb_bw_thread *t = &threads[tid];
   if (!t->made) {
      if (all_lazy && n_made == 1) series_keep();
      if (cb_bw_batched) {
         bw_batch_init(&t->core, cb_clo.bandwidth_window, BATCH_STRETCH);
         t->core.written = CB_BW_WRITTEN;
         bw_batch_ordered(&t->core, CB_BW_ORDERED);
         if (line_shift < 32) bw_batch_ordered_shift(&t->core, line_shift);
         bw_batch_log_init(&t->core);
      }
      else bw_core_init(&t->core, cb_clo.bandwidth_window);
      t->b_limit = cb_bw_batched ? bw_batch_limit(&t->core) : 0;
      /* (a row per D1 set: the lines a set holds; a fully associative
       * D1 gets rows of 16) */
      {
         UInt lines = cb_geom.d1.size / cb_geom.d1.line_size;
         UInt ways = cb_geom.d1.assoc < 16 ? cb_geom.d1.assoc : 16;
         bw_dirty_init(&t->dirty, lines / ways, ways);
      }
      note_made(tid);
      t->made = True;
      t->live = True;
      t->clock = all[0].final;
   }
   return t;
}

void cb_bw_switch_thread(ThreadId tid)
{
   if (!cb_clo.bandwidth) return;
   batch_sync(cb_bw_cur);
   cb_bw_cur = thread_of(tid);
   finalize_all();
   realign(cb_bw_cur);
}

/* A new thread starts at its creator's aligned unit. */
void cb_bw_thread_created(ThreadId parent, ThreadId child)
{
   cb_bw_thread *c;
   if (!cb_clo.bandwidth || child >= VG_N_THREADS) return;
   c = thread_of(child);
   c->live = True;
   if (parent > 0 && parent < VG_N_THREADS && threads[parent].made
       && threads[parent].clock > c->clock)
      c->clock = threads[parent].clock;
}

void cb_bw_thread_exit(ThreadId tid)
{
   cb_bw_thread *t;
   if (!cb_clo.bandwidth || tid >= VG_N_THREADS || !threads[tid].made) return;
   t = &threads[tid];
   end_group(t);
   batch_sync(t);
   t->live = False;
   finalize_all();
}

void cb_bw_syscall(ThreadId tid, Bool entering)
{
   cb_bw_thread *t;
   if (!cb_clo.bandwidth || tid >= VG_N_THREADS || !threads[tid].made) return;
   t = &threads[tid];
   if (entering) end_group(t);   /* its units close before it may block */
   batch_sync(t);                /* (and before realign moves its clock) */
   if (!entering) realign(t);
}

/* A store of core t invalidated the other cores' copies of lines
 * first..last: their data moves to t (L1<-L1 when t misses), nothing is
 * written back. */
void cb_bw__invalidated(cb_bw_thread *t, ULong first, ULong last)
{
   UInt i;
   ULong l;
   for (i = 0; i < n_made; i++) {
      cb_bw_thread *o = &threads[made_ids[i]];
      if (o == t) continue;
      for (l = first; l <= last; l++) bw_dirty_take(&o->dirty, l);
   }
}

/* The caches were emptied (instrumentation switched): no line is dirty. */
void cb_bw_caches_cleared(void)
{
   UInt k;
   if (!cb_clo.bandwidth) return;
   for (k = 1; k < VG_N_THREADS; k++)
      if (threads[k].made) bw_dirty_clear(&threads[k].dirty);
}

/* A signal handler starts or ends: the running group's units close while
 * their running counter (the execution state's) still counts. */
void cb_bw_context_change(ThreadId tid)
{
   if (!cb_clo.bandwidth || tid >= VG_N_THREADS || !threads[tid].made) return;
   end_group(&threads[tid]);
}

/* Dumps: the running groups' units close, so the part has their events. */
void cb_bw_sync(void)
{
   UInt i;
   for (i = 0; i < n_made; i++) end_group(&threads[made_ids[i]]);
}

/*------------------------------------------------------------*/
/*--- The end: <profile>.bandwidth                         ---*/
/*------------------------------------------------------------*/

static void write_pair(void *ctx, uint64_t s, uint64_t n)
{
   cb_out_printf((cb_outfile *)ctx, " %llu %llu", (ULong)s, (ULong)n);
}

static void write_hist(cb_outfile *f, const HChar *key, bw_hist *h)
{
   cb_out_str(f, key);
   bw_hist_each(h, write_pair, f);
   cb_out_str(f, "\n");
}

/* A limit in decimal, six digits after the point (Valgrind's printf has
 * no floating point). */
static void write_decimal(cb_outfile *f, double x)
{
   ULong whole = (ULong)x, frac = (ULong)((x - (double)whole) * 1e6 + 0.5);
   if (frac >= 1000000) { whole++; frac -= 1000000; }
   cb_out_printf(f, "%llu.%06llu", whole, frac);
}

static void write_header(cb_outfile *f)
{
   Int p;
   cb_out_str(f, "# callgrind-bd bandwidth requirements\nversion: 1\n");
   cb_write_cmd_line(f);
   cb_out_printf(f, "pid: %d\n", VG_(getpid)());
   cb_out_printf(f, "unit: %s\nwindow: %d\n",
                 cb_clo.bandwidth_unit == BW_UNIT_FLOP ? "flop" : "instr",
                 cb_clo.bandwidth_window);
   if (!lim) return;
   cb_out_printf(f, "limits: %s\npeak: ", cb_clo.bandwidth_limits);
   write_decimal(f, limits.peak);
   cb_out_str(f, "\n");
   for (p = 0; p < BW_DOM_PATHS; p++) {
      if (!limits.has[p]) continue;
      cb_out_printf(f, "limit: %s ", bw_path_name[p]);
      write_decimal(f, limits.per_unit[p]);
      cb_out_str(f, "\n");
   }
}

static void write_thread(cb_outfile *f, UInt tid, cb_bw_thread *t)
{
   Int p;
   cb_out_printf(f, "\nthread: %u\nunits: %llu\n", tid, (ULong)t->core.units);
   if (lim) cb_out_printf(f, "peak-units: %llu\n", (ULong)t->core.peak_units);
   for (p = 0; p < BW_PATHS; p++) {
      cb_out_printf(f, "path: %s\ntotal: %llu\n", bw_path_name[p], (ULong)t->core.total[p]);
      write_hist(f, "hist:", &t->core.hist[p]);
      if (lim) write_hist(f, "dom:", &t->core.dom_hist[p]);
   }
   if (!lim) return;
   for (p = BW_ALL_RD; p <= BW_ALL_WR; p++) {
      cb_out_printf(f, "path: %s\n", bw_path_name[p]);
      write_hist(f, "dom:", &t->core.dom_hist[p]);
   }
}

static void write_all(cb_outfile *f, ULong units)
{
   Int i;
   cb_out_printf(f, "\nthread: all\nunits: %llu\n", units);
   for (i = 0; i < 2; i++) {
      cb_out_printf(f, "path: %s\ntotal: %llu\n", bw_path_name[BW_ALL_RD + i], (ULong)all[i].total);
      write_hist(f, "hist:", &all[i].hist);
   }
}

static void write_file(const HChar *base, ULong all_units)
{
   HChar name[VG_(strlen)(base) + 16];
   cb_outfile *f = CB_MALLOC("cb.bw.out", sizeof *f);
   SysRes res;
   UInt t;
   VG_(sprintf)(name, "%s.bandwidth", base);
   res = VG_(open)(name, VKI_O_WRONLY | VKI_O_CREAT | VKI_O_TRUNC, VKI_S_IRUSR | VKI_S_IWUSR);
   if (sr_isError(res)) {
      VG_(umsg)("callgrind-bd: cannot create bandwidth file '%s': %s\n", name,
                cb_open_error_text(sr_Err(res)));
      CB_FREE(f);
      return;
   }
   cb_out_start(f, sr_Res(res), name, "bandwidth file");
   write_header(f);
   for (t = 1; t < VG_N_THREADS; t++)
      if (threads[t].made) write_thread(f, t, &threads[t]);
   write_all(f, all_units);
   cb_out_finish(f);
   CB_FREE(f);
}

/* Every thread's units close, the windows drain, the file is written. */
void cb_bw_finish(const HChar *base)
{
   ULong units = 0;
   UInt t;
   if (!cb_clo.bandwidth) return;
   for (t = 1; t < VG_N_THREADS; t++) {
      cb_bw_thread *th = &threads[t];
      if (!th->made) continue;
      end_group(th);
      /* bytes after the last flop (unit flop): one more unit */
      if (cb_clo.bandwidth_unit == BW_UNIT_FLOP && !th->core.finished) {
         Int p;
         ULong any = 0;
         for (p = 0; p < BW_PATHS; p++) any |= th->core.open[p];
         if (any) close_unit_at_end(th);
      }
      if (cb_bw_batched) {
         batch_flush(th);
         bw_batch_finish(&th->core, th->core.units);
      } else bw_finish(&th->core);
      if (th->clock > units) units = th->clock;
   }
   if (all_lazy && n_made == 1) {
      /* (its drain is the series': W units after its last) */
      cb_bw_thread *th = &threads[made_ids[0]];
      Int i;
      for (i = 0; i < 2; i++) {
         bw_hist_add_hist(&all[i].hist, &th->core.hist[all_path[i]]);
         all[i].total = th->core.total[all_path[i]];
      }
   } else {
      bw_series_finish(&all[0], units);
      bw_series_finish(&all[1], units);
   }
   write_file(base, units);
}
