/* callgrind-bd: the exit summary on stderr ("Events :", "Collected :",
 * and with cache simulation the I/D/LL refs, misses and miss rates), in
 * the reference's layout, from the totals written over all dumps.
 *
 * Copyright (C) 2026 the callgrind-bd authors.  GPL-2.0-or-later.
 */
#include "global.h"

/* An event's total (the event must be counted). */
static inline ULong total_of(const ULong *total, event_id e)
{
   return total[cb_event_pos(e)];
}

static Int commas_width(ULong n)
{
   HChar buf[32];
   return VG_(sprintf)(buf, "%'llu", n);
}

static void percent(HChar *buf, ULong n, ULong m, Int decimals, Int width)
{
   HChar tmp[32];
   Int len, pad;
   if (m == 0) VG_(sprintf)(tmp, "--%%");
   else {
      ULong scale = decimals == 2 ? 100 : 10;
      ULong p = (n * 100 * scale + m / 2) / m;
      VG_(sprintf)(tmp, decimals == 2 ? "%llu.%02llu%%" : "%llu.%llu%%", p / scale, p % scale);
   }
   len = VG_(strlen)(tmp);
   pad = width > len ? width - len : 0;
   VG_(memset)(buf, ' ', pad);
   VG_(strcpy)(buf + pad, tmp);
}

static void print_cache_summary(const ULong *total)
{
   ULong ir = total_of(total, EV_Ir), i1mr = total_of(total, EV_I1mr);
   ULong ilmr = total_of(total, EV_ILmr);
   ULong dr = total_of(total, EV_Dr), dw = total_of(total, EV_Dw);
   ULong d1mr = total_of(total, EV_D1mr), d1mw = total_of(total, EV_D1mw);
   ULong dlmr = total_of(total, EV_DLmr), dlmw = total_of(total, EV_DLmw);
   ULong llr = i1mr + d1mr, llw = d1mw;
   ULong lmr = ilmr + dlmr, lmw = dlmw;
   Int l1 = commas_width(ir), l2, l3;
   HChar p1[32], p2[32], p3[32];

   VG_(umsg)("I   refs:      %'*llu\n", l1, ir);
   VG_(umsg)("I1  misses:    %'*llu\n", l1, i1mr);
   VG_(umsg)("LLi misses:    %'*llu\n", l1, ilmr);
   percent(p1, i1mr, ir, 2, l1 + 1);
   VG_(umsg)("I1  miss rate: %s\n", p1);
   percent(p1, ilmr, ir, 2, l1 + 1);
   VG_(umsg)("LLi miss rate: %s\n", p1);
   VG_(umsg)("\n");

   l2 = commas_width(dr);
   l3 = commas_width(dw);
   VG_(umsg)("D   refs:      %'*llu  (%'*llu rd + %'*llu wr)\n", l1, dr + dw, l2, dr, l3, dw);
   VG_(umsg)("D1  misses:    %'*llu  (%'*llu rd + %'*llu wr)\n", l1,
             d1mr + d1mw, l2, d1mr, l3, d1mw);
   VG_(umsg)("LLd misses:    %'*llu  (%'*llu rd + %'*llu wr)\n", l1,
             dlmr + dlmw, l2, dlmr, l3, dlmw);
   percent(p1, d1mr + d1mw, dr + dw, 1, l1 + 1);
   percent(p2, d1mr, dr, 1, l2 + 1);
   percent(p3, d1mw, dw, 1, l3 + 1);
   VG_(umsg)("D1  miss rate: %s (%s   + %s  )\n", p1, p2, p3);
   percent(p1, dlmr + dlmw, dr + dw, 1, l1 + 1);
   percent(p2, dlmr, dr, 1, l2 + 1);
   percent(p3, dlmw, dw, 1, l3 + 1);
   VG_(umsg)("LLd miss rate: %s (%s   + %s  )\n", p1, p2, p3);
   VG_(umsg)("\n");

   VG_(umsg)("LL refs:       %'*llu  (%'*llu rd + %'*llu wr)\n", l1, llr + llw, l2, llr, l3, llw);
   VG_(umsg)("LL misses:     %'*llu  (%'*llu rd + %'*llu wr)\n", l1, lmr + lmw, l2, lmr, l3, lmw);
   percent(p1, lmr + lmw, ir + dr + dw, 1, l1 + 1);
   percent(p2, lmr, ir + dr, 1, l2 + 1);
   percent(p3, lmw, dw, 1, l3 + 1);
   VG_(umsg)("LL miss rate:  %s (%s   + %s  )\n", p1, p2, p3);
}

/* The exit summary on stderr, in the reference's layout: the events
 * written over all dumps (what the profiles sum to). */
void cb_print_summary(void)
{
   const ULong *total = cb_written_total;
   Int e;
   HChar line[32 + EV_COUNT * 24];   /* a name or a 20-digit count per event */
   Int n = 0;

   n = VG_(sprintf)(line, "Events    :");
   for (e = 0; e < EV_COUNT; e++)
      if (cb_ev_pos[e] >= 0) n += VG_(sprintf)(line + n, " %s", cb_ev_name[e]);
   VG_(message)(Vg_UserMsg, "%s\n", line);
   n = VG_(sprintf)(line, "Collected :");
   for (e = 0; e < EV_COUNT; e++)
      if (cb_ev_pos[e] >= 0) n += VG_(sprintf)(line + n, " %llu", total[cb_ev_pos[e]]);
   VG_(message)(Vg_UserMsg, "%s\n", line);
   VG_(message)(Vg_UserMsg, "\n");
   if (!cb_clo.simulate_cache)
      VG_(message)(Vg_UserMsg, "I   refs:      %'llu\n", total[0]);
   else
      print_cache_summary(total);
}
