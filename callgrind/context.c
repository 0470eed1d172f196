/* callgrind-bd: contexts, interned.
 *
 * A context is a function plus up to `separate_callers` of the functions
 * below it on the function stack (callstack.c, cb_push_cxt, which builds
 * them); contexts are interned here so that they compare by pointer.
 *
 * Copyright (C) 2026 the callgrind-bd authors.  GPL-2.0-or-later.
 */
#include "global.h"

#define N_CXT_HASH_INIT 2039

static context **cxt_table;
static UInt cxt_table_size, cxt_entries;

void cb_init_cxt_table(void)
{
   cxt_table_size = N_CXT_HASH_INIT;
   cxt_table = cb_mem_alloc(CB_MEM_CONTEXTS, "cb.cxt.table", cxt_table_size * sizeof(context *));
   VG_(memset)(cxt_table, 0, cxt_table_size * sizeof(context *));
}

static UWord cxt_hash(fn_node **top, UInt size)
{
   UWord h = 0;
   UInt i;
   for (i = 0; i < size; i++) h = (h << 7) + (h >> 25) + top[-(Int)i]->number;
   return h;
}

static Bool cxt_matches(const context *c, fn_node **top, UInt size, UWord h)
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
   context **t = cb_mem_alloc(CB_MEM_CONTEXTS, "cb.cxt.table", new_size * sizeof(context *));
   VG_(memset)(t, 0, new_size * sizeof(context *));
   for (i = 0; i < cxt_table_size; i++) {
      context *c = cxt_table[i];
      while (c) {
         context *next = c->next;
         c->next = t[c->hash % new_size];
         t[c->hash % new_size] = c;
         c = next;
      }
   }
   cb_mem_free(CB_MEM_CONTEXTS, cxt_table, cxt_table_size * sizeof(context *));
   cxt_table = t;
   cxt_table_size = new_size;
}

/* The context whose functions are top[0], top[-1], ... top[-(size-1)]. */
context *cb_get_cxt(fn_node **top, UInt size)
{
   UWord h = cxt_hash(top, size);
   context *c;
   UInt i;
   for (c = cxt_table[h % cxt_table_size]; c; c = c->next)
      if (cxt_matches(c, top, size, h)) return c;
   c = cb_mem_alloc(CB_MEM_CONTEXTS, "cb.cxt", sizeof(context) + size * sizeof(fn_node *));
   c->size = size;
   c->path_fn = 0;
   c->hash = h;
   for (i = 0; i < size; i++) c->fn[i] = top[-(Int)i];
   c->next = cxt_table[h % cxt_table_size];
   cxt_table[h % cxt_table_size] = c;
   cb_stat.distinct_contexts++;
   if (++cxt_entries > 2 * cxt_table_size) resize_cxt_table();
   return c;
}

/* The written name of a function in a context: fn'level'caller'... */
void cb_context_name(const context *cxt, UInt rec_index, HChar *buf, SizeT size)
{
   SizeT used;
   UInt i;
   VG_(snprintf)(buf, size, "%s", cxt->fn[0]->name);
   used = VG_(strlen)(buf);
   if (rec_index > 0 && used < size)
      used += VG_(snprintf)(buf + used, size - used, "'%u", rec_index + 1);
   for (i = 1; i < cxt->size && used < size; i++)
      used += VG_(snprintf)(buf + used, size - used, "'%s", cxt->fn[i]->name);
}
