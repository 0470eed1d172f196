/* callgrind-bd: what the pure C parts (cachesim/, backdate/) need from
 * their includer, supplied by the Valgrind core.
 *
 * Copyright (C) 2026 the callgrind-bd authors.  GPL-2.0-or-later.
 */
#include "global.h"
#include "cachesim.h"
#include "backdate.h"

static void *zalloc(const HChar *cc, unsigned long bytes)
{
   void *p = VG_(malloc)(cc, bytes);
   VG_(memset)(p, 0, bytes);
   return p;
}

void *cs_alloc(unsigned long bytes) { return zalloc("cb.cachesim", bytes); }
void  cs_free(void *p) { VG_(free)(p); }
void  cs_fail(const char *msg) { VG_(tool_panic)((HChar *)msg); }

void *bd_alloc(unsigned long bytes) { return zalloc("cb.backdate", bytes); }
void  bd_free(void *p) { VG_(free)(p); }
void  bd_fail(const char *msg) { VG_(tool_panic)((HChar *)msg); }
