/* callgrind-bd: the L1 MRU hit in generated code (issue 21).
 *
 * Almost every fetch group and data access hits the most-recently-used
 * way of its L1 set, and such a hit changes nothing in the model but
 * (with --cacheuse) the line's access count and use mask. For those the
 * instrumentation (sim.c) emits VEX IR that does the whole access in
 * place -- tag compare, the use update, the event counts Ir/Dr/Dw of the
 * instruction's cost slot and of the running counter -- and calls the
 * helper only when the test fails (IRDirty's guard). Rules:
 *
 *  - A flush (a fetch group and the data accesses emitted with it, as
 *    sim.c forms them) is done either wholly in IR or wholly in the
 *    helpers, never half: all its tests are evaluated first, on the state
 *    before the flush, then come the helper calls, guarded by "not all
 *    hit", then the IR additions. When every access is an MRU hit no tag
 *    moves, so testing them all on the initial state is the same as
 *    testing each after the previous one; when one is not, the helpers
 *    do the whole flush in program order, as without this file. The IR
 *    additions then go to a scratch area (a select of the base pointer,
 *    so that no branch is needed and each addition is one host
 *    instruction).
 *  - The IR path is taken only where the helper would do nothing else:
 *    while collecting, outside skipped code (cb_cur.nonskipped), for an
 *    access inside one line that hits the MRU way; with --private-caches a
 *    store also needs its line in the core's owned filter (cc_nothing_to_do
 *    in cachesim/coherence.h), else coherence has work to do.
 *  - The running core's caches are read through one global (cur_core),
 *    updated at every thread switch: one load, no lookup.
 *  - Which configurations use this path is decided in one place,
 *    cb_inl_decide(). Features that must see every access keep the helper.
 *
 * When the IR path is off, sim.c batches up to three accesses per call as
 * before, so the profiles are byte-for-byte those of the helpers.
 *
 * Copyright (C) 2026 the callgrind-bd authors.  GPL-2.0-or-later.
 */
#include "global.h"
#include "cachesim.h"
#include "cores.h"

/* The running core's L1 arrays (cb_inl_set_core). */
static struct {
   uint64_t *i1_tags, *d1_tags;
   cs_line *i1_line, *d1_line;
   uint64_t *owned;          /* --private-caches: the core's owned filter */
} cur_core;

static Bool      inline_on;
static Bool      use;             /* --cacheuse: tags carry way bits */
static cs_cache  i1g, d1g;        /* geometry and the use-mask tables */
static ULong    *scratch;         /* counted into when the IR path is not taken */
static IRSB     *sb;              /* the block being instrumented */

/* The one place that decides whether the IR path is used. Each feature
 * below needs every access (or every hit) in the helper:
 *  - write-back: a D1 write hit still writes through to LL;
 *  - --miss-class, --reuse-dist: every access feeds their models;
 *  - --objects, --sharing: every access is charged to an object / seen by
 *    the false-sharing detector;
 *  - --bandwidth: every access moves bytes on core<-L1 / core->L1 in its
 *    time unit (and turns write-back on).
 * Options added later that need every access belong here too.
 * The path is off unless --inline-hits=yes (a debugging option): it is
 * exact but measured slower than the batched helpers (perf/RESULTS.md,
 * "Inline L1 hits"), so it stays an experiment. Either way the profile is
 * the same. */
Bool cb_inl_decide(void)
{
   return cb_clo.inline_hits && cb_clo.simulate_cache && !cb_clo.simulate_wb && !cb_clo.miss_class
          && !cb_clo.reuse_dist && !cb_clo.objects && !cb_clo.sharing
          && !cb_clo.bandwidth;
}

/* Largest block (instructions) whose cost slots fit the scratch area. */
#define MAX_INSTRS 512

void cb_inl_setup(struct cs_sim *first)
{
   inline_on = cb_inl_decide();
   if (!inline_on) return;
   use = first->use;
   i1g = first->i1;
   d1g = first->d1;
   scratch = VG_(calloc)("cb.sim.inl", MAX_INSTRS * (SizeT)cb_n_events, sizeof(ULong));
   cb_inl_set_core(first);
}

void cb_inl_set_core(struct cs_sim *s)
{
   cur_core.i1_tags = s->i1.tags;
   cur_core.d1_tags = s->d1.tags;
   cur_core.i1_line = s->i1.line;
   cur_core.d1_line = s->d1.line;
   cur_core.owned = cb_cc ? cb_cc_core->owned : NULL;
}

Bool cb_inl_block(const BB *bb)
{
   return inline_on && bb->instr_count <= MAX_INSTRS;
}

/*------------------------------------------------------------*/
/*--- IR building                                          ---*/
/*------------------------------------------------------------*/

static IRExpr *c64(ULong v) { return IRExpr_Const(IRConst_U64(v)); }
static IRExpr *c32(UInt v) { return IRExpr_Const(IRConst_U32(v)); }
static IRExpr *caddr(const void *p) { return c64((ULong)(HWord)p); }

static IRExpr *tmp(IRType ty, IRExpr *e)
{
   IRTemp t = newIRTemp(sb->tyenv, ty);
   addStmtToIRSB(sb, IRStmt_WrTmp(t, e));
   return IRExpr_RdTmp(t);
}

static IRExpr *bin(IRType ty, IROp op, IRExpr *a, IRExpr *b) { return tmp(ty, IRExpr_Binop(op, a, b)); }
static IRExpr *load(IRType ty, IRExpr *addr) { return tmp(ty, IRExpr_Load(Iend_LE, ty, addr)); }
static IRExpr *ite(IRType ty, IRExpr *c, IRExpr *t, IRExpr *f) { return tmp(ty, IRExpr_ITE(c, t, f)); }
static IRExpr *add64(IRExpr *a, ULong c)
{
   if (c == 0) return a;
   if (a->tag == Iex_Const) return c64(a->Iex.Const.con->Ico.U64 + c);
   return bin(Ity_I64, Iop_Add64, a, c64(c));
}

/* The address base + off in a temporary of its own for each use: used
 * once, it is folded into the load's or the store's addressing mode
 * (VEX builds trees of single-use temporaries) instead of being
 * computed into a register first. */
static IRExpr *at(IRExpr *base, ULong off)
{
   return add64(base, off);
}

/* *(base + off) op= v (64 or 32 bits). */
static void update(IRType ty, IROp op, IRExpr *base, ULong off, IRExpr *v)
{
   IRExpr *old = tmp(ty, IRExpr_Load(Iend_LE, ty, at(base, off)));
   addStmtToIRSB(sb, IRStmt_Store(Iend_LE, at(base, off), bin(ty, op, old, v)));
}

static void add_to(IRType ty, IRExpr *addr, IRExpr *v)
{
   update(ty, ty == Ity_I64 ? Iop_Add64 : Iop_Add32, addr, 0, v);
}

/* The flush being emitted: its tests and what its additions need. */
#define MAX_UNITS 80
static struct {
   IRExpr *diff;                  /* OR of the tests' mismatch bits: 0 if all pass */
   IRExpr *all_hit;               /* after cb_inl_guard: diff == 0 */
   Bool    fetch;                 /* a fetch group is in it */
   UInt    first_cost, n_fetch;
   IRExpr *i1_rec;                /* --cacheuse: use record of its line */
   UInt    i1_bits;
   Int     n_acc;
   struct { UInt cost; Bool write; IRExpr *rec, *bits; } acc[MAX_UNITS];
} fl;

/* The flush's common value: whether the IR path may be taken at all
 * (collecting, not in skipped code: else the helper counts elsewhere). */
void cb_inl_begin(IRSB *sbOut)
{
   IRExpr *collect, *nonskipped;
   sb = sbOut;
   collect = tmp(Ity_I64, IRExpr_Unop(Iop_8Uto64, load(Ity_I8, caddr(&cb_cur.collect))));
   nonskipped = load(Ity_I64, caddr(&cb_cur.nonskipped));
   /* a test is a value that is 0 when it passes: OR-ing them costs one
    * host instruction each, and one compare decides the flush */
   fl.diff = bin(Ity_I64, Iop_Or64, bin(Ity_I64, Iop_Xor64, collect, c64(True)), nonskipped);
   fl.fetch = False;
   fl.n_acc = 0;
}

static void or_diff(IRExpr *x)
{
   fl.diff = bin(Ity_I64, Iop_Or64, fl.diff, x);
}

/* 0 if the MRU way's tag e holds the line at address a (line = its line
 * number): tags are line numbers, or (--cacheuse) the address's tag bits
 * with the way's slot in the low bits. */
static IRExpr *tag_differs(const cs_cache *g, IRExpr *e, IRExpr *a, IRExpr *line)
{
   if (!use) return bin(Ity_I64, Iop_Xor64, e, line);
   return bin(Ity_I64, Iop_And64, bin(Ity_I64, Iop_Xor64, e, a), c64(g->tag_mask));
}

/* The use record of the MRU way whose tag is e (set's first slot slot0). */
static IRExpr *use_record(IRExpr *lines, IRExpr *slot0, IRExpr *e, const cs_cache *g)
{
   IRExpr *idx = bin(Ity_I64, Iop_Add64, slot0, bin(Ity_I64, Iop_And64, e, c64(~g->tag_mask)));
   return bin(Ity_I64, Iop_Add64, lines, bin(Ity_I64, Iop_Shl64, idx, IRExpr_Const(IRConst_U8(5))));
}

/* A fetch group: n instructions from addr, len bytes in one I1 line (its
 * set and tag are constants), the first at cost offset first_cost.
 * False when it cannot be done in IR (it straddles: a lone instruction). */
Bool cb_inl_fetch(Addr addr, UInt len, UInt first_cost, UInt n)
{
   ULong line = addr >> i1g.line_bits, slot0;
   IRExpr *e;
   if (((addr + len - 1) >> i1g.line_bits) != line) return False;
   slot0 = (line & i1g.sets_mask) * (ULong)i1g.assoc;
   e = load(Ity_I64, add64(load(Ity_I64, caddr(&cur_core.i1_tags)), slot0 * sizeof(ULong)));
   or_diff(tag_differs(&i1g, e, c64(addr), c64(line)));
   fl.fetch = True;
   fl.first_cost = first_cost;
   fl.n_fetch = n;
   if (use) {
      fl.i1_rec = use_record(load(Ity_I64, caddr(&cur_core.i1_line)), c64(slot0), e, &i1g);
      fl.i1_bits = i1g.first_bits[addr & i1g.line_mask] & i1g.last_bits[(addr + len - 1) & i1g.line_mask];
   }
   return True;
}

/* A data access of size bytes (capped at the smallest line size) at a,
 * by the instruction at cost offset cost. False when the flush has no
 * room left (the caller then uses the helpers alone). */
Bool cb_inl_data(IRExpr *a, Int size, Bool write, UInt cost)
{
   IRExpr *line, *off, *slot0, *e;
   if (fl.n_acc == MAX_UNITS) return False;
   line = bin(Ity_I64, Iop_Shr64, a, IRExpr_Const(IRConst_U8(d1g.line_bits)));
   off = bin(Ity_I64, Iop_And64, a, c64(d1g.line_mask));
   slot0 = bin(Ity_I64, Iop_Mul64, bin(Ity_I64, Iop_And64, line, c64(d1g.sets_mask)), c64(d1g.assoc));
   e = load(Ity_I64, bin(Ity_I64, Iop_Add64, load(Ity_I64, caddr(&cur_core.d1_tags)),
                         bin(Ity_I64, Iop_Shl64, slot0, IRExpr_Const(IRConst_U8(3)))));
   /* inside one line: its first and last byte differ in no line bit */
   or_diff(bin(Ity_I64, Iop_And64, bin(Ity_I64, Iop_Xor64, a, add64(a, size - 1)),
               c64(~(ULong)d1g.line_mask)));
   or_diff(tag_differs(&d1g, e, a, line));
   if (write && cb_cc) {              /* coherence: a store to an owned line */
      IRExpr *entry = bin(Ity_I64, Iop_Add64, load(Ity_I64, caddr(&cur_core.owned)),
                          bin(Ity_I64, Iop_Shl64, bin(Ity_I64, Iop_And64, line, c64(CC_FILTER - 1)),
                              IRExpr_Const(IRConst_U8(3))));
      or_diff(bin(Ity_I64, Iop_Xor64, load(Ity_I64, entry), line));
   }
   fl.acc[fl.n_acc].cost = cost;
   fl.acc[fl.n_acc].write = write;
   if (use) {
      /* the last byte's offset wraps when the access straddles: then the
       * test fails and the bits are not used, but the load stays inside */
      IRExpr *last = bin(Ity_I64, Iop_And64, add64(off, size - 1), c64(d1g.line_mask));
      IRExpr *fb = load(Ity_I32, bin(Ity_I64, Iop_Add64, caddr(d1g.first_bits),
                                     bin(Ity_I64, Iop_Shl64, off, IRExpr_Const(IRConst_U8(2)))));
      IRExpr *lb = load(Ity_I32, bin(Ity_I64, Iop_Add64, caddr(d1g.last_bits),
                                     bin(Ity_I64, Iop_Shl64, last, IRExpr_Const(IRConst_U8(2)))));
      fl.acc[fl.n_acc].rec = use_record(load(Ity_I64, caddr(&cur_core.d1_line)), slot0, e, &d1g);
      fl.acc[fl.n_acc].bits = bin(Ity_I32, Iop_And32, fb, lb);
   }
   fl.n_acc++;
   return True;
}

/* The guard of the flush's helper calls: not every test passed. */
IRExpr *cb_inl_guard(void)
{
   fl.all_hit = bin(Ity_I1, Iop_CmpEQ64, fl.diff, c64(0));
   return bin(Ity_I1, Iop_CmpNE64, fl.diff, c64(0));
}

/* p (64-bit pointer expression) if every test passed, else the scratch. */
static IRExpr *or_scratch(IRExpr *p)
{
   return ite(Ity_I64, fl.all_hit, p, caddr(scratch));
}

static void add_const(IRType ty, IRExpr *base, ULong off, ULong v)
{
   update(ty, ty == Ity_I64 ? Iop_Add64 : Iop_Add32, base, off,
          ty == Ity_I64 ? c64(v) : c32((UInt)v));
}

/* After the helper calls: the additions of an all-hit flush -- Ir of the
 * group's instructions (their cost slots follow the first's, cb_n_events
 * apart), Dr/Dw of the accessing instructions, the running counter, and
 * with --cacheuse every line's count and mask. */
void cb_inl_end(void)
{
   IRExpr *base = or_scratch(load(Ity_I64, caddr(&cb_cost_base)));
   IRExpr *run = or_scratch(load(Ity_I64, caddr(&cb_cur.cost)));
   ULong ir = (ULong)cb_event_pos(EV_Ir), dr = (ULong)cb_event_pos(EV_Dr);
   ULong dw = (ULong)cb_event_pos(EV_Dw), n_dr = 0, n_dw = 0;
   Int i;
   UInt k;
   if (fl.fetch) {
      for (k = 0; k < fl.n_fetch; k++)
         add_const(Ity_I64, base, (fl.first_cost + k * cb_n_events + ir) * sizeof(ULong), 1);
      add_const(Ity_I64, run, ir * sizeof(ULong), fl.n_fetch);
      if (use) {
         IRExpr *rec = or_scratch(fl.i1_rec);
         add_const(Ity_I32, rec, __builtin_offsetof(cs_line, use.count), fl.n_fetch);
         update(Ity_I32, Iop_Or32, rec, __builtin_offsetof(cs_line, use.mask), c32(fl.i1_bits));
      }
   }
   for (i = 0; i < fl.n_acc; i++) {
      ULong pos = fl.acc[i].write ? dw : dr;
      add_const(Ity_I64, base, (fl.acc[i].cost + pos) * sizeof(ULong), 1);
      if (fl.acc[i].write) n_dw++; else n_dr++;
      if (use) {
         IRExpr *rec = or_scratch(fl.acc[i].rec);
         add_const(Ity_I32, rec, __builtin_offsetof(cs_line, use.count), 1);
         update(Ity_I32, Iop_Or32, rec, __builtin_offsetof(cs_line, use.mask), fl.acc[i].bits);
      }
   }
   if (n_dr) add_const(Ity_I64, run, dr * sizeof(ULong), n_dr);
   if (n_dw) add_const(Ity_I64, run, dw * sizeof(ULong), n_dw);
}

/* --- CB_SIM_STATS builds: *counter += n in the generated code --- */
void cb_inl_count(IRSB *sbOut, ULong *counter, UInt n)
{
   sb = sbOut;
   add_to(Ity_I64, caddr(counter), c64(n));
}
