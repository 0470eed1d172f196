/* callgrind-bd: the long names of events, the one table every writer of
 * `event: <name> : <long name>` header lines reads (the profile and the
 * objects profile).  KCachegrind shows the long name in its event lists;
 * callgrind_annotate ignores the lines.
 *
 * An event gets a line only when its long name is set: the reference
 * Callgrind's own events keep the reference's header (it names none of
 * Ir ... Bim), ours say what they count and in which unit.  Names that
 * depend on options (the reuse-distance buckets, made from the LL size;
 * a unit chosen by an option) are set where the event is enabled, into
 * the same table (cb_ev_long).
 *
 * Copyright (C) 2026 the callgrind-bd authors.  GPL-2.0-or-later.
 */
#include "global.h"

const HChar *cb_ev_long[EV_COUNT] = {
   [EV_AcCost1] = "L1 access cost (1000 / accesses per line)",
   [EV_SpLoss1] = "L1 spatial loss (bytes never used)",
   [EV_AcCost2] = "LL access cost (1000 / accesses per line)",
   [EV_SpLoss2] = "LL spatial loss (bytes never used)",
   [EV_L1ld]    = "L1 lines loaded (counted at load)",
   [EV_LLld]    = "LL lines loaded (counted at load)",
   [EV_L1ldB]   = "L1 lines loaded (back-dated, counted when they leave)",
   [EV_LLldB]   = "LL lines loaded (back-dated, counted when they leave)",
   [EV_I2mr]    = "L2 instruction read misses",
   [EV_D2mr]    = "L2 data read misses",
   [EV_D2mw]    = "L2 data write misses",
   [EV_AcCostL2] = "L2 access cost (1000 / accesses per line)",
   [EV_SpLossL2] = "L2 spatial loss (bytes never used)",
   [EV_L2ld]    = "L2 lines loaded (counted at load)",
   [EV_L2ldB]   = "L2 lines loaded (back-dated, counted when they leave)",
   [EV_Pfi]     = "prefetches issued (lines the stream prefetcher loaded)",
   [EV_Pfu]     = "prefetched lines used before they left D1 (back-dated)",
   [EV_Pfx]     = "prefetched lines evicted unused (back-dated)",
   [EV_I1Co]    = "I1 compulsory misses",
   [EV_I1Ca]    = "I1 capacity misses",
   [EV_I1Cf]    = "I1 conflict misses",
   [EV_D1Co]    = "D1 compulsory misses",
   [EV_D1Ca]    = "D1 capacity misses",
   [EV_D1Cf]    = "D1 conflict misses",
   [EV_LLCo]    = "LL compulsory misses",
   [EV_LLCa]    = "LL capacity misses",
   [EV_LLCf]    = "LL conflict misses",
   [EV_L2Co]    = "L2 compulsory misses",
   [EV_L2Ca]    = "L2 capacity misses",
   [EV_L2Cf]    = "L2 conflict misses",
   [EV_Flop]    = "Floating-point operations (SIMD lanes counted)",
   [EV_BwCr]    = "Time units bound by core<-L1 (L1 read bandwidth)",
   [EV_BwCw]    = "Time units bound by core->L1 (L1 write bandwidth)",
   [EV_BwLr]    = "Time units bound by L1<-LL (LL read bandwidth)",
   [EV_BwLw]    = "Time units bound by L1->LL (LL write bandwidth)",
   [EV_BwXr]    = "Time units bound by L1<-L1 (reads from other cores' L1)",
   [EV_BwMr]    = "Time units bound by LL<-mem (memory read bandwidth, per core)",
   [EV_BwMw]    = "Time units bound by LL->mem (memory write bandwidth, per core)",
   [EV_BwF]     = "Time units bound by flop (floating-point peak)",
   [EV_BwMrA]   = "Time units bound by LL<-mem all (memory read bandwidth, all cores)",
   [EV_BwMwA]   = "Time units bound by LL->mem all (memory write bandwidth, all cores)",
   [EV_BwPk]    = "Time units at peak (no bandwidth limit exceeded)",
   [EV_D1dep]   = "D1 read misses whose address depends on an earlier D1 read miss",
   [EV_DLdep]   = "LL read misses whose address depends on an earlier LL read miss",
};

/* Calls emit(line) with "event: <name> : <long name>\n" for every active
 * event of `events` (n of them; NULL: all active events) that has one. */
void cb_write_event_names(const event_id *events, Int n, void (*emit)(const HChar *))
{
   HChar line[160];
   Int i, count = events ? n : EV_COUNT;
   for (i = 0; i < count; i++) {
      event_id e = events ? events[i] : (event_id)i;
      if (cb_ev_pos[e] < 0 || !cb_ev_long[e]) continue;
      VG_(snprintf)(line, sizeof line, "event: %s : %s\n", cb_ev_name[e], cb_ev_long[e]);
      emit(line);
   }
}
