/* callgrind-bd: cost centres (BBCCs), call arcs (JCCs), and the call
 * tracker that runs at the start of every executed basic block.
 *
 * The tracker follows the reference Callgrind's rules, because its call
 * graph is what users compare against:
 *   - a Ret is a real return only if the stack pointer rose above the top
 *     frame, or equals it and we land on that frame's return address;
 *     otherwise it is a jump;
 *   - any transfer first pops frames below the stack pointer (longjmp,
 *     exceptions); if it popped anything it was a return;
 *   - a jump to a function's first instruction, into another object or
 *     into another section kind is a call (tail calls, PLT stubs); from a
 *     pop-on-jump function (the lazy-binding resolver) the resolver's frame
 *     is popped first, so the caller appears to call the resolved function;
 *   - a return with nothing on the stack fakes the call it returns from.
 *
 * Copyright (C) 2026 the callgrind-bd authors.  GPL-2.0-or-later.
 */
#include "global.h"

ULong   *cb_cost_base;
CbStat   cb_stat;
static bbcc_hash *cur_bbccs(void)
{ return &cb_get_threads()[cb_clo.separate_threads ? cb_cur.tid : 1]->bbccs; }
static jcc_hash *cur_jccs(void)
{ return &cb_get_threads()[cb_clo.separate_threads ? cb_cur.tid : 1]->jccs; }

ULong *cb_new_cost(void)
{
   ULong *c = CB_MALLOC("cb.cost", cb_n_events * sizeof(ULong));
   cb_zero_cost(c);
   return c;
}

/*------------------------------------------------------------*/
/*--- BBCC hash, keyed by (BB, context)                    ---*/
/*------------------------------------------------------------*/

#define N_BBCC_HASH_INIT 10037
#define N_JCC_HASH_INIT  4999

void cb_init_bbcc_hash(bbcc_hash *h)
{
   h->size = N_BBCC_HASH_INIT;
   h->entries = 0;
   h->table = CB_MALLOC("cb.bbcc.hash", h->size * sizeof(BBCC *));
   VG_(memset)(h->table, 0, h->size * sizeof(BBCC *));
}

static UInt bbcc_hash_idx(const BB *bb, const Context *cxt, UInt size)
{
   return (UInt)(((UWord)bb->addr + (UWord)cxt->hash) % size);
}

static void resize_bbcc_hash(bbcc_hash *h)
{
   UInt new_size = 2 * h->size + 1, i;
   BBCC **t = CB_MALLOC("cb.bbcc.hash", new_size * sizeof(BBCC *));
   VG_(memset)(t, 0, new_size * sizeof(BBCC *));
   for (i = 0; i < h->size; i++) {
      BBCC *b = h->table[i];
      while (b) {
         BBCC *next = b->next_hash;
         UInt k = bbcc_hash_idx(b->bb, b->cxt, new_size);
         b->next_hash = t[k];
         t[k] = b;
         b = next;
      }
   }
   CB_FREE(h->table);
   h->table = t;
   h->size = new_size;
}

static void insert_bbcc(BBCC *bbcc)
{
   bbcc_hash *h = cur_bbccs();
   UInt k = bbcc_hash_idx(bbcc->bb, bbcc->cxt, h->size);
   bbcc->next_hash = h->table[k];
   h->table[k] = bbcc;
   if (++h->entries > 2 * h->size) resize_bbcc_hash(h);
}

static BBCC *lookup_bbcc(const BB *bb, const Context *cxt)
{
   bbcc_hash *h = cur_bbccs();
   BBCC *b = h->table[bbcc_hash_idx(bb, cxt, h->size)];
   while (b && !(b->bb == bb && b->cxt == cxt)) b = b->next_hash;
   return b;
}

void cb_forall_bbccs(bbcc_hash *h, void (*f)(BBCC *))
{
   UInt i;
   BBCC *b;
   for (i = 0; i < h->size; i++)
      for (b = h->table[i]; b; b = b->next_hash) f(b);
}

/* The per-instruction cost array lives in the same allocation, right
 * after the exits: one block instead of two saves the allocator's
 * per-block overhead, which counts in peak memory for large programs. */
static BBCC *new_bbcc(BB *bb)
{
   SizeT sz = sizeof(BBCC) + (bb->cjmp_count + 1) * sizeof(JmpData);
   SizeT n = cb_sim_needs_instr_costs() ? (SizeT)bb->instr_count * cb_n_events : 0;
   BBCC *b = CB_MALLOC("cb.bbcc", sz + n * sizeof(ULong));
   VG_(memset)(b, 0, sz + n * sizeof(ULong));
   b->bb = bb;
   if (n > 0) b->cost = (ULong *)((HChar *)b + sz);   /* sz is 8-aligned */
   cb_stat.distinct_bbccs++;
   return b;
}

static BBCC **new_rec_array(UInt levels)
{
   BBCC **a;
   if (levels < 1) levels = 1;
   a = CB_MALLOC("cb.bbcc.rec", levels * sizeof(BBCC *));
   VG_(memset)(a, 0, levels * sizeof(BBCC *));
   return a;
}

/* The first BBCC of a BB, possibly without a context yet. */
static BBCC *get_bbcc(BB *bb)
{
   if (!bb->bbcc_list) bb->bbcc_list = new_bbcc(bb);
   return bb->bbcc_list;
}

/* Give a fresh BBCC its context and recursion array, and index it. */
static void adopt_bbcc(BBCC *bbcc, Context *cxt)
{
   bbcc->cxt = cxt;
   bbcc->rec_index = 0;
   bbcc->rec_array = new_rec_array(cxt->fn[0]->separate_recs);
   bbcc->rec_array[0] = bbcc;
   insert_bbcc(bbcc);
}

/* A copy of orig's BB for another context or recursion level. */
static BBCC *clone_bbcc(BBCC *orig, Context *cxt, UInt rec_index)
{
   BBCC *b = new_bbcc(orig->bb);
   if (rec_index == 0) {
      adopt_bbcc(b, cxt);
   } else {
      b->cxt = cxt;
      b->rec_index = rec_index;
      b->rec_array = orig->rec_array;
      b->rec_array[rec_index] = b;
      insert_bbcc(b);
   }
   b->next_bbcc = orig->bb->bbcc_list->next_bbcc;
   orig->bb->bbcc_list->next_bbcc = b;
   cb_stat.bbcc_clones++;
   return b;
}

/* The BBCC of bb in context cxt (recursion level 0). */
BBCC *cb_bbcc_for_context(BB *bb, Context *cxt, BBCC *last_bbcc)
{
   BBCC *b = get_bbcc(bb);
   if (!b->cxt) { adopt_bbcc(b, cxt); return b; }
   /* Most blocks only ever run in one context: the BB's first cost centre
    * (hot, like bb) answers without a hash walk. Not with separate
    * threads, where it may belong to another thread. */
   if (b->cxt == cxt && !cb_clo.separate_threads) return b;
   /* the block that followed last time usually follows again */
   if (last_bbcc && (b = last_bbcc->lru_next_bbcc) && b->bb == bb && b->cxt == cxt)
      return b;
   b = lookup_bbcc(bb, cxt);
   if (!b) b = clone_bbcc(bb->bbcc_list, cxt, 0);
   return b;
}

BBCC *cb_bbcc_rec_level(BBCC *bbcc, UInt idx)
{
   if (bbcc->rec_array[idx]) return bbcc->rec_array[idx];
   return clone_bbcc(bbcc, bbcc->cxt, idx);
}

/*------------------------------------------------------------*/
/*--- JCC hash, keyed by (from, jmp, to)                   ---*/
/*------------------------------------------------------------*/

void cb_init_jcc_hash(jcc_hash *h)
{
   h->size = N_JCC_HASH_INIT;
   h->entries = 0;
   h->table = CB_MALLOC("cb.jcc.hash", h->size * sizeof(JCC *));
   VG_(memset)(h->table, 0, h->size * sizeof(JCC *));
}

static UInt jcc_hash_idx(const BBCC *from, UInt jmp, const BBCC *to, UInt size)
{
   return (UInt)((((UWord)from) ^ ((UWord)to >> 3) ^ jmp) % size);
}

static void resize_jcc_hash(jcc_hash *h)
{
   UInt new_size = 2 * h->size + 1, i;
   JCC **t = CB_MALLOC("cb.jcc.hash", new_size * sizeof(JCC *));
   VG_(memset)(t, 0, new_size * sizeof(JCC *));
   for (i = 0; i < h->size; i++) {
      JCC *j = h->table[i];
      while (j) {
         JCC *next = j->next_hash;
         UInt k = jcc_hash_idx(j->from, j->jmp, j->to, new_size);
         j->next_hash = t[k];
         t[k] = j;
         j = next;
      }
   }
   CB_FREE(h->table);
   h->table = t;
   h->size = new_size;
}

JCC *cb_get_jcc(BBCC *from, UInt jmp, BBCC *to)
{
   jcc_hash *h = cur_jccs();
   UInt k = jcc_hash_idx(from, jmp, to, h->size);
   JCC *j;
   for (j = h->table[k]; j; j = j->next_hash)
      if (j->from == from && j->jmp == jmp && j->to == to) return j;

   j = CB_MALLOC("cb.jcc", sizeof *j);
   j->from = from;
   j->to = to;
   j->jmp = jmp;
   j->kind = jk_Call;
   j->call_counter = 0;
   j->cost = cb_new_cost();
   j->next_from = from->jmp[jmp].jcc_list;
   from->jmp[jmp].jcc_list = j;
   j->next_hash = h->table[k];
   h->table[k] = j;
   cb_stat.distinct_jccs++;
   if (++h->entries > 2 * h->size) resize_jcc_hash(h);
   return j;
}

/*------------------------------------------------------------*/
/*--- The call tracker                                     ---*/
/*------------------------------------------------------------*/

/* Count the exit the previous block took; without cache simulation this
 * is also where Ir is counted (one helper call per block). */
static void account_last_exit(BBCC *last_bbcc, UInt passed)
{
   UInt n = last_bbcc->bb->jmp[passed].instr + 1;
   if (!cb_cur.collect) return;
   if (!cb_cur.nonskipped) {
      last_bbcc->ecounter_sum++;
      last_bbcc->jmp[passed].ecounter++;
      if (!cb_clo.simulate_cache) cb_cur.cost[0] += n;
   } else if (!cb_clo.simulate_cache) {
      /* skipped code: no execution count (it would fool the dump) */
      cb_cur.cost[0] += n;
      cb_cur.nonskipped->skipped[0] += n;
   }
}

/* Number of frames a Ret pops, or 0 if it is no real return. */
static Int real_return_pops(Addr sp, Addr target)
{
   Int up = cb_calls->sp - 1, pops = 1;
   call_entry *top = &cb_calls->entry[up];
   if (sp < top->sp) return 0;
   if (sp > top->sp) return 1;
   /* same stack pointer: accept only a frame whose return address we hit */
   for (;;) {
      if (top->ret_addr == target) return pops;
      if (up == 0) return 0;
      top = &cb_calls->entry[--up];
      if (top->sp != sp) return 0;
      pops++;
   }
}

/* A return with an empty stack (or into a signal handler's separator):
 * fake the call from the returned-to function, at return address - 1,
 * lasting since the last dump (or since the handler started). */
static void handle_underflow(BB *bb)
{
   Bool seen;
   BB *src_bb = cb_get_bb(bb->addr - 1, 0, &seen);
   BBCC *src;
   fn_node *caller;
   call_entry *up;

   if (!seen) {
      src_bb->jmp = CB_MALLOC("cb.bb.jmp", sizeof(JmpInfo));
      src_bb->jmp[0].kind = jk_None;
      src_bb->jmp[0].instr = 0;
      src_bb->fn = cb_get_fn_node(bb);
   }
   src = get_bbcc(src_bb);
   if (!seen) src->ecounter_sum = cb_cur.collect ? 1 : 0;
   else if (cb_cur.collect) src->ecounter_sum++;

   cb_fns->top--;
   cb_cur.cxt = NULL;
   caller = cb_get_fn_node(bb);
   cb_push_cxt(caller);
   if (!seen && !src->cxt) adopt_bbcc(src, cb_cur.cxt);

   (*cb_fn_entry(cb_cur.bbcc->cxt->fn[0]->number))--;
   cb_cur.nonskipped = NULL;
   cb_push_cxt(cb_cur.bbcc->cxt->fn[0]);
   cb_push_faked_call(src, cb_cur.bbcc);
   up = &cb_calls->entry[cb_calls->sp - 1];
   if (cb_cur.sig == 0) cb_copy_cost(up->enter_cost, cb_cur.thread->underflow_cost);
   else cb_zero_cost(up->enter_cost);
}

static Bool is_call_like_jump(const BB *last_bb, const BB *bb)
{
   return bb->is_entry
       || last_bb->sect_kind != bb->sect_kind
       || last_bb->obj != bb->obj;
}

/* --collect-jumps: a jump that stayed a jump (no call, no return) is an
 * arc of its own, counted whether or not events are being collected, as
 * in the reference. */
static void count_jump(BBCC *from, UInt passed, BBCC *to, Bool conditional)
{
   JCC *j = cb_get_jcc(from, passed, to);
   if (j->kind == jk_Call) j->kind = conditional ? jk_CondJump : jk_Jump;
   j->call_counter++;
}

/* Inline fast paths of the per-block work below: the common case costs a
 * compare instead of a call (this function runs for every block). */
static inline Int unwind_below(Addr sp)
{
   if (cb_calls->sp == 0 || cb_calls->entry[cb_calls->sp - 1].sp >= sp) return 0;
   return cb_unwind_call_stack(sp, 0);
}

static inline UInt *fn_entry_fast(UInt fn_number)
{
   thread_info *t = cb_cur.thread;
   return fn_number < t->fn_active_size ? &t->fn_active[fn_number] : cb_fn_entry(fn_number);
}

static inline BBCC *rec_level_fast(BBCC *bbcc, UInt idx)
{
   return bbcc->rec_array[idx] ? bbcc->rec_array[idx] : cb_bbcc_rec_level(bbcc, idx);
}

VG_REGPARM(1) void cb_setup_bbcc(BB *bb)
{
   ThreadId tid = VG_(get_running_tid)();
   BBCC *last_bbcc, *bbcc;
   BB *last_bb;
   Addr sp;
   JmpKind kind = jk_None;
   UInt passed = 0;
   Int csp, pops = 1;
   Bool ret_without_call = False, call_emulation = False;
   Bool delayed_push = False, skip = False;

   if (UNLIKELY(tid != cb_cur.tid)) cb_switch_thread(tid);

   sp = VG_(get_SP)(tid);
   last_bbcc = cb_cur.bbcc;
   last_bb = last_bbcc ? last_bbcc->bb : NULL;

   if (last_bb) {
      passed = cb_cur.jmps_passed;
      CB_ASSERT(passed <= last_bb->cjmp_count);
      kind = last_bb->jmp[passed].kind;
      account_last_exit(last_bbcc, passed);
   }

   csp = cb_calls->sp;
   if (kind == jk_Return && csp > 0) {
      pops = real_return_pops(sp, bb->addr);
      if (pops == 0) { kind = jk_Jump; ret_without_call = True; }
   }

   if (kind != jk_Return && kind != jk_Call && last_bb
       && (ret_without_call || is_call_like_jump(last_bb, bb))) {
      if (cb_get_fn_node(last_bb)->pop_on_jump && csp > 0) {
         call_entry *top = &cb_calls->entry[csp - 1];
         if (top->jcc) {
            /* the resolver's caller calls the resolved function */
            cb_cur.bbcc = top->jcc->from;
            sp = top->sp;
            passed = top->jcc->jmp;
            cb_pop_call_stack();
         }
      }
      kind = jk_Call;
      call_emulation = True;
   }

   if (kind == jk_Call) skip = cb_get_fn_node(bb)->skip;

   if (kind == jk_Return) {
      if (csp == 0 || (cb_fns->top > cb_fns->bottom && cb_fns->top[-1] == NULL)) {
         handle_underflow(bb);
         cb_pop_call_stack();
      } else {
         cb_unwind_call_stack(sp, pops);
      }
   } else {
      if (unwind_below(sp) > 0) kind = jk_Return;
      if (kind == jk_Call) {
         delayed_push = True;
         csp = cb_calls->sp;
         if (call_emulation && csp > 0) sp = cb_calls->entry[csp - 1].sp;
      }
   }

   if ((delayed_push && !skip) || cb_cur.cxt == NULL)
      cb_push_cxt(cb_get_fn_node(bb));

   bbcc = cb_bbcc_for_context(bb, cb_cur.cxt, last_bbcc);
   if (last_bbcc) last_bbcc->lru_next_bbcc = bbcc;

   {
      fn_node *top = *cb_fns->top;
      if (top->separate_recs > 1) {
         UInt *active = fn_entry_fast(top->number);
         UInt level = *active;
         if (delayed_push && !skip) {
            if (!cb_clo.skip_direct_rec
                || cb_cur.bbcc->cxt->fn[0] != bbcc->cxt->fn[0])
               level++;
         }
         if (level > (UInt)top->separate_recs) level = top->separate_recs;
         if (level == 0) { level = 1; *active = 1; }
         bbcc = rec_level_fast(bbcc, level - 1);
      }
   }

   if (delayed_push) {
      if (!skip && cb_cur.nonskipped) {
         /* a call from skipped code is a call of the code that called it */
         cb_cur.bbcc = cb_cur.nonskipped;
         passed = cb_cur.bbcc->bb->cjmp_count;
      }
      cb_push_call_stack(cb_cur.bbcc, passed, bbcc, sp, skip);
   }

   if (cb_clo.collect_jumps && kind == jk_Jump && last_bb)
      count_jump(last_bbcc, passed, bbcc, passed < last_bb->cjmp_count);

   cb_cur.bbcc = bbcc;
   cb_cur.jmps_passed = 0;
   cb_cost_base = bbcc->cost;
   cb_stat.bb_executions++;
}
