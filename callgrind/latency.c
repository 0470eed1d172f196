/* callgrind-bd: dependent misses (--latency=yes, events D1dep DLdep).
 *
 * A data read that misses D1 (LL) is DEPENDENT when its address was
 * computed from a value that an earlier read of the same thread loaded
 * with a D1 (LL) miss: it could not start before that miss was served,
 * so the two latencies add up. The rule, precise enough to derive counts
 * by hand (docs/manual.md, "Latency-bound code"):
 *
 *   - every value carries a TAG per level (D1, LL): the length of the
 *     longest chain of read misses at that level it was computed from
 *     (0: none), and when that chain's last miss happened; a tag older
 *     than --latency-window guest instructions counts as 0 (the miss was
 *     served before the reorder window reached the later access);
 *   - an operation's result gets the largest tag of its operands (every
 *     operand: a condition of a select and a helper's arguments too);
 *     constants have tag 0;
 *   - the integer registers but the stack pointer (15) keep the tag of
 *     the value last written to them (a write of 1 or 2 bytes keeps the
 *     larger of old and new); the rest of the guest state (the stack
 *     pointer, flags, SIMD, x87, the program counter) has tag 0;
 *   - a read at address A whose address has tag a: at each level where it
 *     misses it is dependent if a > 0, and its value gets a + 1 there;
 *     where it hits, its value gets a. Through memory: a store remembers
 *     the tag of the stored value at its address, and a later read of
 *     that same address (the same first byte) gets at least that tag, as
 *     long as the thread's table of such addresses (4096 entries, one per
 *     8-byte slot, direct-mapped) still has it. A read-modify-write of
 *     one instruction (counted as a write, Dw) is never dependent;
 *   - a conditional load (LoadG), a helper's result, and the value
 *     a read that is a block's 129th access or later loads have tag 0.
 *   Time is the thread's count of guest instructions, advanced by a
 *   block's instructions when a run of it ends.
 *
 * How: at instrumentation time every IR temporary and register gets the
 * SET of its sources (the block's earlier accesses by index, the
 * registers as they were at the block's entry); the block's program
 * (lat_block) keeps, per access, the sources of its address (and of the
 * stored value), and per exit the sources of each register written
 * before it. At run time, after each access is simulated (sim_int.h's
 * do_acc, from the deferred replay or the helpers alike), the tags are
 * evaluated from the access's hit or miss; when the block has ended
 * (the next block's setup, a thread switch), the registers written
 * before the exit it took (cb_cur.jmps_passed) get their new tags.
 * Most accesses are hits that change no tag: the replay skips them
 * (cb_lat_hit_matters, sim_int.h), and a block's end skips registers
 * whose tag cannot change; tags that left the window stop being looked
 * at (expire).
 *
 * Per function the longest chain (the largest tag of a read miss in its
 * code) is written as `desc: Longest chain:` lines; the number of
 * chains is the number of independent read misses, D1mr - D1dep.
 *
 * Copyright (C) 2026 the callgrind-bd authors.  GPL-2.0-or-later.
 */
#include "sim_int.h"
#include "libvex_guest_offsets.h"

#define LAT_REGS      16          /* RAX .. R15 */
#define LAT_SRC_ACCS  128         /* accesses of a block that can be sources */
#define LAT_DESC_MAX  20          /* functions in the desc: lines */

/* (lat_tag, lat_mem: global.h; a tag's time is lat_thread.now) */
/* The sources of a value: registers at the block's entry, accesses. */
typedef struct { UShort regs; ULong acc[2]; } lat_set;

enum { LAT_LOAD, LAT_STORE, LAT_MODIFY, LAT_OTHER };

typedef struct {
   lat_set addr;         /* what the address is computed from */
   lat_set data;         /* a store: what the stored value is computed from */
   UChar   kind;         /* LAT_* */
} lat_access;

typedef struct {
   UShort   changed;     /* registers written before this exit */
   UShort   first;       /* their sources: regs[first ..], one per bit */
} lat_exit;

/* One allocation (the replay reads it at every block's end: one host
 * line for a small block, not a pointer chain): the head, then the
 * arrays below. */
struct lat_block {
   struct lat_block_head h;         /* calls, first_acc, quiet (sim_int.h) */
   UInt        n_acc;
   lat_access *acc;
   UInt        n_exits;             /* side exits + the end */
   Bool        inverted;            /* main.c: the last exit swapped */
   lat_exit   *exit;
   lat_set    *regs;
   SizeT       size;                /* of the allocation */
};

/*------------------------------------------------------------*/
/*--- Instrumentation: the sources of every value          ---*/
/*------------------------------------------------------------*/

static struct {
   lat_set   *temp;          /* per IR temp of the input block */
   Int        n_temps;
   lat_set    reg[LAT_REGS]; /* each register's sources now */
   UShort     changed;       /* registers written so far */
   lat_access *acc;
   UInt       n_acc, acc_size;
   lat_exit  *exit;
   UInt       n_exits, exit_size;
   lat_set   *regs;          /* the exits' register sources */
   UInt       n_regs, regs_size;
} ir;

static void set_union(lat_set *d, const lat_set *s)
{
   d->regs |= s->regs;
   d->acc[0] |= s->acc[0];
   d->acc[1] |= s->acc[1];
}

static lat_set set_of_access(Int idx)
{
   lat_set s = { 0, { 0, 0 } };
   if (idx >= 0 && idx < LAT_SRC_ACCS) s.acc[idx >> 6] = 1ULL << (idx & 63);
   return s;
}

/* The register of guest state offset off, or -1. The stack pointer is
 * not followed: it moves by constants, but once one `leave` or `mov
 * ...,%rsp` gave it a tag (a frame pointer restored by a read that
 * missed), every later stack access would inherit it. */
static Int reg_of(Int off)
{
   if (off < OFFSET_amd64_RAX || off >= OFFSET_amd64_R15 + 8) return -1;
   if (off >= OFFSET_amd64_RSP && off < OFFSET_amd64_RSP + 8) return -1;
   return (off - OFFSET_amd64_RAX) / 8;
}

static lat_set set_of_expr(const IRExpr *e)
{
   lat_set s = { 0, { 0, 0 } }, t;
   Int r, k;
   switch (e->tag) {
   case Iex_RdTmp:
      if (e->Iex.RdTmp.tmp < (IRTemp)ir.n_temps) s = ir.temp[e->Iex.RdTmp.tmp];
      break;
   case Iex_Get:
      r = reg_of(e->Iex.Get.offset);
      if (r >= 0) s = ir.reg[r];
      break;
   case Iex_Qop: {
      const IRQop *q = e->Iex.Qop.details;
      const IRExpr *args[4] = { q->arg1, q->arg2, q->arg3, q->arg4 };
      for (k = 0; k < 4; k++) { t = set_of_expr(args[k]); set_union(&s, &t); }
      break;
   }
   case Iex_Triop: {
      const IRTriop *q = e->Iex.Triop.details;
      const IRExpr *args[3] = { q->arg1, q->arg2, q->arg3 };
      for (k = 0; k < 3; k++) { t = set_of_expr(args[k]); set_union(&s, &t); }
      break;
   }
   case Iex_Binop:
      s = set_of_expr(e->Iex.Binop.arg1);
      t = set_of_expr(e->Iex.Binop.arg2); set_union(&s, &t);
      break;
   case Iex_Unop:
      s = set_of_expr(e->Iex.Unop.arg);
      break;
   case Iex_ITE:
      s = set_of_expr(e->Iex.ITE.cond);
      t = set_of_expr(e->Iex.ITE.iftrue); set_union(&s, &t);
      t = set_of_expr(e->Iex.ITE.iffalse); set_union(&s, &t);
      break;
   case Iex_CCall:
      for (k = 0; e->Iex.CCall.args[k]; k++) {
         t = set_of_expr(e->Iex.CCall.args[k]);
         set_union(&s, &t);
      }
      break;
   default:                  /* Const, GetI, a load (the caller's), ... */
      break;
   }
   return s;
}

static void set_temp(IRTemp t, lat_set s)
{
   if (t != IRTemp_INVALID && t < (IRTemp)ir.n_temps) ir.temp[t] = s;
}

void cb_lat_bb_begin(IRSB *sbOut)
{
   Int r;
   ir.n_temps = sbOut->tyenv->types_used;
   ir.temp = VG_(realloc)("cb.lat.ir", ir.temp, (ir.n_temps + 1) * sizeof(lat_set));
   VG_(memset)(ir.temp, 0, (ir.n_temps + 1) * sizeof(lat_set));
   for (r = 0; r < LAT_REGS; r++) {
      VG_(memset)(&ir.reg[r], 0, sizeof(lat_set));
      ir.reg[r].regs = 1 << r;
   }
   ir.changed = 0;
   ir.n_acc = ir.n_exits = ir.n_regs = 0;
}

/* Access idx (sim_ir.c's order: the order of the calls' accesses) was
 * added or, for a store, merged into idx-1's read (a read-modify-write). */
void cb_lat_access(UInt idx, Bool write, Bool merged, const IRExpr *addr, const IRExpr *data)
{
   lat_access *a;
   if (!merged) {
      if (ir.n_acc == ir.acc_size) {
         ir.acc_size = ir.acc_size ? 2 * ir.acc_size : 64;
         ir.acc = VG_(realloc)("cb.lat.ir", ir.acc, ir.acc_size * sizeof(lat_access));
      }
      CB_ASSERT(idx == ir.n_acc);
      a = &ir.acc[ir.n_acc++];
      VG_(memset)(a, 0, sizeof *a);
      a->addr = set_of_expr(addr);
      a->kind = write ? LAT_STORE : LAT_LOAD;
   } else {
      a = &ir.acc[idx];
      a->kind = LAT_MODIFY;
   }
   if (write && data) {
      lat_set d = set_of_expr(data);
      set_union(&a->data, &d);
   }
}

/* A data access the tags do not follow (a helper's memory effect). */
void cb_lat_other_access(UInt idx, Bool merged)
{
   cb_lat_access(idx, False, merged, IRExpr_Const(IRConst_U64(0)), NULL);
   ir.acc[idx].kind = LAT_OTHER;
}

static void put_reg(Int off, IRType ty, lat_set s)
{
   Int r = reg_of(off);
   if (r < 0) return;
   if (sizeofIRType(ty) < 4) set_union(&s, &ir.reg[r]);   /* a partial write */
   ir.reg[r] = s;
   ir.changed |= 1 << r;
}

/* A statement of the input block (after sim_ir.c noted its access):
 * idx the index of the access whose loaded value it assigns, or -1. */
void cb_lat_stmt(IRStmt *st, Int idx, IRTypeEnv *env)
{
   lat_set none = { 0, { 0, 0 } };
   Int k;
   switch (st->tag) {
   case Ist_WrTmp: {
      IRExpr *e = st->Ist.WrTmp.data;
      set_temp(st->Ist.WrTmp.tmp, e->tag == Iex_Load ? set_of_access(idx) : set_of_expr(e));
      break;
   }
   case Ist_Put:
      put_reg(st->Ist.Put.offset, typeOfIRExpr(env, st->Ist.Put.data), set_of_expr(st->Ist.Put.data));
      break;
   case Ist_LoadG:
      set_temp(st->Ist.LoadG.details->dst, none);
      break;
   case Ist_CAS:
      set_temp(st->Ist.CAS.details->oldLo, set_of_access(idx));
      set_temp(st->Ist.CAS.details->oldHi, set_of_access(idx));
      break;
   case Ist_LLSC:
      set_temp(st->Ist.LLSC.result, st->Ist.LLSC.storedata ? none : set_of_access(idx));
      break;
   case Ist_Dirty: {
      IRDirty *d = st->Ist.Dirty.details;
      set_temp(d->tmp, none);
      for (k = 0; k < d->nFxState; k++)
         if (d->fxState[k].fx != Ifx_Read && d->fxState[k].nRepeats == 0)
            put_reg(d->fxState[k].offset, Ity_I64, none);
      break;
   }
   default:
      break;
   }
}

/* A side exit, or (at cb_lat_bb_end) the block's end: the registers
 * written so far and their sources. */
void cb_lat_exit_point(void)
{
   lat_exit *x;
   Int r;
   if (ir.n_exits == ir.exit_size) {
      ir.exit_size = ir.exit_size ? 2 * ir.exit_size : 8;
      ir.exit = VG_(realloc)("cb.lat.ir", ir.exit, ir.exit_size * sizeof(lat_exit));
   }
   if (ir.n_regs + LAT_REGS > ir.regs_size) {
      ir.regs_size = ir.regs_size ? 2 * ir.regs_size : 4 * LAT_REGS;
      ir.regs = VG_(realloc)("cb.lat.ir", ir.regs, ir.regs_size * sizeof(lat_set));
   }
   x = &ir.exit[ir.n_exits++];
   x->changed = 0;
   x->first = ir.n_regs;
   for (r = 0; r < LAT_REGS; r++) {
      const lat_set *s = &ir.reg[r];
      /* a register computed from itself alone (a counter, a pointer
       * moved by a constant) keeps its tag: nothing to do */
      if (!(ir.changed & (1 << r)) || (s->regs == (1 << r) && !s->acc[0] && !s->acc[1]))
         continue;
      x->changed |= 1 << r;
      ir.regs[ir.n_regs++] = *s;
   }
}

/* What a hit's tags depend on (lat_watch, sim_int.h): a read whose value
 * nothing in the block uses (no address, no stored value, no register at
 * any exit) changes no tag (quiet). */
static void mark_quiet(lat_block *b)
{
   lat_set used = { 0, { 0, 0 } };
   UInt k, r;
   for (k = 0; k < b->n_acc; k++) {
      set_union(&used, &b->acc[k].addr);
      set_union(&used, &b->acc[k].data);
   }
   for (r = 0; r < b->exit[b->n_exits - 1].first + (UInt)__builtin_popcount(b->exit[b->n_exits - 1].changed); r++)
      set_union(&used, &b->regs[r]);
   for (k = 0; k < b->n_acc; k++) {
      const lat_access *a = &b->acc[k];
      lat_watch *w = &b->h.watch[k];
      w->quiet = a->kind == LAT_OTHER
                 || (a->kind == LAT_LOAD
                     && (k >= LAT_SRC_ACCS || !(used.acc[k >> 6] & (1ULL << (k & 63)))));
      w->regs = a->addr.regs | a->data.regs;
      w->accs = (a->addr.acc[0] | a->addr.acc[1] | a->data.acc[0] | a->data.acc[1]) != 0;
   }
}

/* Carves n bytes, 8-aligned, from *at. */
static void *carve(UChar **at, SizeT n)
{
   void *p = *at;
   *at += VG_ROUNDUP(n, 8);
   return p;
}

/* The block's program, for the calls cb_sim_bb_end gave it (an older
 * translation's, replaced, is no longer used: its calls differ, or are
 * the same, and so is its program). */
void cb_lat_bb_end(BB *bb, Bool inverted)
{
   lat_block *b;
   UInt k, n = 0, n_calls = bb->n_sim_calls;
   SizeT size;
   UChar *at;
   cb_lat_exit_point();
   if (bb->lat) cb_mem_free(CB_MEM_BBS, bb->lat, bb->lat->size);
   size = VG_ROUNDUP(sizeof *b, 8) + VG_ROUNDUP(n_calls * sizeof(UInt), 8)
          + ir.n_acc * (sizeof(lat_watch) + sizeof(lat_access))
          + ir.n_exits * sizeof(lat_exit) + ir.n_regs * sizeof(lat_set) + 8;
   at = cb_mem_alloc(CB_MEM_BBS, "cb.lat.block", size);
   bb->lat = b = carve(&at, sizeof *b);
   b->size = size;
   b->h.calls = bb->sim_calls;
   b->h.n_calls = n_calls;
   b->h.first_acc = carve(&at, n_calls * sizeof(UInt));
   for (k = 0; k < n_calls; k++) {
      b->h.first_acc[k] = n;
      n += bb->sim_calls[k].n_acc;
   }
   CB_ASSERT(n == ir.n_acc);
   b->h.watch = carve(&at, ir.n_acc * sizeof(lat_watch));
   b->n_acc = ir.n_acc;
   b->acc = carve(&at, ir.n_acc * sizeof(lat_access));
   VG_(memcpy)(b->acc, ir.acc, ir.n_acc * sizeof(lat_access));
   b->n_exits = ir.n_exits;
   b->inverted = inverted;
   b->exit = carve(&at, ir.n_exits * sizeof(lat_exit));
   VG_(memcpy)(b->exit, ir.exit, ir.n_exits * sizeof(lat_exit));
   b->regs = carve(&at, ir.n_regs * sizeof(lat_set));
   VG_(memcpy)(b->regs, ir.regs, ir.n_regs * sizeof(lat_set));
   mark_quiet(b);
}

/*------------------------------------------------------------*/
/*--- Run time: the tags                                   ---*/
/*------------------------------------------------------------*/

typedef struct {
   lat_tag reg[LAT_REGS];
   UInt    hot;                  /* the registers whose tag is not 0 */
   Bool    mem_used;             /* a slot may be in use (else no lookup) */
   UInt    mem_newest;           /* when the last tagged value was stored */
   UInt    now;                  /* guest instructions of its blocks so far */
   UInt    newest;               /* when its last read miss happened */
   lat_mem mem[LAT_MEM_SLOTS];
} lat_thread;

static lat_thread **lat_threads;        /* VG_N_THREADS, made at setup */
/* The tags of the running block's loaded values. All 0 at a block's
 * start: a value of tag 0 needs no write (each access runs once per run
 * of its block), and the others are listed to be cleared at its end. */
static lat_tag   scratch[LAT_SRC_ACCS];
static UChar     scratch_set[LAT_SRC_ACCS];
static UInt      n_scratch_set;
const void      *cb_lat_pending;         /* the exec state whose block ran */
/* The running thread's tags as the replay tests them (sim_int.h): all
 * registers hot after a thread switch, until the next block's end looks
 * at the new thread. */
lat_state        cb_lat_now = { ~0u, True, True, NULL };

static inline void update_warm(const lat_thread *t)
{
   cb_lat_now.hot = t->hot;
   cb_lat_now.block = n_scratch_set != 0;
   cb_lat_now.unknown = False;
   cb_lat_now.mem = t->mem_used ? t->mem : NULL;
}

/* Per function (by number), in this part: the longest chain at D1 and
 * LL, and the dependent D1 misses (which order the desc: lines). */
typedef struct { fn_node *fn; UInt longest[2]; ULong dep; } lat_fn;
static lat_fn *fns;
static UInt    fns_size;
static UInt    run_longest[2];           /* over the whole run */

static lat_thread *cur_thread;           /* of thread cur_tid */
static ThreadId    cur_tid;

static inline lat_thread *thread_state(void)
{
   ThreadId tid = cb_cur.tid;
   if (LIKELY(tid == cur_tid && cur_thread)) return cur_thread;
   if (UNLIKELY(lat_threads[tid] == NULL)) {
      lat_threads[tid] = CB_MALLOC("cb.lat.thread", sizeof(lat_thread));
      VG_(memset)(lat_threads[tid], 0, sizeof(lat_thread));
   }
   cur_tid = tid;
   return cur_thread = lat_threads[tid];
}

/* d gets s's chains where they are longer and still within the window:
 * a miss more than --latency-window instructions ago delays nothing. */
static inline void tag_max(lat_tag *d, const lat_tag *s, UInt now)
{
   if (s->d1 > d->d1 && now - s->t1 <= (UInt)cb_clo.latency_window) { d->d1 = s->d1; d->t1 = s->t1; }
   if (s->ll > d->ll && now - s->tl <= (UInt)cb_clo.latency_window) { d->ll = s->ll; d->tl = s->tl; }
}

static inline lat_tag eval(const lat_set *s, const lat_thread *t)
{
   lat_tag v = { 0, 0, 0, 0 };
   UInt regs = s->regs & t->hot;
   Int w;
   while (regs) {
      Int r = __builtin_ctz(regs);
      tag_max(&v, &t->reg[r], t->now);
      regs &= regs - 1;
   }
   if (n_scratch_set == 0) return v;
   for (w = 0; w < 2; w++) {
      ULong m = s->acc[w];
      while (m) {
         tag_max(&v, &scratch[w * 64 + __builtin_ctzll(m)], t->now);
         m &= m - 1;
      }
   }
   return v;
}

static inline lat_mem *mem_slot(lat_thread *t, Addr a)
{
   return &t->mem[(a >> 3) & (LAT_MEM_SLOTS - 1)];
}

static void mem_store(lat_thread *t, Addr a, lat_tag v)
{
   lat_mem *m;
   if (!(v.d1 | v.ll) && !t->mem_used) return;
   m = mem_slot(t, a);
   if (v.d1 | v.ll) {
      t->mem_used = True;
      t->mem_newest = t->now;
      m->addr = a;
      m->tag = v;
   } else if (m->addr == a) m->addr = 0;
}

static lat_tag mem_load(lat_thread *t, Addr a, lat_tag v)
{
   lat_mem *m;
   if (!t->mem_used) return v;
   m = mem_slot(t, a);
   if (m->addr == a) tag_max(&v, &m->tag, t->now);
   return v;
}

static void note_longest(lat_tag v)
{
   const BBCC *b = cb_cur.nonskipped ? cb_cur.nonskipped : cb_cur.bbcc;
   fn_node *fn = b->bb->fn;
   lat_fn *f;
   if (fn->number >= fns_size) {
      UInt size = fn->number + 256;
      fns = VG_(realloc)("cb.lat.fns", fns, size * sizeof(lat_fn));
      VG_(memset)(fns + fns_size, 0, (size - fns_size) * sizeof(lat_fn));
      fns_size = size;
   }
   f = &fns[fn->number];
   f->fn = fn;
   f->dep++;                       /* (called for dependent misses only) */
   if (v.d1 > f->longest[0]) f->longest[0] = v.d1;
   if (v.ll > f->longest[1]) f->longest[1] = v.ll;
   if (v.d1 > run_longest[0]) run_longest[0] = v.d1;
   if (v.ll > run_longest[1]) run_longest[1] = v.ll;
}

/* A read with outcome r: its value's tag, and its dependent misses. */
static lat_tag read_value(lat_thread *t, lat_tag at, unsigned r, ULong *slot)
{
   lat_tag v = at;
   Bool collect = cb_cur.collect;
   if (!(r & CS_L1_MISS)) return v;
   v.d1++;
   v.t1 = t->newest = t->now;
   if (at.d1 && collect) { slot[cb_event_pos(EV_D1dep)]++; cb_cur.cost[cb_event_pos(EV_D1dep)]++; }
   if (r & CS_LL_MISS) {
      v.ll++;
      v.tl = t->now;
      if (at.ll && collect) { slot[cb_event_pos(EV_DLdep)]++; cb_cur.cost[cb_event_pos(EV_DLdep)]++; }
   }
   if (!collect) return v;
   if (v.d1 > 1) note_longest(v);        /* (an LL tag is at most the D1 tag) */
   else {
      if (!run_longest[0]) run_longest[0] = 1;
      if (v.ll && !run_longest[1]) run_longest[1] = 1;
   }
   return v;
}

/* After the block's access idx, at address a, was simulated with
 * outcome r (its instruction's cost slot: slot). */
void cb_lat_after_index(UInt idx, Addr a, unsigned r, ULong *slot)
{
   const lat_access *la = &cb_cur.bbcc->bb->lat->acc[idx];
   lat_thread *t;
   lat_tag v;
   if (la->kind == LAT_OTHER) return;
   t = thread_state();
   v = eval(&la->addr, t);
   if (la->kind == LAT_LOAD) v = read_value(t, v, r, slot);
   if (la->kind != LAT_STORE && idx < LAT_SRC_ACCS) {
      v = mem_load(t, a, v);
      if (v.d1 | v.ll) {
         scratch[idx] = v;
         scratch_set[n_scratch_set++] = idx;
      }
   }
   if (la->kind != LAT_LOAD) mem_store(t, a, eval(&la->data, t));
   update_warm(t);
}

/* The same by call and access (the helpers, the full replay). */
void cb_lat_after_access(const sim_call *c, Int i, Addr a, unsigned r, ULong *slot)
{
   UInt idx;
   const lat_watch *watch;
   if (cb_lat_first(c, &idx, &watch)) cb_lat_after_index(idx + i, a, r, slot);
}

/* The exit point a block left by, from what main.c stored in
 * jmps_passed (an inverted last exit and the end trade their values). */
static UInt exit_taken(const lat_block *b)
{
   UInt passed = cb_cur.jmps_passed, last = b->n_exits - 1;
   if (b->inverted && passed == last) return last - 1;
   if (b->inverted && passed == last - 1) return last;
   return passed <= last ? passed : last;
}

/* The pending block has ended: its registers get the tags of what was
 * written to them before the exit it took. */
static void clear_scratch(void)
{
   UInt k;
   for (k = 0; k < n_scratch_set; k++) scratch[scratch_set[k]] = (lat_tag){ 0, 0, 0, 0 };
   n_scratch_set = 0;
}

/* No miss of the thread is within the window any more: no tag counts,
 * none needs to be looked at. */
static void all_expired(lat_thread *t)
{
   UInt r;
   for (r = 0; r < LAT_REGS; r++) t->reg[r] = (lat_tag){ 0, 0, 0, 0 };
   t->hot = 0;
   t->mem_used = False;
}

/* Tags older than the window are 0 (tag_max): the registers holding
 * only such tags are no longer hot, and stored values older than it no
 * longer need a lookup. */
static void expire(lat_thread *t)
{
   UInt w = cb_clo.latency_window, m;
   if (t->now - t->newest > w) { all_expired(t); return; }
   if (t->mem_used && t->now - t->mem_newest > w) t->mem_used = False;
   for (m = t->hot; m; m &= m - 1) {
      UInt r = __builtin_ctz(m);
      if (t->now - t->reg[r].t1 > w && t->now - t->reg[r].tl > w) {
         t->reg[r] = (lat_tag){ 0, 0, 0, 0 };
         t->hot &= ~(1u << r);
      }
   }
}

void cb_lat_block_end(void)
{
   const lat_block *b;
   const lat_exit *x;
   lat_thread *t = thread_state();
   lat_tag next[LAT_REGS];
   UInt m, n;
   if (cb_lat_pending != cb_cur.es || !cb_cur.es || !cb_cur.bbcc) {
      cb_lat_pending = NULL;
      if (n_scratch_set) clear_scratch();
      update_warm(t);
      return;
   }
   cb_lat_pending = NULL;
   /* no register has a tag, no value of the block had one: every
    * register written gets tag 0, which it has */
   if ((n_scratch_set || t->hot) && (b = cb_cur.bbcc->bb->lat) != NULL) {
      UInt set = 0;               /* the registers whose tag changes */
      x = &b->exit[exit_taken(b)];
      for (m = x->changed, n = 0; m; m &= m - 1, n++) {
         const lat_set *s = &b->regs[x->first + n];
         UInt r = __builtin_ctz(m), hot_src = s->regs & t->hot;
         /* without a tagged value of the block among its sources: no
          * hot source gives 0 (nothing to do unless it is hot), itself
          * as the only hot one leaves it as it is (a sum, a counter) */
         if (!(n_scratch_set && (s->acc[0] | s->acc[1]))) {
            if (hot_src == 0 && !(t->hot & (1u << r))) continue;
            if (hot_src == (1u << r)) continue;
         }
         next[r] = eval(s, t);
         set |= 1u << r;
      }
      for (m = set; m; m &= m - 1) {
         UInt r = __builtin_ctz(m);
         t->reg[r] = next[r];
         if (next[r].d1 | next[r].ll) t->hot |= 1u << r;
         else t->hot &= ~(1u << r);
      }
   }
   if (n_scratch_set) clear_scratch();
   t->now += cb_cur.bbcc->bb->instr_count;
   if (t->hot || t->mem_used) expire(t);
   update_warm(t);
}

/* A new thread (Valgrind reuses the ids of threads that ended): its
 * registers start without tags. */
void cb_lat_thread_created(ThreadId tid)
{
   if (lat_threads && tid < VG_N_THREADS && lat_threads[tid])
      VG_(memset)(lat_threads[tid], 0, sizeof(lat_thread));
   cb_lat_now.unknown = True;
}

/* Instrumentation switched: the tags of the past are forgotten, as the
 * caches are. */
void cb_lat_clear(void)
{
   ThreadId tid;
   for (tid = 0; lat_threads && tid < VG_N_THREADS; tid++)
      if (lat_threads[tid]) VG_(memset)(lat_threads[tid], 0, sizeof(lat_thread));
   VG_(memset)(scratch, 0, sizeof scratch);
   n_scratch_set = 0;
   cb_lat_pending = NULL;
}

/*------------------------------------------------------------*/
/*--- Events and output                                    ---*/
/*------------------------------------------------------------*/

/* The events come after every other (declared last). */
void cb_lat_setup(void)
{
   lat_threads = CB_MALLOC("cb.lat.threads", VG_N_THREADS * sizeof(lat_thread *));
   VG_(memset)(lat_threads, 0, VG_N_THREADS * sizeof(lat_thread *));
   cb_event_declare(EV_D1dep, NULL);
   cb_event_declare(EV_DLdep, NULL);
}

static Int cmp_longest(const void *a, const void *b)
{
   const lat_fn *x = *(const lat_fn *const *)a, *y = *(const lat_fn *const *)b;
   if (x->dep != y->dep) return x->dep > y->dep ? -1 : 1;
   if (x->longest[0] != y->longest[0]) return x->longest[0] > y->longest[0] ? -1 : 1;
   if (x->longest[1] != y->longest[1]) return x->longest[1] > y->longest[1] ? -1 : 1;
   return x->fn->number < y->fn->number ? -1 : x->fn->number > y->fn->number;
}

/* `desc: Longest chain:` lines: the functions with the most dependent
 * D1 misses in this part (at most LAT_DESC_MAX; then the longest chain
 * first), with the longest chains their read misses ended (a chain of 1
 * is a miss no other one delayed). */
void cb_lat_write_desc(cb_outfile *f)
{
   lat_fn **order;
   UInt k, n = 0;
   if (!cb_clo.latency) return;
   cb_out_printf(f, "desc: Latency window: %d\n", cb_clo.latency_window);
   if (fns_size == 0) return;
   order = VG_(malloc)("cb.lat.desc", fns_size * sizeof(lat_fn *));
   for (k = 0; k < fns_size; k++)
      if (fns[k].fn && fns[k].longest[0] > 1) order[n++] = &fns[k];
   VG_(ssort)(order, n, sizeof(lat_fn *), cmp_longest);
   for (k = 0; k < n && k < LAT_DESC_MAX; k++)
      cb_out_printf(f, "desc: Longest chain: D1 %u LL %u fn=%s\n",
                    order[k]->longest[0], order[k]->longest[1], order[k]->fn->name);
   VG_(free)(order);
}

/* After a dump: the next part's chains start anew. */
void cb_lat_dumped(void)
{
   UInt k;
   for (k = 0; k < fns_size; k++) {
      fns[k].longest[0] = fns[k].longest[1] = 0;
      fns[k].dep = 0;
   }
}

/* The exit summary's line (summary.c). */
void cb_lat_print_summary(const ULong *total, Int width)
{
   ULong d1mr = total[cb_event_pos(EV_D1mr)], dlmr = total[cb_event_pos(EV_DLmr)];
   ULong d1dep = total[cb_event_pos(EV_D1dep)], dldep = total[cb_event_pos(EV_DLdep)];
   VG_(umsg)("\n");
   VG_(umsg)("D1 dep misses: %'*llu  (%'llu chains, longest %u)\n", width, d1dep,
             d1mr - d1dep, run_longest[0]);
   VG_(umsg)("LL dep misses: %'*llu  (%'llu chains, longest %u)\n", width, dldep,
             dlmr - dldep, run_longest[1]);
}
