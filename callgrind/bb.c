/* callgrind-bd: the table of basic blocks, keyed by guest address.
 *
 * A BB outlives its translation: when Valgrind retranslates the same
 * address with the same shape (after a discard, or instrumentation being
 * switched), the BB and its cost centres are reused. A different shape at
 * the same address (new code loaded there) gets a fresh BB; the old one
 * stays reachable from its cost centres so that its costs are still dumped.
 *
 * Copyright (C) 2026 the callgrind-bd authors.  GPL-2.0-or-later.
 */
#include "global.h"

#define N_BB_HASH_INIT 8191

static BB  **bb_table;
static UInt  bb_table_size, bb_entries;

void cb_init_bb_table(void)
{
   bb_table_size = N_BB_HASH_INIT;
   bb_table = CB_MALLOC("cb.bb.table", bb_table_size * sizeof(BB *));
   VG_(memset)(bb_table, 0, bb_table_size * sizeof(BB *));
}

static void resize_bb_table(void)
{
   UInt new_size = 2 * bb_table_size + 1, i;
   BB **t = CB_MALLOC("cb.bb.table", new_size * sizeof(BB *));
   VG_(memset)(t, 0, new_size * sizeof(BB *));
   for (i = 0; i < bb_table_size; i++) {
      BB *bb = bb_table[i];
      while (bb) {
         BB *next = bb->next;
         UInt h = bb->addr % new_size;
         bb->next = t[h];
         t[h] = bb;
         bb = next;
      }
   }
   CB_FREE(bb_table);
   bb_table = t;
   bb_table_size = new_size;
}

static BB *new_bb(Addr addr, UInt instr_count)
{
   DiEpoch ep = VG_(current_DiEpoch)();
   DebugInfo *di = VG_(find_DebugInfo)(ep, addr);
   /* instr[] shares the BB's allocation (less allocator overhead) */
   SizeT sz = sizeof(BB) + instr_count * sizeof(instr_info);
   BB *bb = CB_MALLOC("cb.bb.bb", sz);
   VG_(memset)(bb, 0, sz);
   bb->addr = addr;
   bb->obj = cb_get_obj_node(di);
   bb->sect_kind = VG_(DebugInfo_sect_kind)(NULL, addr);
   bb->instr_count = instr_count;
   if (instr_count > 0) bb->instr = (instr_info *)(bb + 1);
   /* jmp[] is sized by the instrumenter once the exits are known */
   cb_stat.distinct_bbs++;
   return bb;
}

/* The BB at addr with instr_count instructions; *seen_before tells whether
 * it existed already (its instruction and exit info are then valid). */
BB *cb_get_bb(Addr addr, UInt instr_count, Bool *seen_before)
{
   UInt h = addr % bb_table_size;
   BB *bb;
   for (bb = bb_table[h]; bb; bb = bb->next)
      if (bb->addr == addr && bb->instr_count == instr_count) {
         *seen_before = True;
         return bb;
      }
   *seen_before = False;
   bb = new_bb(addr, instr_count);
   bb->next = bb_table[h];
   bb_table[h] = bb;
   if (++bb_entries > 2 * bb_table_size) resize_bb_table();
   return bb;
}
