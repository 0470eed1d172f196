/* callgrind-bd: contexts and the function stack.
 *
 * The function stack mirrors the call stack with the function of each
 * frame (a 0 entry separates a signal handler from what it interrupted).
 * A context is the top function plus up to `separate_callers` of the
 * functions below it; contexts are interned so that they compare by
 * pointer.
 *
 * Copyright (C) 2026 the callgrind-bd authors.  GPL-2.0-or-later.
 */
#include "global.h"

#define N_CXT_HASH_INIT 2039

static Context **cxt_table;
static UInt cxt_table_size, cxt_entries;

void cb_init_cxt_table(void)
{
   cxt_table_size = N_CXT_HASH_INIT;
   cxt_table = CB_MALLOC("cb.cxt.table", cxt_table_size * sizeof(Context *));
   VG_(memset)(cxt_table, 0, cxt_table_size * sizeof(Context *));
}

static UWord cxt_hash(fn_node **top, UInt size)
{
   UWord h = 0;
   UInt i;
   for (i = 0; i < size; i++) h = (h << 7) + (h >> 25) + top[-(Int)i]->number;
   return h;
}

static Bool cxt_matches(const Context *c, fn_node **top, UInt size, UWord h)
{
   UInt i;
   if (c->hash != h || c->size != size) return False;
   for (i = 0; i < size; i++)
      if (c->fn[i] != top[-(Int)i]) return False;
   return True;
}

static void resize_cxt_table(void)
{
   UInt new_size = 2 * cxt_table_size + 1, i;
   Context **t = CB_MALLOC("cb.cxt.table", new_size * sizeof(Context *));
   VG_(memset)(t, 0, new_size * sizeof(Context *));
   for (i = 0; i < cxt_table_size; i++) {
      Context *c = cxt_table[i];
      while (c) {
         Context *next = c->next;
         c->next = t[c->hash % new_size];
         t[c->hash % new_size] = c;
         c = next;
      }
   }
   CB_FREE(cxt_table);
   cxt_table = t;
   cxt_table_size = new_size;
}

/* The context whose functions are top[0], top[-1], ... top[-(size-1)]. */
Context *cb_get_cxt(fn_node **top, UInt size)
{
   UWord h = cxt_hash(top, size);
   Context *c;
   UInt i;
   for (c = cxt_table[h % cxt_table_size]; c; c = c->next)
      if (cxt_matches(c, top, size, h)) return c;
   c = CB_MALLOC("cb.cxt", sizeof(Context) + size * sizeof(fn_node *));
   c->size = size;
   c->hash = h;
   for (i = 0; i < size; i++) c->fn[i] = top[-(Int)i];
   c->next = cxt_table[h % cxt_table_size];
   cxt_table[h % cxt_table_size] = c;
   cb_stat.distinct_contexts++;
   if (++cxt_entries > 2 * cxt_table_size) resize_cxt_table();
   return c;
}

void cb_init_fn_stack(fn_stack *fs)
{
   fs->size = 64;
   fs->bottom = CB_MALLOC("cb.fnstack", fs->size * sizeof(fn_node *));
   fs->top = fs->bottom;
   *fs->top = NULL;
}

static void ensure_fn_stack(fn_stack *fs)
{
   Int used = fs->top - fs->bottom;
   if (used + 2 < fs->size) return;
   fs->size *= 2;
   fs->bottom = VG_(realloc)("cb.fnstack", fs->bottom, fs->size * sizeof(fn_node *));
   fs->top = fs->bottom + used;
}

/* Enter function fn (NULL: a signal handler's separator). The context
 * being left is saved in the call stack slot that the next push fills. */
void cb_push_cxt(fn_node *fn)
{
   call_entry *e;
   UInt size, depth;

   cb_ensure_call_stack(cb_calls->sp + 1);
   e = &cb_calls->entry[cb_calls->sp];
   e->cxt = cb_cur.cxt;
   e->fn_sp = cb_fns->top - cb_fns->bottom;

   /* Direct recursion keeps the context (its level is counted apart). */
   if (fn && *cb_fns->top == fn) return;

   ensure_fn_stack(cb_fns);
   *++cb_fns->top = fn;
   if (!fn) { cb_cur.cxt = NULL; return; }

   /* the context: fn and up to separate_callers callers, not crossing a
    * signal separator */
   size = 1;
   depth = cb_fns->top - cb_fns->bottom;
   while (size <= (UInt)fn->separate_callers && size < depth
          && cb_fns->top[-(Int)size] != NULL)
      size++;
   cb_cur.cxt = cb_get_cxt(cb_fns->top, size);
}
