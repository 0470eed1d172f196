/* callgrind-bd: the tables of cost centres (BBCCs) and call arcs (JCCs).
 *
 * A BBCC is found by (BB, context) and recursion level; a JCC by (caller
 * BBCC, exit, callee BBCC). With --separate-threads=yes every thread has
 * its own tables, else all threads share thread 1's: threads.c points
 * cb_cur.bbccs / cb_cur.jccs at the tables of the running thread. The
 * call tracker (calltrack.c) asks here for the cost centre of each block
 * it enters and for the arc of each call; dump.c walks the tables.
 *
 * Copyright (C) 2026 the callgrind-bd authors.  GPL-2.0-or-later.
 */
#include "global.h"

run_stats   cb_stat;
/*------------------------------------------------------------*/
/*--- BBCC hash, keyed by (BB, context)                    ---*/
/*------------------------------------------------------------*/

#define N_BBCC_HASH_INIT 10037
#define N_JCC_HASH_INIT  4999

void cb_init_bbcc_hash(bbcc_hash *h)
{
   h->size = N_BBCC_HASH_INIT;
   h->entries = 0;
   h->table = cb_mem_alloc(CB_MEM_COSTS, "cb.bbcc.hash", h->size * sizeof(BBCC *));
   VG_(memset)(h->table, 0, h->size * sizeof(BBCC *));
}

static UInt bbcc_hash_idx(const BB *bb, const context *cxt, UInt size)
{
   return (UInt)(((UWord)bb->addr + (UWord)cxt->hash) % size);
}

static void resize_bbcc_hash(bbcc_hash *h)
{
   UInt new_size = 2 * h->size + 1, i;
   BBCC **t = cb_mem_alloc(CB_MEM_COSTS, "cb.bbcc.hash", new_size * sizeof(BBCC *));
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
   cb_mem_free(CB_MEM_COSTS, h->table, h->size * sizeof(BBCC *));
   h->table = t;
   h->size = new_size;
}

static void insert_bbcc(BBCC *bbcc)
{
   bbcc_hash *h = cb_cur.bbccs;
   UInt k = bbcc_hash_idx(bbcc->bb, bbcc->cxt, h->size);
   bbcc->next_hash = h->table[k];
   h->table[k] = bbcc;
   if (++h->entries > 2 * h->size) resize_bbcc_hash(h);
}

static BBCC *lookup_bbcc(const BB *bb, const context *cxt)
{
   bbcc_hash *h = cb_cur.bbccs;
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
 * after the exits, and after it sim_replay.c's histogram: one block
 * instead of three saves the allocator's per-block overhead, which counts
 * in peak memory for large programs. */
static BBCC *new_bbcc(BB *bb)
{
   SizeT sz = sizeof(BBCC) + (bb->cjmp_count + 1) * sizeof(jmp_data);
   SizeT n = cb_events_per_instr() ? (SizeT)bb->instr_count * cb_n_events : 0;
   SizeT h = cb_sim_hist_len(bb);     /* the deferred simulation's counts */
   BBCC *b = cb_mem_alloc(CB_MEM_COSTS, "cb.bbcc", sz + (n + h) * sizeof(ULong));
   VG_(memset)(b, 0, sz + (n + h) * sizeof(ULong));
   b->bb = bb;
   if (n > 0) b->cost = (ULong *)((HChar *)b + sz);   /* sz is 8-aligned */
   if (h > 0) {
      b->hist = (ULong *)((HChar *)b + sz) + n;
      b->hist_n = h - 1;
      b->hist_calls = bb->sim_calls;
   }
   cb_stat.distinct_bbccs++;
   return b;
}

static BBCC **new_rec_array(UInt levels)
{
   BBCC **a;
   if (levels < 1) levels = 1;
   a = cb_mem_alloc(CB_MEM_COSTS, "cb.bbcc.rec", levels * sizeof(BBCC *));
   VG_(memset)(a, 0, levels * sizeof(BBCC *));
   return a;
}

/* The first BBCC of a BB, possibly without a context yet. */
BBCC *cb_bbcc_first(BB *bb)
{
   if (!bb->bbcc_list) bb->bbcc_list = new_bbcc(bb);
   return bb->bbcc_list;
}

/* Give a fresh BBCC its context and recursion array, and index it. */
void cb_bbcc_adopt(BBCC *bbcc, context *cxt)
{
   bbcc->cxt = cxt;
   bbcc->rec_index = 0;
   bbcc->rec_array = new_rec_array(cxt->fn[0]->separate_recs);
   bbcc->rec_array[0] = bbcc;
   insert_bbcc(bbcc);
}

/* A copy of orig's BB for another context or recursion level. */
static BBCC *clone_bbcc(BBCC *orig, context *cxt, UInt rec_index)
{
   BBCC *b = new_bbcc(orig->bb);
   if (rec_index == 0) {
      cb_bbcc_adopt(b, cxt);
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
BBCC *cb_bbcc_for_context(BB *bb, context *cxt, BBCC *last_bbcc)
{
   BBCC *b = cb_bbcc_first(bb);
   if (!b->cxt) { cb_bbcc_adopt(b, cxt); return b; }
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
   h->table = cb_mem_alloc(CB_MEM_ARCS, "cb.jcc.hash", h->size * sizeof(JCC *));
   VG_(memset)(h->table, 0, h->size * sizeof(JCC *));
}

static UInt jcc_hash_idx(const BBCC *from, UInt jmp, const BBCC *to, UInt size)
{
   return (UInt)((((UWord)from) ^ ((UWord)to >> 3) ^ jmp) % size);
}

static void resize_jcc_hash(jcc_hash *h)
{
   UInt new_size = 2 * h->size + 1, i;
   JCC **t = cb_mem_alloc(CB_MEM_ARCS, "cb.jcc.hash", new_size * sizeof(JCC *));
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
   cb_mem_free(CB_MEM_ARCS, h->table, h->size * sizeof(JCC *));
   h->table = t;
   h->size = new_size;
}

JCC *cb_get_jcc(BBCC *from, UInt jmp, BBCC *to)
{
   jcc_hash *h = cb_cur.jccs;
   UInt k = jcc_hash_idx(from, jmp, to, h->size);
   JCC *j;
   for (j = h->table[k]; j; j = j->next_hash)
      if (j->from == from && j->jmp == jmp && j->to == to) return j;

   j = cb_mem_alloc(CB_MEM_ARCS, "cb.jcc", sizeof *j + cb_paths_jcc_bytes());
   j->from = from;
   j->to = to;
   j->jmp = jmp;
   j->kind = jk_Call;
   j->call_counter = 0;
   j->cost = cb_new_cost(CB_MEM_ARCS);
   if (cb_clo.paths) VG_(memset)(j + 1, 0, cb_paths_jcc_bytes());
   j->next_from = from->jmp[jmp].jcc_list;
   from->jmp[jmp].jcc_list = j;
   j->next_hash = h->table[k];
   h->table[k] = j;
   cb_stat.distinct_jccs++;
   if (++h->entries > 2 * h->size) resize_jcc_hash(h);
   return j;
}
