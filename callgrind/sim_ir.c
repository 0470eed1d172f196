/* callgrind-bd: the simulation's instrumentation.
 *
 * One helper call per run of instructions inside one I1 line (only the
 * first needs a cache lookup, the others are sure hits), carrying up to
 * three of their data accesses; further accesses take one call per three
 * (see below). A read directly followed by a write of the same address
 * and size by one instruction (read-modify-write) is one access counted as
 * Dw. By default the generated code does not make these calls: it stores
 * their addresses, and sim_replay.c makes them from C after the block
 * (--defer-sim=no makes them in place: the helpers of sim.c).
 *
 * Copyright (C) 2026 the callgrind-bd authors.  GPL-2.0-or-later.
 */
#include "sim_int.h"

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
/* idx: the access's index in the block (the order of the calls'
 * accesses), for --latency (latency.c) */
typedef struct { Bool write, modify; Int size; IRExpr *addr; IRExpr *guard; UInt instr; Int idx; } data_access;

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
   Int      n_acc, n_acc_block;  /* pending; in the block so far */
   data_access   acc[MAX_ACCESSES];
   /* the block's calls and the argument expressions to point at them */
   sim_call *calls;
   IRExpr **call_arg;
   Int      n_calls, calls_size;
   /* deferred simulation: where the next address goes in
    * cb_sim_replay_addr, the first call cb_replay_n counts from,
    * cb_setup_bbcc's argument */
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
 * (sim_replay.c). A block with more addresses than cb_sim_replay_addr
 * holds replays the calls so far in the middle. */
static void defer_call(data_access *acc, Int n, IRExpr *guard)
{
   Int i;
   if (cur_block.n_addr + n > REPLAY_ADDRS) {
      emit_call("replay_part", (void *)cb_sim_replay_part, 0, mkIRExprVec_0(), NULL);
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
      store_const_addr(&cb_sim_replay_addr[cur_block.n_addr++], a);
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
      { { NULL, NULL }, { "log_D1", (void *)cb_sim_log_D1 }, { "log_D2", (void *)cb_sim_log_D2 }, { "log_D3", (void *)cb_sim_log_D3 } },
      { { "log_F", (void *)cb_sim_log_F }, { "log_F1", (void *)cb_sim_log_F1 }, { "log_F2", (void *)cb_sim_log_F2 }, { "log_F3", (void *)cb_sim_log_F3 } },
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
      cs_plan_fetch(cb_sim_cache, c->fetch_addr, c->fetch_len, &c->fplan, &c->fplan_second);
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
   if (CB_SIM_STATS && fetch) count_in_ir(sbOut, &cb_sim_hot.instrs, cur_block.grp_n);
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
   cur_block.n_acc = cur_block.n_acc_block = 0;
   cur_block.grp_first = cur_block.grp_n = 0;
   cur_block.grp_open = False;
   cur_block.n_calls = 0;
   cur_block.ii = NULL;
   cur_block.defer = cb_sim_defer_on;
   cur_block.n_addr = cur_block.seg_first = 0;
   cur_block.setup_arg = mkIRExpr_HWord(0);
   if (cb_clo.bandwidth) cb_bw_bb_begin(bb);
   if (cb_clo.latency) cb_lat_bb_begin(sbOut);
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
 * array (the old one may still serve an older translation, so it stays).
 * With --bandwidth (batched) the list's static bytes, flops included,
 * must be the same too: a retranslation with other flops gets its own
 * array, so the counts of each run's flops stay with its calls. */
void cb_sim_bb_end(IRSB *sbOut)
{
   BB *bb = cur_block.bb;
   Int i;
   if (cur_block.n_calls == 0) return;
   if (!bb->sim_calls || bb->n_sim_calls != (UInt)cur_block.n_calls
       || VG_(memcmp)(bb->sim_calls, cur_block.calls, cur_block.n_calls * sizeof(sim_call)) != 0
       || !cb_bw_block_same(bb->sim_calls, bb)) {
      bb->sim_calls = cb_mem_alloc(CB_MEM_BBS, "cb.sim.calls",
                                   cb_sim_calls_bytes(cur_block.calls, cur_block.n_calls));
      VG_(memcpy)(bb->sim_calls, cur_block.calls, cur_block.n_calls * sizeof(sim_call));
      cb_sim_share_calls_made(bb->sim_calls, cur_block.n_calls);
      bb->n_sim_calls = cur_block.n_calls;
      cb_bw_block_made(bb->sim_calls, bb);
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

/* --latency: what the access reads or writes, for the tags (latency.c);
 * data: the value a store writes; followed: whether a read's value is
 * followed (not a helper's). */
static void note_latency(const data_access *a, Bool merged, IRExpr *data, Bool followed)
{
   if (!cb_clo.latency) return;
   if (followed) cb_lat_access(a->idx, a->write, merged, a->addr, data);
   else if (merged) cb_lat_other_access(a->idx, True);
   else cb_lat_other_access(a->idx, False);
}

/* The access's index in the block, or -1 when none is simulated. */
static Int add_access(Bool write, IRExpr *addr, Int size, IRExpr *guard, IRExpr *data, Bool followed)
{
   data_access *last = cur_block.n_acc > 0 ? &cur_block.acc[cur_block.n_acc - 1] : NULL;
   if (!cb_clo.simulate_cache || cur_block.cur < 0) return -1;
   if (size > cb_geom.min_line_size) size = cb_geom.min_line_size;
   /* read-modify-write by one instruction: one access, counted as a write */
   if (write && !guard && last && last->instr == (UInt)cur_block.cur && !last->write && !last->guard
       && last->size == size && same_atom(last->addr, addr)) {
      last->write = True;
      last->modify = True;              /* --sharing: a load and a store */
      note_latency(last, True, data, followed);
      return last->idx;
   }
   if (cur_block.n_acc == MAX_ACCESSES) cb_sim_flush(cur_block.sb);
   cur_block.acc[cur_block.n_acc++] = (data_access){ write, False, size, addr, guard, cur_block.cur,
                                                     cur_block.n_acc_block++ };
   note_latency(&cur_block.acc[cur_block.n_acc - 1], False, data, followed);
   return cur_block.acc[cur_block.n_acc - 1].idx;
}

static void add_bus_event(void)
{
   if (cb_clo.collect_bus && cur_block.cur >= 0)
      emit_call("log_bus", (void *)cb_sim_log_bus, 1, mkIRExprVec_1(ii_arg()), NULL);
}

void cb_sim_stmt(IRSB *sbOut, IRStmt *st)
{
   IRTypeEnv *env = sbOut->tyenv;
   Int idx = -1;         /* the access whose loaded value st assigns */
   if (UNLIKELY(cb_clo.bandwidth)) cb_bw_stmt(cur_block.bb, cur_block.cur, st);
   switch (st->tag) {
   case Ist_WrTmp: {
      IRExpr *e = st->Ist.WrTmp.data;
      if (e->tag == Iex_Load)
         idx = add_access(False, e->Iex.Load.addr, sizeofIRType(e->Iex.Load.ty), NULL, NULL, True);
      break;
   }
   case Ist_Store:
      add_access(True, st->Ist.Store.addr, sizeofIRType(typeOfIRExpr(env, st->Ist.Store.data)),
                 NULL, st->Ist.Store.data, True);
      break;
   case Ist_StoreG: {
      IRStoreG *sg = st->Ist.StoreG.details;
      add_access(True, sg->addr, sizeofIRType(typeOfIRExpr(env, sg->data)), sg->guard, sg->data, True);
      break;
   }
   case Ist_LoadG: {
      IRLoadG *lg = st->Ist.LoadG.details;
      IRType wide = Ity_INVALID, narrow = Ity_INVALID;
      typeOfIRLoadGOp(lg->cvt, &wide, &narrow);
      add_access(False, lg->addr, sizeofIRType(narrow), lg->guard, NULL, True);
      break;
   }
   case Ist_Dirty: {
      IRDirty *d = st->Ist.Dirty.details;
      if (d->mFx != Ifx_None) {
         if (d->mFx == Ifx_Read || d->mFx == Ifx_Modify)
            add_access(False, d->mAddr, d->mSize, NULL, NULL, False);
         if (d->mFx == Ifx_Write || d->mFx == Ifx_Modify)
            add_access(True, d->mAddr, d->mSize, NULL, NULL, False);
      }
      break;
   }
   case Ist_CAS: {
      IRCAS *cas = st->Ist.CAS.details;
      Int size = sizeofIRType(typeOfIRExpr(env, cas->dataLo)) * (cas->dataHi ? 2 : 1);
      idx = add_access(False, cas->addr, size, NULL, NULL, True);
      add_access(True, cas->addr, size, NULL, cas->dataLo, True);
      add_bus_event();
      break;
   }
   case Ist_LLSC:
      if (st->Ist.LLSC.storedata == NULL)
         idx = add_access(False, st->Ist.LLSC.addr,
                          sizeofIRType(typeOfIRTemp(env, st->Ist.LLSC.result)), NULL, NULL, True);
      else {
         add_access(True, st->Ist.LLSC.addr,
                    sizeofIRType(typeOfIRExpr(env, st->Ist.LLSC.storedata)), NULL,
                    st->Ist.LLSC.storedata, True);
         add_bus_event();
      }
      break;
   default:
      break;
   }
   if (UNLIKELY(cb_clo.latency)) cb_lat_stmt(st, idx, env);
}

/* A conditional branch: taken when the exit is taken, unless VEX inverted
 * the condition so that the exit goes to the next instruction. */
void cb_sim_exit(IRSB *sbOut, IRStmt *st)
{
   IRTemp t1, t2;
   IRExpr *taken;
   Addr next, dst;
   if (cb_clo.latency) cb_lat_exit_point();
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
   emit_call("log_cond", (void *)cb_sim_log_cond, 2, mkIRExprVec_2(ii_arg(), taken), NULL);
}

/* An indirect jump or call (not a return) at the end of the block. */
void cb_sim_final_jump(IRSB *sbOut, IRSB *sbIn)
{
   if (!cb_clo.branch_sim || cur_block.cur < 0) return;
   if (sbIn->next->tag == Iex_Const) return;
   if (sbIn->jumpkind != Ijk_Boring && sbIn->jumpkind != Ijk_Call) return;
   emit_call("log_ind", (void *)cb_sim_log_ind, 2, mkIRExprVec_2(ii_arg(), sbIn->next), NULL);
}

