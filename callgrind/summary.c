/* callgrind-bd: the exit summary on stderr ("Events :", "Collected :",
 * "I refs:", with cache simulation the I/D/LL refs, misses and miss rates,
 * with branch simulation the branches, mispredicts and mispredict rates),
 * in the reference's layout, from the totals written over all dumps.
 *
 * The reference's rules: "Collected :" leaves out trailing zero counts
 * (as a cost line); three column widths serve every line: l1 that of Ir,
 * l2 the widest of Dr (cache) and Bc (branch), l3 of Dw and Bi; a branch
 * kind that never ran counts as 1 branch (so rates never divide by 0).
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

/* --L2: its refs (the L1 misses), misses and miss rate, in the layout of
 * the LL's lines; *llr and *llw become the L2 misses, the LL's refs. */
static void print_l2_summary(const ULong *total, Int l1, Int l2, Int l3,
                             ULong *llr, ULong *llw)
{
   ULong ir = total_of(total, EV_Ir);
   ULong dr = total_of(total, EV_Dr), dw = total_of(total, EV_Dw);
   ULong mr = total_of(total, EV_I2mr) + total_of(total, EV_D2mr);
   ULong mw = total_of(total, EV_D2mw);
   HChar p1[32], p2[32], p3[32];

   VG_(umsg)("L2 refs:       %'*llu  (%'*llu rd + %'*llu wr)\n", l1, *llr + *llw, l2, *llr, l3, *llw);
   VG_(umsg)("L2 misses:     %'*llu  (%'*llu rd + %'*llu wr)\n", l1, mr + mw, l2, mr, l3, mw);
   percent(p1, mr + mw, ir + dr + dw, 1, l1 + 1);
   percent(p2, mr, ir + dr, 1, l2 + 1);
   percent(p3, mw, dw, 1, l3 + 1);
   VG_(umsg)("L2 miss rate:  %s (%s   + %s  )\n", p1, p2, p3);
   VG_(umsg)("\n");
   *llr = mr;
   *llw = mw;
}

static void print_cache_summary(const ULong *total, Int l1, Int l2, Int l3)
{
   ULong ir = total_of(total, EV_Ir), i1mr = total_of(total, EV_I1mr);
   ULong ilmr = total_of(total, EV_ILmr);
   ULong dr = total_of(total, EV_Dr), dw = total_of(total, EV_Dw);
   ULong d1mr = total_of(total, EV_D1mr), d1mw = total_of(total, EV_D1mw);
   ULong dlmr = total_of(total, EV_DLmr), dlmw = total_of(total, EV_DLmw);
   ULong llr = i1mr + d1mr, llw = d1mw;
   ULong lmr = ilmr + dlmr, lmw = dlmw;
   HChar p1[32], p2[32], p3[32];

   VG_(umsg)("I   refs:      %'*llu\n", l1, ir);
   VG_(umsg)("I1  misses:    %'*llu\n", l1, i1mr);
   VG_(umsg)("LLi misses:    %'*llu\n", l1, ilmr);
   percent(p1, i1mr, ir, 2, l1 + 1);
   VG_(umsg)("I1  miss rate: %s\n", p1);
   percent(p1, ilmr, ir, 2, l1 + 1);
   VG_(umsg)("LLi miss rate: %s\n", p1);
   VG_(umsg)("\n");

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

   if (cb_geom.has_l2) print_l2_summary(total, l1, l2, l3, &llr, &llw);
   VG_(umsg)("LL refs:       %'*llu  (%'*llu rd + %'*llu wr)\n", l1, llr + llw, l2, llr, l3, llw);
   VG_(umsg)("LL misses:     %'*llu  (%'*llu rd + %'*llu wr)\n", l1, lmr + lmw, l2, lmr, l3, lmw);
   percent(p1, lmr + lmw, ir + dr + dw, 1, l1 + 1);
   percent(p2, lmr, ir + dr, 1, l2 + 1);
   percent(p3, lmw, dw, 1, l3 + 1);
   VG_(umsg)("LL miss rate:  %s (%s   + %s  )\n", p1, p2, p3);
}

static void print_branch_summary(const ULong *total, Int l1, Int l2, Int l3)
{
   ULong bc = total_of(total, EV_Bc), bcm = total_of(total, EV_Bcm);
   ULong bi = total_of(total, EV_Bi), bim = total_of(total, EV_Bim);
   HChar p1[32], p2[32], p3[32];

   if (bc == 0) bc = 1;
   if (bi == 0) bi = 1;
   VG_(umsg)("\n");
   VG_(umsg)("Branches:      %'*llu  (%'*llu cond + %'*llu ind)\n",
             l1, bc + bi, l2, bc, l3, bi);
   VG_(umsg)("Mispredicts:   %'*llu  (%'*llu cond + %'*llu ind)\n",
             l1, bcm + bim, l2, bcm, l3, bim);
   percent(p1, bcm + bim, bc + bi, 1, l1 + 1);
   percent(p2, bcm, bc, 1, l2 + 1);
   percent(p3, bim, bi, 1, l3 + 1);
   VG_(umsg)("Mispred rate:  %s (%s     + %s   )\n", p1, p2, p3);
}

/* "Events :" and "Collected :"; the counts of the events in output
 * order, without the trailing zeros (the first is always written). */
static void print_events_and_counts(const ULong *total)
{
   HChar line[32 + EV_COUNT * 24];   /* a name or a 20-digit count per event */
   Int i, n, last = 0;

   /* in output order: the order of positions */
   n = VG_(sprintf)(line, "Events    :");
   for (i = 0; i < cb_n_events; i++) {
      n += VG_(sprintf)(line + n, " %s", cb_ev_name[cb_ev_at[i]]);
      if (total[i] != 0) last = i;
   }
   VG_(message)(Vg_UserMsg, "%s\n", line);
   n = VG_(sprintf)(line, "Collected :");
   for (i = 0; i <= last; i++) n += VG_(sprintf)(line + n, " %llu", total[i]);
   VG_(message)(Vg_UserMsg, "%s\n", line);
   VG_(message)(Vg_UserMsg, "\n");
}

/* --prefetch: the model's counts over the whole run (also while not
 * collecting): used and unused tell how well the prefetches served. */
static void print_prefetch_summary(Int l1)
{
   ULong issued, used, unused;
   cb_sim_stream_prefetch_counts(&issued, &used, &unused);
   VG_(umsg)("\n");
   VG_(umsg)("Prefetches:    %'*llu  (%'llu used + %'llu evicted unused)\n", l1, issued,
             used, unused);
}

static Int max_int(Int a, Int b) { return a > b ? a : b; }

/* The exit summary on stderr, in the reference's layout: the events
 * written over all dumps (what the profiles sum to). */
void cb_print_summary(void)
{
   const ULong *total = cb_written_total;
   Int l1 = commas_width(total_of(total, EV_Ir)), l2 = 0, l3 = 0;

   print_events_and_counts(total);
   if (cb_clo.simulate_cache) {
      l2 = commas_width(total_of(total, EV_Dr));
      l3 = commas_width(total_of(total, EV_Dw));
   }
   if (cb_clo.branch_sim) {
      l2 = max_int(l2, commas_width(total_of(total, EV_Bc)));
      l3 = max_int(l3, commas_width(total_of(total, EV_Bi)));
   }
   if (!cb_clo.simulate_cache)
      VG_(umsg)("I   refs:      %'*llu\n", l1, total_of(total, EV_Ir));
   else
      print_cache_summary(total, l1, l2, l3);
   if (cb_clo.prefetch_distance > 0) print_prefetch_summary(l1);
   if (cb_clo.latency) cb_lat_print_summary(total, l1);
   if (cb_clo.branch_sim)
      print_branch_summary(total, l1, l2, l3);
}
