/* callgrind-bd: --reuse-dist=yes, the glue between the data accesses and
 * the reuse-distance histogram (cachesim/reusedist.h, where the model and
 * the method are stated).
 *
 * Every data access (each Dr and each Dw) adds 1 to exactly one bucket
 * event of its instruction, at LL's line size, with L = LL's lines:
 *    Rd0        distance 0 (the line referenced just before)
 *    Rd<e>      e <= distance < next edge, for e = 1, 2, 4, ... < L
 *    Rd<L>      distance >= L (the line was seen, but L or more distinct
 *               lines were referenced since)
 *    RdCold     first reference of the line
 * so the buckets of an instruction sum to its Dr + Dw.  A fully associative
 * LRU cache of C = 2^k <= L lines would miss the accesses counted in Rd<e>
 * for e >= C, plus RdCold.  Immediate events: exact inclusive costs.
 *
 * Copyright (C) 2026 the callgrind-bd authors.  GPL-2.0-or-later.
 */
#include "global.h"
#include "cachesim.h"
#include "reusedist.h"

static rd_sim *rd;
static HChar rd_names[CB_RD_EVENTS][16];
static HChar rd_long_names[CB_RD_EVENTS][64];

/* Bucket j's long name (event: line): its range of distances, in lines. */
static void long_name(Int j, Int n)
{
   HChar *s = rd_long_names[j];
   UInt lo = rd_lower_edge(rd, j);
   Bool finite_next = j + 1 < n && j + 1 != rd_cold(rd);
   if (j == rd_cold(rd)) VG_(sprintf)(s, "Reuse distance: first touch of the line");
   else if (lo == 0) VG_(sprintf)(s, "Reuse distance 0 (the same line again)");
   else if (finite_next && rd_lower_edge(rd, j + 1) - 1 > lo)
      VG_(sprintf)(s, "Reuse distance %u-%u lines", lo, rd_lower_edge(rd, j + 1) - 1);
   else if (finite_next) VG_(sprintf)(s, "Reuse distance %u lines", lo);
   else VG_(sprintf)(s, "Reuse distance %u lines or more", lo);
   cb_ev_long[EV_Rd + j] = s;
}

/* Bucket j's event is EV_Rd + j; names made from the edges. */
static void declare_events(void)
{
   Int j, n = rd_buckets(rd);
   CB_ASSERT(n <= CB_RD_EVENTS);
   for (j = 0; j < n; j++) {
      if (j == rd_cold(rd)) VG_(sprintf)(rd_names[j], "RdCold");
      else VG_(sprintf)(rd_names[j], "Rd%u", rd_lower_edge(rd, j));
      cb_event_declare(EV_Rd + j, rd_names[j]);
      long_name(j, n);
   }
}

void cb_rd_setup(const cs_geometry *ll)
{
   rd = rd_new((uint32_t)(ll->size / ll->line_size), (uint32_t)ll->line_size);
   declare_events();
}

/* Instrumentation switched: the access stream has a gap, start afresh
 * (the caches were emptied too). */
void cb_rd_clear(void)
{
   if (rd) rd_clear(rd);
}

void cb_rd_data(ULong *slot, Addr a, UWord size)
{
   Int j = rd_access(rd, a, (unsigned)size);
   if (cb_cur.collect) {
      Int p = cb_event_pos(EV_Rd + j);
      slot[p]++; cb_cur.cost[p]++;
   }
}
