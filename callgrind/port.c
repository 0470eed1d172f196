/* callgrind-bd: what the pure C parts (cachesim/, backdate/) need from
 * their includer, supplied by the Valgrind core.
 *
 * Copyright (C) 2026 the callgrind-bd authors.  GPL-2.0-or-later.
 */
#include "global.h"
#include "cachesim.h"
#include "backdate.h"

/* counted (memory.c) with their sizes remembered: the models free
 * without saying how much */
static void *zalloc(cb_mem_kind k, const HChar *cc, unsigned long bytes)
{
   void *p = cb_mem_alloc_tagged(k, cc, bytes);
   VG_(memset)(p, 0, bytes);
   return p;
}

void *cs_alloc(unsigned long bytes) { return zalloc(CB_MEM_CACHES, "cb.cachesim", bytes); }
void  cs_free(void *p) { cb_mem_free_tagged(p); }
void  cs_fail(const char *msg) { VG_(tool_panic)((HChar *)msg); }

void *bd_alloc(unsigned long bytes) { return zalloc(CB_MEM_TREES, "cb.backdate", bytes); }
void  bd_free(void *p) { cb_mem_free_tagged(p); }
void  bd_fail(const char *msg) { VG_(tool_panic)((HChar *)msg); }
